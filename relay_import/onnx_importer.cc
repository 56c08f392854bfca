#include "relay_import/onnx_importer.h"

#include <onnx/onnx_pb.h>
// after onnx_pb.h, which defines ONNX_API
#include <onnx/onnx-data.pb.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "codegen/buffer_limits.h"
#include "relay_import/lowering.h"
#include "relay_import/shape_inference.h"
#include "base/errors.h"

namespace tetune {
namespace relay {

namespace {

// The bytes of a model file; one sentence naming the path when it is missing, a directory or unreadable.
std::string read_file(const std::string &path) {
  std::error_code ec;
  std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (st.type() == std::filesystem::file_type::not_found)
    throw ImportError("model file '" + path + "' does not exist");
  if (st.type() == std::filesystem::file_type::directory)
    throw ImportError("model '" + path + "' is a directory, not an ONNX file");
  std::ifstream is(path, std::ios::binary);
  if (!is) throw ImportError("model file '" + path + "' cannot be read: " + std::strerror(errno));
  std::ostringstream ss;
  ss << is.rdbuf();
  if (is.bad()) throw ImportError("model file '" + path + "' cannot be read: " + std::strerror(errno));
  return ss.str();
}

NDArray tensor_from_proto(const onnx::TensorProto &t, const std::string &what) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    throw ImportError("tensor '" + t.name() + "' (" + what + ") uses external data, which is unsupported");
  DType dt = dtype_from_onnx(t.data_type(), "tensor '" + t.name() + "' (" + what + ")");
  Shape shape(t.dims().begin(), t.dims().end());
  for (auto d : shape)
    if (d < 0) throw ImportError("tensor '" + t.name() + "' (" + what + ") has a negative dimension");
  if (checked_num_elements(shape, kMaxDataElements) < 0)
    throw ImportError("tensor '" + t.name() + "' (" + what + ") has shape " + shape_str(shape) + " with more than " +
                      std::to_string(kMaxDataElements) + " elements (malformed or unsupported)");
  NDArray a(shape, dt);
  int64_t n = a.size();
  auto bad = [&](const std::string &field, int64_t have) {
    throw ImportError("tensor '" + t.name() + "' (" + what + "): " + field + " holds " + std::to_string(have) +
                      " elements, its shape " + shape_str(shape) + " needs " + std::to_string(n));
  };
  if (t.has_raw_data()) {
    const std::string &raw = t.raw_data();
    if (static_cast<int64_t>(raw.size()) != a.nbytes()) bad("raw_data", static_cast<int64_t>(raw.size()) / std::max(1, dt.bytes()));
    if (n) std::memcpy(a.raw(), raw.data(), raw.size());
    return a;
  }
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      if (t.float_data_size() != n) bad("float_data", t.float_data_size());
      for (int64_t i = 0; i < n; i++) a.data<float>()[i] = t.float_data(static_cast<int>(i));
      break;
    case onnx::TensorProto::INT64:
      if (t.int64_data_size() != n) bad("int64_data", t.int64_data_size());
      for (int64_t i = 0; i < n; i++) a.data<int64_t>()[i] = t.int64_data(static_cast<int>(i));
      break;
    case onnx::TensorProto::INT32:
      if (t.int32_data_size() != n) bad("int32_data", t.int32_data_size());
      for (int64_t i = 0; i < n; i++) a.data<int32_t>()[i] = t.int32_data(static_cast<int>(i));
      break;
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::BOOL:
      if (t.int32_data_size() != n) bad("int32_data", t.int32_data_size());
      for (int64_t i = 0; i < n; i++) a.data<uint8_t>()[i] = static_cast<uint8_t>(t.int32_data(static_cast<int>(i)));
      break;
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16:
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::UINT16:
      if (t.int32_data_size() != n) bad("int32_data", t.int32_data_size());
      for (int64_t i = 0; i < n; i++) a.data<uint16_t>()[i] = static_cast<uint16_t>(t.int32_data(static_cast<int>(i)));
      break;
    case onnx::TensorProto::DOUBLE:
      if (t.double_data_size() != n) bad("double_data", t.double_data_size());
      for (int64_t i = 0; i < n; i++) a.data<double>()[i] = t.double_data(static_cast<int>(i));
      break;
    // uint32 and uint64 both travel in uint64_data (onnx.proto, TensorProto).
    case onnx::TensorProto::UINT32:
      if (t.uint64_data_size() != n) bad("uint64_data", t.uint64_data_size());
      for (int64_t i = 0; i < n; i++) a.data<uint32_t>()[i] = static_cast<uint32_t>(t.uint64_data(static_cast<int>(i)));
      break;
    case onnx::TensorProto::UINT64:
      if (t.uint64_data_size() != n) bad("uint64_data", t.uint64_data_size());
      for (int64_t i = 0; i < n; i++) a.data<uint64_t>()[i] = t.uint64_data(static_cast<int>(i));
      break;
    default:
      throw ImportError("tensor '" + t.name() + "' (" + what + "): unsupported data type " + std::to_string(t.data_type()));
  }
  return a;
}

Graph parse_body(const onnx::GraphProto &gp, int opset, const std::string &where);

Attr attr_from_proto(const onnx::AttributeProto &p, const std::string &where, int opset) {
  Attr a;
  switch (p.type()) {
    case onnx::AttributeProto::INT: a.kind = Attr::Int; a.i = p.i(); break;
    case onnx::AttributeProto::FLOAT: a.kind = Attr::Float; a.f = p.f(); break;
    case onnx::AttributeProto::STRING: a.kind = Attr::String; a.s = p.s(); break;
    case onnx::AttributeProto::INTS: a.kind = Attr::Ints; a.ints.assign(p.ints().begin(), p.ints().end()); break;
    case onnx::AttributeProto::FLOATS: a.kind = Attr::Floats; a.floats.assign(p.floats().begin(), p.floats().end()); break;
    case onnx::AttributeProto::STRINGS: a.kind = Attr::Strings; a.strings.assign(p.strings().begin(), p.strings().end()); break;
    case onnx::AttributeProto::TENSOR:
      a.kind = Attr::Tensor;
      a.t = std::make_shared<NDArray>(tensor_from_proto(p.t(), where + " attribute '" + p.name() + "'"));
      break;
    case onnx::AttributeProto::GRAPH:
      a.kind = Attr::Graph;
      a.g = std::make_shared<Graph>(parse_body(p.g(), opset, where + " attribute '" + p.name() + "'"));
      break;
    case onnx::AttributeProto::TYPE_PROTO:
      // Optional's 'type': the serialised TypeProto; only its presence is read (lowering_sequence.cc)
      a.kind = Attr::String;
      a.s = p.tp().SerializeAsString();
      break;
    default:
      throw ImportError(where + ": attribute '" + p.name() + "' has an unsupported type " + std::to_string(p.type()));
  }
  return a;
}

NDArray constant_node_value(const onnx::NodeProto &n, const std::string &where) {
  for (const auto &p : n.attribute()) {
    const std::string &k = p.name();
    if (k == "value") return tensor_from_proto(p.t(), where);
    if (k == "value_float") {
      NDArray a(Shape{}, float32());
      a.set(0, p.f());
      return a;
    }
    if (k == "value_int") {
      NDArray a(Shape{}, int64());
      a.data<int64_t>()[0] = p.i();
      return a;
    }
    if (k == "value_floats") {
      NDArray a(Shape{p.floats_size()}, float32());
      for (int i = 0; i < p.floats_size(); i++) a.data<float>()[i] = p.floats(i);
      return a;
    }
    if (k == "value_ints") {
      NDArray a(Shape{p.ints_size()}, int64());
      for (int i = 0; i < p.ints_size(); i++) a.data<int64_t>()[i] = p.ints(i);
      return a;
    }
    throw ImportError(where + ": unsupported Constant attribute '" + k + "'");
  }
  throw ImportError(where + ": Constant node without a value");
}

// A control-flow body (If / Loop / Scan attribute). Inputs keep their
// declared dtype with unknown shapes (the expansion binds them); names the
// body reads but does not define become free values (outer-scope references).
Graph parse_body(const onnx::GraphProto &gp, int opset, const std::string &where) {
  Graph b;
  b.opset = opset;
  b.source = where;
  for (const auto &t : gp.initializer()) b.add_const(t.name(), tensor_from_proto(t, where + " initializer"));
  for (const auto &vi : gp.input()) {
    if (b.find_value(vi.name()) >= 0) continue;
    // an untyped input takes the type of what the expansion binds to it
    // sequence and optional body inputs take what the expansion binds (lowering_sequence.cc)
    if (vi.has_type() && !vi.type().has_tensor_type() && !vi.type().has_sequence_type() && !vi.type().has_optional_type())
      throw ImportError(where + ": body input '" + vi.name() + "' is not a tensor, sequence or optional (unsupported: map types)");
    int v = b.add_value(vi.name());
    b.values[v].is_input = true;
    b.inputs.push_back(v);
  }
  auto ref = [&](const std::string &name) {
    int v = b.find_value(name);
    return v >= 0 ? v : b.add_value(name);  // free: an outer-scope value
  };
  std::vector<const onnx::NodeProto *> ps;
  for (const auto &np : gp.node()) {
    std::string nw = where + ": " + np.op_type() + " node '" + np.name() + "'";
    if (!np.domain().empty() && np.domain() != "ai.onnx")
      throw ImportError(nw + ": unsupported op type '" + np.op_type() + "' of domain '" + np.domain() + "'");
    if (np.op_type() == "Constant") {
      if (np.output_size() != 1) throw ImportError(nw + ": Constant must have one output");
      b.add_const(np.output(0), constant_node_value(np, nw));
    } else if (!is_supported_op(np.op_type())) {
      throw ImportError(nw + ": unsupported op type '" + np.op_type() + "'");
    } else {
      ps.push_back(&np);
    }
  }
  std::vector<std::vector<int>> outs;
  for (const auto *np : ps) {
    outs.emplace_back();
    for (const auto &o : np->output()) outs.back().push_back(o.empty() ? -1 : b.add_value(o));
  }
  for (size_t k = 0; k < ps.size(); k++) {
    Node n;
    n.op = ps[k]->op_type();
    n.name = ps[k]->name().empty() ? n.op + "_" + std::to_string(k) : ps[k]->name();
    for (const auto &a : ps[k]->attribute()) n.attrs[a.name()] = attr_from_proto(a, where + ": node '" + n.name + "'", opset);
    for (const auto &i : ps[k]->input()) n.inputs.push_back(i.empty() ? -1 : ref(i));
    n.outputs = outs[k];
    b.add_node(std::move(n));
  }
  for (const auto &vo : gp.output()) b.outputs.push_back(ref(vo.name()));
  return b;
}

}  // namespace

