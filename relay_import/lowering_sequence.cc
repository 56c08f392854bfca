// Sequence and optional ops, expanded at import (see relay_import/expansion.h).
// A sequence value is the list of its element tensor values and an optional
// its one value or none (Value::Kind), so every position, length and
// insertion point must be known at import: positions must be constants after
// folding, and what the ops build is ordinary tensor nodes (Slice, Concat,
// Identity...), so the compiled graph holds tensors only and stays tunable.
// Source: ONNX operator spec, sections SequenceConstruct, SequenceEmpty,
// SequenceAt, SequenceInsert, SequenceErase, SequenceLength, SplitToSequence,
// ConcatFromSequence, SequenceMap (opsets 11..17), Optional,
// OptionalHasElement, OptionalGetElement (opsets 15..18).
#include <algorithm>

#include "base/errors.h"
#include "relay_import/expansion.h"
#include "relay_import/lowering.h"
#include "te/ops/common.h"

namespace tetune {
namespace relay {

namespace {

using Kind = Value::Kind;

Value &out_value(Expander &e, int k) {
  int o = e.output(k);
  if (o < 0) e.fail("output " + std::to_string(k) + " is required");
  return e.graph().values[o];
}

// The elements of sequence input slot i; ImportError when it is not a sequence.
std::vector<int> seq_input(Expander &e, int i) {
  int v = e.input(i);
  if (v < 0) e.fail("input " + std::to_string(i) + " (a sequence) is required");
  if (e.value(v).kind != Kind::Sequence) e.fail("input '" + e.value(v).name + "' is not a sequence");
  return e.value(v).elements;
}

// Makes output k a sequence of elements (dtype: their element type).
void set_sequence(Expander &e, int k, const std::vector<int> &elements, DType dtype) {
  Value &o = out_value(e, k);
  o.kind = Kind::Sequence;
  o.elements = elements;
  o.dtype = dtype;
  o.shape_known = true;  // the value has no shape; its elements do
}

// Output k takes value v: a tensor is copied (Identity), a sequence or optional aliased.
void bind_output(Expander &e, int v, int k) {
  const Value src = e.value(v);
  if (src.kind == Kind::Tensor) {
    e.assign(v, e.output(k));
    return;
  }
  Value &o = out_value(e, k);
  o.kind = src.kind;
  o.elements = src.elements;
  o.dtype = src.dtype;
  o.shape_known = true;
}

// A position input (slot i) as an index into n elements; `end_ok` allows n (insertion at the back).
size_t position(Expander &e, int i, size_t n, int64_t def, bool end_ok) {
  int v = e.input(i);
  int64_t p = def;
  if (v >= 0) {
    const Value &val = e.value(v);
    if (!val.is_const()) e.unsupported("position input '" + val.name + "' that is not a compile-time constant");
    if (val.data->size() != 1) e.shape_fail("position has " + std::to_string(val.data->size()) + " elements, expected 1");
    if (!val.dtype.is_int()) e.fail("position has dtype " + val.dtype.str() + ", expected int32 or int64");
    p = val.data->get_int(0);
  }
  int64_t len = static_cast<int64_t>(n), hi = end_ok ? len : len - 1;
  if (p < -len || p > hi)
    e.shape_fail("position " + std::to_string(p) + " is out of range [" + std::to_string(-len) + ", " + std::to_string(hi) +
                 "] for a sequence of " + std::to_string(n) + " tensors");
  return static_cast<size_t>(p < 0 ? p + len : p);
}

void check_dtype(Expander &e, int v, DType want) {
  if (e.value(v).dtype != want)
    e.fail("tensor '" + e.value(v).name + "' has dtype " + e.value(v).dtype.str() + ", the sequence holds " + want.str());
}

void bool_output(Expander &e, bool b) {
  NDArray a(Shape{}, boolean());
  a.set(0, b ? 1 : 0);
  e.assign(e.constant(a, "has_element"), e.output(0));
}

void split_to_sequence(Expander &e) {
  int x = e.input(0);
  if (x < 0) e.fail("input is required");
  const Shape s = e.shape(x);
  int rank = static_cast<int>(s.size());
  if (rank == 0) e.shape_fail("input is a scalar; SplitToSequence needs rank >= 1");
  int axis = ops::normalize_axis(e.node().attr_i("axis", 0), rank, "SplitToSequence");
  int64_t dim = s[axis];
  std::vector<int64_t> sizes;
  bool squeeze = false;
  if (e.input(1) < 0) {
    sizes.assign(static_cast<size_t>(dim), 1);
    squeeze = e.node().attr_i("keepdims", 1) == 0;
  } else {
    const Value &sp = e.value(e.input(1));
    if (!sp.is_const()) e.unsupported("input split that is not a compile-time constant");
    if (sp.shape.empty()) {
      int64_t c = sp.data->get_int(0);
      if (c <= 0) e.shape_fail("split " + std::to_string(c) + " must be positive");
      for (int64_t at = 0; at < dim; at += c) sizes.push_back(std::min(c, dim - at));
    } else {
      int64_t sum = 0;
      for (int64_t k = 0; k < sp.data->size(); k++) {
        sizes.push_back(sp.data->get_int(k));
        if (sizes.back() < 0) e.shape_fail("split has a negative size");
        sum += sizes.back();
      }
      if (sum != dim)
        e.shape_fail("split sizes sum to " + std::to_string(sum) + ", axis " + std::to_string(axis) + " has " + std::to_string(dim));
    }
  }
  std::vector<int> parts;
  int64_t at = 0;
  for (int64_t len : sizes) {
    if (len == 0) e.unsupported("zero-size split (zero-size tensors)");
    if (squeeze) {
      parts.push_back(e.take(x, at, axis));
    } else {
      parts.push_back(e.emit1("Slice", {x, e.int_const({at}), e.int_const({at + len}), e.int_const({axis})}));
    }
    at += len;
  }
  set_sequence(e, 0, parts, e.value(x).dtype);
}

void concat_from_sequence(Expander &e) {
  std::vector<int> el = seq_input(e, 0);
  if (el.empty()) e.unsupported("ConcatFromSequence of an empty sequence (a zero-size result)");
  if (!e.node().has_attr("axis")) e.attr_fail("attribute axis is required");
  int64_t axis = e.node().attr_i("axis", 0);
  bool new_axis = e.node().attr_i("new_axis", 0) != 0;
  int rank = static_cast<int>(e.shape(el[0]).size());
  for (int v : el)
    if (e.shape(v).size() != static_cast<size_t>(rank)) e.shape_fail("sequence elements have different ranks");
  int ax = ops::normalize_axis(axis, new_axis ? rank + 1 : rank, "ConcatFromSequence");
  if (new_axis) {
    for (int v : el)
      if (e.shape(v) != e.shape(el[0]))
        e.shape_fail("new_axis=1 needs equal element shapes, got " + shape_str(e.shape(el[0])) + " and " + shape_str(e.shape(v)));
    e.stack(el, ax, e.output(0));
  } else if (el.size() == 1) {
    e.assign(el[0], e.output(0));
  } else {
    e.emit1("Concat", el, {{"axis", Attr::of_int(ax)}}, e.output(0));
  }
}

// SequenceMap: the body runs once per element of input 0; sequence inputs give
// their element at that step, tensor inputs the whole tensor.
void sequence_map(Expander &e) {
  const Graph &body = expansion::graph_attr(e, "body");
  std::vector<int> first = seq_input(e, 0);
  size_t n = first.size();
  size_t n_in = e.node().inputs.size();
  for (size_t j = 0; j < n_in; j++) {
    int v = e.input(static_cast<int>(j));
    if (v < 0) e.fail("input " + std::to_string(j) + " must not be omitted");
    if (e.value(v).kind == Kind::Sequence && e.value(v).elements.size() != n)
      e.shape_fail("input sequences have different lengths " + std::to_string(n) + " and " +
                   std::to_string(e.value(v).elements.size()));
    if (e.value(v).kind == Kind::Optional) e.unsupported("an optional input to SequenceMap");
  }
  size_t n_out = e.node().outputs.size();
  if (body.outputs.size() != n_out)
    e.fail("body has " + std::to_string(body.outputs.size()) + " outputs, the node has " + std::to_string(n_out));
  std::vector<std::vector<int>> outs(n_out);
  for (size_t i = 0; i < n; i++) {
    std::vector<int> bind;
    for (size_t j = 0; j < n_in; j++) {
      const Value &v = e.value(e.input(static_cast<int>(j)));
      bind.push_back(v.kind == Kind::Sequence ? v.elements[i] : e.input(static_cast<int>(j)));
    }
    std::vector<int> r = expansion::inline_graph(e, body, bind, "body (element " + std::to_string(i) + ")");
    for (size_t k = 0; k < n_out; k++) {
      if (e.value(r[k]).kind != Kind::Tensor) e.unsupported("a SequenceMap body that returns a sequence or optional");
      outs[k].push_back(r[k]);
    }
  }
  for (size_t k = 0; k < n_out; k++) {
    if (e.output(static_cast<int>(k)) < 0) continue;
    DType dt = outs[k].empty() ? float32() : e.value(outs[k][0]).dtype;
    set_sequence(e, static_cast<int>(k), outs[k], dt);
  }
}

}  // namespace

namespace expansion {

const std::vector<std::string> &sequence_ops() {
  static const std::vector<std::string> ops = {
      "SequenceConstruct", "SequenceEmpty",      "SequenceAt",   "SequenceInsert",    "SequenceErase",
      "SequenceLength",    "SplitToSequence",    "ConcatFromSequence", "SequenceMap", "Optional",
      "OptionalHasElement", "OptionalGetElement"};
  return ops;
}

void expand_sequence_op(Expander &e) {
  const std::string &op = e.node().op;
  if (op == "SequenceConstruct") {
    std::vector<int> el;
    for (size_t k = 0; k < e.node().inputs.size(); k++) {
      int v = e.input(static_cast<int>(k));
      if (v < 0) e.fail("inputs must not be omitted");
      if (e.value(v).kind != Kind::Tensor) e.fail("input '" + e.value(v).name + "' is not a tensor");
      if (!el.empty()) check_dtype(e, v, e.value(el[0]).dtype);
      el.push_back(v);
    }
    if (el.empty()) e.fail("needs at least one input");
    set_sequence(e, 0, el, e.value(el[0]).dtype);
  } else if (op == "SequenceEmpty") {
    int64_t code = e.node().attr_i("dtype", 1);  // float by default
    set_sequence(e, 0, {}, dtype_from_onnx(static_cast<int>(code), e.where() + " attribute dtype"));
  } else if (op == "SequenceAt") {
    std::vector<int> el = seq_input(e, 0);
    if (e.input(1) < 0) e.fail("input position is required");
    e.assign(el[position(e, 1, el.size(), 0, false)], e.output(0));
  } else if (op == "SequenceInsert") {
    std::vector<int> el = seq_input(e, 0);
    int t = e.input(1);
    if (t < 0 || e.value(t).kind != Kind::Tensor) e.fail("input tensor is required");
    DType dt = e.value(e.input(0)).dtype;
    check_dtype(e, t, dt);
    size_t p = position(e, 2, el.size(), static_cast<int64_t>(el.size()), true);
    el.insert(el.begin() + static_cast<std::ptrdiff_t>(p), t);
    set_sequence(e, 0, el, dt);
  } else if (op == "SequenceErase") {
    std::vector<int> el = seq_input(e, 0);
    if (el.empty()) e.shape_fail("erasing from an empty sequence");
    size_t p = position(e, 1, el.size(), -1, false);
    el.erase(el.begin() + static_cast<std::ptrdiff_t>(p));
    set_sequence(e, 0, el, e.value(e.input(0)).dtype);
  } else if (op == "SequenceLength") {
    std::vector<int> el = seq_input(e, 0);
    e.assign(e.int_const({static_cast<int64_t>(el.size())}, true), e.output(0));
  } else if (op == "SplitToSequence") {
    split_to_sequence(e);
  } else if (op == "ConcatFromSequence") {
    concat_from_sequence(e);
  } else if (op == "SequenceMap") {
    sequence_map(e);
  } else if (op == "Optional") {
    Value &o = out_value(e, 0);
    int v = e.input(0);
    o.kind = Kind::Optional;
    o.elements.clear();
    o.shape_known = true;
    if (v >= 0) {
      if (e.value(v).kind == Kind::Optional) e.fail("input '" + e.value(v).name + "' is an optional (optionals do not nest)");
      o.elements.push_back(v);
      o.dtype = e.value(v).dtype;
    } else if (!e.node().has_attr("type")) {
      e.attr_fail("an Optional without input needs attribute type");
    }
  } else if (op == "OptionalHasElement") {
    int v = e.input(0);
    // opset 18: an omitted input is an empty optional, a tensor or sequence a full one
    bool has = v >= 0 && (e.value(v).kind != Kind::Optional || !e.value(v).elements.empty());
    bool_output(e, has);
  } else if (op == "OptionalGetElement") {
    int v = e.input(0);
    if (v < 0) e.fail("input is required");
    if (e.value(v).kind == Kind::Optional) {
      if (e.value(v).elements.empty()) e.fail("the optional '" + e.value(v).name + "' is empty");
      v = e.value(v).elements[0];
    }
    bind_output(e, v, 0);
  } else {
    throw Error("expand_sequence_op: '" + op + "' is not a sequence op (internal error)");
  }
}

void select_structured(Expander &e, int cond, int a, int b, int out) {
  const Value va = e.value(a), vb = e.value(b);
  if (va.kind == Kind::Tensor && vb.kind == Kind::Tensor) {
    if (e.shape(a) != e.shape(b) || va.dtype != vb.dtype)
      e.unsupported("a run-time condition choosing between tensors of different shapes or dtypes (" + va.dtype.str() +
                    shape_str(e.shape(a)) + " and " + vb.dtype.str() + shape_str(e.shape(b)) + ")");
    e.emit1("Where", {cond, a, b}, {}, out);
    return;
  }
  if (va.kind != vb.kind || va.elements.size() != vb.elements.size())
    e.unsupported("a run-time condition choosing between sequences or optionals of different lengths or kinds");
  std::vector<int> el;
  for (size_t k = 0; k < va.elements.size(); k++) {
    int o = e.graph().add_value(e.value(out).name + "[" + std::to_string(k) + "]");
    if (e.value(va.elements[k]).kind != Kind::Tensor) e.graph().values[o].shape_known = true;
    select_structured(e, cond, va.elements[k], vb.elements[k], o);
    el.push_back(o);
  }
  Value &o = e.graph().values[out];
  o.kind = va.kind;
  o.elements = el;
  o.dtype = va.dtype;
  o.shape_known = true;
}

void expand_non_tensor_reader(Expander &e) {
  if (e.node().op == "Identity" && e.input(0) >= 0) {
    bind_output(e, e.input(0), 0);
    return;
  }
  for (int v : e.node().inputs)
    if (v >= 0 && e.value(v).kind != Kind::Tensor)
      e.unsupported(std::string(e.value(v).kind == Kind::Sequence ? "sequence" : "optional") + " input '" + e.value(v).name +
                    "' (only sequence / optional ops and Identity read one)");
}

}  // namespace expansion
}  // namespace relay
}  // namespace tetune
