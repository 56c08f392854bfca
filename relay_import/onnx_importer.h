// ONNX model import: ModelProto -> Graph with static shapes, constants folded.
//
//   ImportOptions o;
//   o.input_shapes = parse_input_shapes("x=1,3,640,640");
//   Graph g = import_onnx("model.onnx", o);
//
// Errors: an unreadable / truncated / non-ONNX file, an unsupported opset or
// op (naming op type, node name and opset) raise ImportError; an input shape
// that contradicts the model, or a dynamic dimension left unspecified, raises
// ShapeError naming the input. Sequence and optional values are expanded at
// import: such a graph input becomes one input per element tensor and such a
// graph output its element tensors, in order (see ImportOptions).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "relay_import/graph.h"
#include "base/ndarray.h"

namespace tetune {
namespace relay {

struct ImportOptions {
  /** Input name -> concrete shape, replacing the model's (possibly dynamic) one. */
  std::map<std::string, Shape> input_shapes;
  /** Inputs replaced by constants with these values (e.g. a Reshape's shape fed as an input). */
  std::map<std::string, NDArray> frozen_inputs;
  /** Fold nodes whose inputs are all constants (always done for Shape / Size). */
  bool fold_constants = true;
  /** Run shape inference (and folding); false leaves a raw graph. */
  bool infer_shapes = true;
  /**
   * Sequence inputs, and optional inputs holding a sequence: name -> element
   * shapes. Each element becomes a graph input "name[k]", in order (sequences
   * are expanded at import, relay_import/lowering_sequence.cc). An optional
   * input holding a tensor takes its shape from input_shapes and becomes the
   * graph input "name[0]"; one holding nothing is named in empty_optional_inputs.
   */
  std::map<std::string, std::vector<Shape>> sequence_input_shapes;
  std::set<std::string> empty_optional_inputs;
};

/**
 * One value of ONNX test data (input_N.pb / output_N.pb): a TensorProto,
 * SequenceProto or OptionalProto. `tensors` holds the value flattened: the
 * tensor, the sequence's elements, or the optional's content (none when empty).
 */
struct DataValue {
  Value::Kind kind = Value::Kind::Tensor;
  bool holds_sequence = false;  // a sequence, or an optional holding one
  bool empty = false;           // an optional holding nothing
  std::vector<NDArray> tensors;
};

/**
 * Reads a test-data file of the given kind (the model's declared input or
 * output type). ImportError when it cannot be read or is not of that kind.
 */
DataValue read_value_pb(const std::string &path, Value::Kind kind);

/**
 * Sets what options needs to import `name` fed with v: input_shapes for a
 * tensor (or an optional holding one), sequence_input_shapes for a sequence,
 * empty_optional_inputs for an empty optional. The graph then takes v.tensors,
 * in order, as its inputs for `name`.
 */
void set_input(ImportOptions &options, const std::string &name, const DataValue &v);

/** "x=1,3,640,640" or "x=1,3,48,320;y=2,4" (also accepts ':' for '=' and 'x' between dims). ShapeError on a bad spec. */
std::map<std::string, Shape> parse_input_shapes(const std::string &spec);

/** Supported default-domain opset range. */
constexpr int kMinOpset = 1;  // opsets 1..6: lowering::check_legacy_opset rejects what changed since
constexpr int kMaxOpset = 21;

Graph import_onnx(const std::string &path, const ImportOptions &options = ImportOptions());
/** Same from the serialised bytes; `source` names the model in messages. */
Graph import_onnx_bytes(const std::string &bytes, const std::string &source, const ImportOptions &options = ImportOptions());

/** Reads a serialised onnx.TensorProto file (ONNX test data input_N.pb); name receives its name. ImportError on failure. */
NDArray read_tensor_pb(const std::string &path, std::string *name = nullptr);

}  // namespace relay
}  // namespace tetune