std::map<std::string, Shape> parse_input_shapes(const std::string &spec) {
  std::map<std::string, Shape> r;
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ';')) {
    if (item.empty()) continue;
    size_t eq = item.find_last_of("=:");
    if (eq == std::string::npos || eq == 0) throw ShapeError("input shape '" + item + "': expected NAME=D1,D2,...");
    std::string name = item.substr(0, eq), dims = item.substr(eq + 1);
    Shape s;
    std::string d;
    std::stringstream ds(dims);
    while (std::getline(ds, d, ',')) {
      std::stringstream xs(d);
      std::string part;
      while (std::getline(xs, part, 'x')) {
        try {
          size_t used = 0;
          long long v = std::stoll(part, &used);
          if (used != part.size() || v <= 0) throw std::invalid_argument("bad");
          s.push_back(v);
        } catch (const std::exception &) {
          throw ShapeError("input shape '" + item + "': '" + part + "' is not a positive integer");
        }
      }
    }
    r[name] = s;
  }
  return r;
}

NDArray read_tensor_pb(const std::string &path, std::string *name) {
  std::string bytes;
  {
    std::ifstream is(path, std::ios::binary);
    if (!is) throw ImportError("cannot open tensor file '" + path + "'");
    std::ostringstream ss;
    ss << is.rdbuf();
    bytes = ss.str();
  }
  onnx::TensorProto t;
  if (!t.ParseFromString(bytes)) throw ImportError("'" + path + "' is not a serialised onnx.TensorProto");
  if (name) *name = t.name();
  return tensor_from_proto(t, path);
}

