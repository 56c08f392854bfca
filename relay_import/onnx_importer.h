// ONNX model import: ModelProto -> Graph with static shapes, constants folded.
//
//   ImportOptions o;
//   o.input_shapes = parse_input_shapes("x=1,3,640,640");
//   Graph g = import_onnx("model.onnx", o);
//
// Errors: an unreadable / truncated / non-ONNX file, an unsupported opset or
// op (naming op type, node name and opset) raise ImportError; an input shape
// that contradicts the model, or a dynamic dimension left unspecified, raises
// ShapeError naming the input.
#pragma once

#include <map>
#include <string>

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
};

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