DataValue read_value_pb(const std::string &path, Value::Kind kind) {
  if (kind == Value::Kind::Tensor) {
    DataValue d;
    d.tensors.push_back(read_tensor_pb(path));
    return d;
  }
  std::string bytes;
  {
    std::ifstream is(path, std::ios::binary);
    if (!is) throw ImportError("cannot open test data file '" + path + "'");
    std::ostringstream ss;
    ss << is.rdbuf();
    bytes = ss.str();
  }
  DataValue d;
  d.kind = kind;
  auto read_sequence = [&](const onnx::SequenceProto &s) {
    if (s.elem_type() != onnx::SequenceProto::TENSOR)
      throw ImportError("'" + path + "' holds a sequence of non-tensors (unsupported: elem_type " + std::to_string(s.elem_type()) + ")");
    d.holds_sequence = true;
    for (const auto &t : s.tensor_values()) d.tensors.push_back(tensor_from_proto(t, path));
  };
  if (kind == Value::Kind::Sequence) {
    onnx::SequenceProto s;
    if (!s.ParseFromString(bytes)) throw ImportError("'" + path + "' is not a serialised onnx.SequenceProto");
    read_sequence(s);
    return d;
  }
  onnx::OptionalProto o;
  if (!o.ParseFromString(bytes)) throw ImportError("'" + path + "' is not a serialised onnx.OptionalProto");
  if (o.has_tensor_value()) d.tensors.push_back(tensor_from_proto(o.tensor_value(), path));
  else if (o.has_sequence_value()) read_sequence(o.sequence_value());
  else if (o.elem_type() == onnx::OptionalProto::UNDEFINED || o.elem_type() == onnx::OptionalProto::TENSOR ||
           o.elem_type() == onnx::OptionalProto::SEQUENCE) {  // ONNX's own empty-optional data leaves elem_type UNDEFINED
    d.empty = true;
    d.holds_sequence = o.elem_type() == onnx::OptionalProto::SEQUENCE;
  } else {
    throw ImportError("'" + path + "' holds an optional of elem_type " + std::to_string(o.elem_type()) + " (unsupported)");
  }
  return d;
}

void set_input(ImportOptions &options, const std::string &name, const DataValue &v) {
  if (v.empty) {
    options.empty_optional_inputs.insert(name);
  } else if (v.holds_sequence) {
    std::vector<Shape> shapes;
    for (const auto &t : v.tensors) shapes.push_back(t.shape());
    options.sequence_input_shapes[name] = shapes;
  } else {
    if (v.tensors.size() != 1) throw ImportError("input '" + name + "': a tensor value needs one tensor (internal error)");
    options.input_shapes[name] = v.tensors[0].shape();
  }
}

Graph import_onnx(const std::string &path, const ImportOptions &options) {
  return import_onnx_bytes(read_file(path), path, options);
}

namespace {
Graph import_impl(const std::string &bytes, const std::string &source, const ImportOptions &options);
}  // namespace

Graph import_onnx_bytes(const std::string &bytes, const std::string &source, const ImportOptions &options) {
  // Malformed files must end in a tetune::Error: convert what protobuf / the STL may raise.
  try {
    return import_impl(bytes, source, options);
  } catch (const Error &) {
    throw;
  } catch (const std::bad_alloc &) {
    throw ImportError("model '" + source + "': out of memory while importing (malformed tensor shapes or sizes?)");
  } catch (const std::exception &e) {
    throw ImportError("model '" + source + "' is malformed: " + e.what());
  }
}

namespace {

// The element tensor type of a sequence or optional input ("" when it holds a sequence of maps...).
const onnx::TypeProto &element_type(const onnx::TypeProto &t) {
  if (t.has_sequence_type()) return element_type(t.sequence_type().elem_type());
  if (t.has_optional_type()) return element_type(t.optional_type().elem_type());
  return t;
}

// A sequence or optional graph input: one graph input "name[k]" per element
// tensor (ImportOptions), then the sequence / optional value the nodes read.
// A raw import (no shape inference) keeps one untyped input for it.
void add_structured_input(Graph &g, const onnx::ValueInfoProto &vi, const ImportOptions &options, const std::string &source,
                          std::set<std::string> &used_shapes) {
  const std::string &name = vi.name();
  const onnx::TypeProto &t = vi.type();
  bool optional = t.has_optional_type();
  const onnx::TypeProto &inner = optional ? t.optional_type().elem_type() : t;
  const onnx::TypeProto &et = element_type(t);
  std::string what = "model '" + source + "': input '" + name + "'";
  if (!et.has_tensor_type() || (inner.has_sequence_type() && !inner.sequence_type().elem_type().has_tensor_type()))
    throw ImportError(what + " is not a tensor, sequence of tensors or optional of either (unsupported: map types)");
  DType dt = dtype_from_onnx(et.tensor_type().elem_type(), "input '" + name + "'");
  Value::Kind kind = optional ? Value::Kind::Optional : Value::Kind::Sequence;
  auto seq = options.sequence_input_shapes.find(name);
  auto ten = options.input_shapes.find(name);
  bool empty = options.empty_optional_inputs.count(name) != 0;
  if (!options.infer_shapes && seq == options.sequence_input_shapes.end() && ten == options.input_shapes.end() && !empty) {
    int v = g.add_value(name, {}, dt);
    g.values[v].kind = kind;
    g.values[v].is_input = true;
    g.inputs.push_back(v);
    return;
  }
  std::vector<Shape> shapes;
  if (inner.has_sequence_type()) {
    if (seq == options.sequence_input_shapes.end() && !(optional && empty))
      throw ShapeError(what + " is a sequence; give its element shapes (ImportOptions::sequence_input_shapes)");
    if (seq != options.sequence_input_shapes.end()) shapes = seq->second;
  } else if (!empty) {
    if (ten == options.input_shapes.end())
      throw ShapeError(what + " is an optional tensor; give its shape, or name it in ImportOptions::empty_optional_inputs");
    used_shapes.insert(name);
    shapes = {ten->second};
  }
  std::vector<int> elements;
  for (size_t k = 0; k < shapes.size(); k++) {
    for (int64_t d : shapes[k])
      if (d <= 0) throw ShapeError(what + ": element " + std::to_string(k) + " has shape " + shape_str(shapes[k]) + " (dimensions must be positive)");
    if (checked_num_elements(shapes[k], kMaxShapeElements) < 0)
      throw ShapeError(what + ": element " + std::to_string(k) + " has more than " + std::to_string(kMaxShapeElements) + " elements");
    int v = g.add_value(name + "[" + std::to_string(k) + "]", shapes[k], dt, true);
    g.values[v].is_input = true;
    g.inputs.push_back(v);
    elements.push_back(v);
  }
  int sv = g.add_value(name, {}, dt, true);  // added last: nodes reading `name` find this one
  if (optional && inner.has_sequence_type() && !empty) {
    g.values[sv].kind = Value::Kind::Sequence;
    g.values[sv].elements = elements;
    int ov = g.add_value(name, {}, dt, true);
    g.values[ov].kind = Value::Kind::Optional;
    g.values[ov].elements = {sv};
  } else {
    g.values[sv].kind = kind;
    g.values[sv].elements = elements;
  }
}

// Value v as the tensors it flattens to: itself, a sequence's elements, an optional's content.
void flatten_value(const Graph &g, int v, std::vector<int> *out) {
  const Value &val = g.values.at(v);
  if (val.kind == Value::Kind::Tensor) out->push_back(v);
  else
    for (int e : val.elements) flatten_value(g, e, out);
}

// Graph outputs that are sequences or optionals become their element tensors.
void flatten_outputs(Graph &g, const std::string &source) {
  std::vector<int> outs;
  for (int v : g.outputs) flatten_value(g, v, &outs);
  for (int v : outs)
    if (!g.values[v].shape_known)
      throw ImportError("model '" + source + "': output tensor '" + g.values[v].name + "' has no inferred shape");
  g.outputs = outs;
  for (auto &val : g.values) {
    if (val.kind == Value::Kind::Tensor) continue;
    val.elements.clear();  // element ids do not survive compact(); nothing reads these values any more
    val.is_input = false;
  }
}

Graph import_impl(const std::string &bytes, const std::string &source, const ImportOptions &options) {
  if (bytes.empty()) throw ImportError("model file '" + source + "' is empty");
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes))
    throw ImportError("model file '" + source + "' is not a valid ONNX model (protobuf parse failed: truncated or corrupt)");
  if (!model.has_graph() || model.graph().node_size() == 0)
    throw ImportError("model file '" + source + "' has no graph (not an ONNX model, or truncated)");
  Graph g;
  g.source = source;
  g.opset = -1;
  for (const auto &os : model.opset_import())
    if (os.domain().empty() || os.domain() == "ai.onnx") g.opset = static_cast<int>(os.version());
  if (g.opset < 0) {
    if (model.opset_import_size() == 0) g.opset = 7;  // IR < 3 models carry no opset: read as opset 7, as before
    else throw ImportError("model '" + source + "' imports no default-domain (ai.onnx) opset (unsupported domains only)");
  }
  if (g.opset < kMinOpset || g.opset > kMaxOpset)
    throw ImportError("model '" + source + "': unsupported opset " + std::to_string(g.opset) + " (supported " +
                      std::to_string(kMinOpset) + ".." + std::to_string(kMaxOpset) + ")");
  const onnx::GraphProto &gp = model.graph();

  // initializers
  std::set<std::string> init_names;
  for (const auto &t : gp.initializer()) {
    g.add_const(t.name(), tensor_from_proto(t, "initializer"));
    init_names.insert(t.name());
  }
  // inputs
  std::set<std::string> used_shapes;
  for (const auto &vi : gp.input()) {
    if (init_names.count(vi.name())) continue;
    auto fz = options.frozen_inputs.find(vi.name());
    if (fz != options.frozen_inputs.end()) {
      g.add_const(vi.name(), fz->second);
      continue;
    }
    if (vi.type().has_sequence_type() || vi.type().has_optional_type()) {
      add_structured_input(g, vi, options, source, used_shapes);
      continue;
    }
    const auto &tt = vi.type().tensor_type();
    if (!vi.type().has_tensor_type())
      throw ImportError("model '" + source + "': input '" + vi.name() + "' is not a tensor (unsupported: sequence / optional / map types)");
    DType dt = dtype_from_onnx(tt.elem_type(), "input '" + vi.name() + "'");
    Shape declared;
    std::vector<bool> dynamic;
    for (const auto &d : tt.shape().dim()) {
      bool dyn = !d.has_dim_value() || d.dim_value() <= 0;
      declared.push_back(dyn ? -1 : d.dim_value());
      dynamic.push_back(dyn);
    }
    if (declared.size() > 16)
      throw ShapeError("model '" + source + "': input '" + vi.name() + "' has rank " + std::to_string(declared.size()) +
                       " (more than 16: malformed or unsupported)");
    Shape shape = declared;
    auto it = options.input_shapes.find(vi.name());
    if (it != options.input_shapes.end()) {
      used_shapes.insert(vi.name());
      const Shape &s = it->second;
      if (tt.has_shape() && s.size() != declared.size())
        throw ShapeError("input '" + vi.name() + "': given shape " + shape_str(s) + " has rank " + std::to_string(s.size()) +
                         ", the model declares rank " + std::to_string(declared.size()));
      for (size_t i = 0; i < declared.size() && i < s.size(); i++)
        if (!dynamic[i] && declared[i] != s[i])
          throw ShapeError("input '" + vi.name() + "': given shape " + shape_str(s) + " contradicts the model's dimension " +
                           std::to_string(i) + " = " + std::to_string(declared[i]));
      shape = s;
    } else if (options.infer_shapes) {
      for (size_t i = 0; i < declared.size(); i++)
        if (dynamic[i])
          throw ShapeError("input '" + vi.name() + "' has a dynamic dimension " + std::to_string(i) +
                           "; give its shape (e.g. --input-shape " + vi.name() + "=1,3,48,320)");
      if (!tt.has_shape() && options.infer_shapes) throw ShapeError("input '" + vi.name() + "' has no declared shape; give its shape");
    }
    if (std::all_of(shape.begin(), shape.end(), [](int64_t d) { return d > 0; }) &&
        checked_num_elements(shape, kMaxShapeElements) < 0)
      throw ShapeError("model '" + source + "': input '" + vi.name() + "' has shape " + shape_str(shape) + " with more than " +
                       std::to_string(kMaxShapeElements) + " elements");
    if (std::string too_large = buffer_too_large(shape, dt); !too_large.empty())
      throw ShapeError(std::string(it != options.input_shapes.end() ? "--input-shape " : "") + "input '" + vi.name() +
                       "' of model '" + source + "' " + too_large);
    int v = g.add_value(vi.name(), shape, dt, true);
    g.values[v].is_input = true;
    g.inputs.push_back(v);
  }
  for (auto &kv : options.input_shapes)
    if (!used_shapes.count(kv.first)) {
      std::string names;
      for (int v : g.inputs) names += (names.empty() ? "" : ", ") + g.values[v].name;
      throw ShapeError("input shape given for '" + kv.first + "', but the model's inputs are: " + names);
    }

  // nodes: first create all output values so nodes may appear in any order
  std::set<std::string> node_names;
  struct Pending {
    const onnx::NodeProto *p;
    std::string name;
  };
  std::vector<Pending> pending;
  int idx = 0;
  for (const auto &np : gp.node()) {
    std::string name = np.name().empty() ? np.op_type() + "_" + std::to_string(idx) : np.name();
    if (node_names.count(name)) name += "_" + std::to_string(idx);
    node_names.insert(name);
    idx++;
    std::string where = np.op_type() + " node '" + name + "' (opset " + std::to_string(g.opset) + ")";
    if (!np.domain().empty() && np.domain() != "ai.onnx")
      throw ImportError(where + ": unsupported op type '" + np.op_type() + "' of domain '" + np.domain() + "'");
    if (np.op_type() == "Constant") {
      if (np.output_size() != 1) throw ImportError(where + ": Constant must have one output");
      g.add_const(np.output(0), constant_node_value(np, where));
      continue;
    }
    if (!is_supported_op(np.op_type())) throw ImportError(where + ": unsupported op type '" + np.op_type() + "'");
    pending.push_back({&np, name});
  }
  std::vector<std::vector<int>> outs(pending.size());
  for (size_t k = 0; k < pending.size(); k++) {
    for (const auto &o : pending[k].p->output()) {
      if (o.empty()) {
        outs[k].push_back(-1);
        continue;
      }
      if (g.find_value(o) >= 0 && (g.values[g.find_value(o)].is_input || g.values[g.find_value(o)].is_const()))
        throw ImportError(pending[k].p->op_type() + " node '" + pending[k].name + "': output '" + o +
                          "' redefines a graph input or constant");
      outs[k].push_back(g.add_value(o));
    }
  }
  for (size_t k = 0; k < pending.size(); k++) {
    const auto &np = *pending[k].p;
    Node n;
    n.op = np.op_type();
    n.name = pending[k].name;
    std::string where = n.op + " node '" + n.name + "' (opset " + std::to_string(g.opset) + ")";
    for (const auto &a : np.attribute()) n.attrs[a.name()] = attr_from_proto(a, where, g.opset);
    for (const auto &i : np.input()) {
      if (i.empty()) {
        n.inputs.push_back(-1);
        continue;
      }
      int v = g.find_value(i);
      if (v < 0) throw ImportError(where + ": input '" + i + "' is not produced by any node, initializer or graph input");
      n.inputs.push_back(v);
    }
    n.outputs = outs[k];
    g.add_node(std::move(n));
  }
  for (const auto &vo : gp.output()) {
    int v = g.find_value(vo.name());
    if (v < 0) throw ImportError("model '" + source + "': output '" + vo.name() + "' is not produced by any node");
    if (vo.type().has_sequence_type()) g.values[v].kind = Value::Kind::Sequence;
    if (vo.type().has_optional_type()) g.values[v].kind = Value::Kind::Optional;
    g.outputs.push_back(v);
  }
  if (g.outputs.empty()) throw ImportError("model '" + source + "' has no outputs");
  g.topo_order();  // raises on a cycle
  if (options.infer_shapes) {
    infer_shapes(g, options.fold_constants);
    flatten_outputs(g, source);
    g.compact();
  }
  return g;
}
}  // namespace

}  // namespace relay
}  // namespace tetune
