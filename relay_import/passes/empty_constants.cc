#include "relay_import/passes/empty_constants.h"

#include <algorithm>

#include "base/errors.h"
#include "te/ops/transform.h"

namespace tetune {
namespace relay {

namespace {

bool empty_const(const Value &v) { return v.is_const() && v.data->size() == 0; }

void set_empty(Graph &g, Node &n, DType dtype) {
  Value &out = g.values.at(n.outputs.at(0));
  out.data = std::make_shared<NDArray>(Shape{0}, dtype);
  out.shape = Shape{0};
  out.dtype = dtype;
  out.shape_known = true;
  n.dead = true;
}

// A constant int input's values, or false when input i is absent or not constant.
bool const_ints(const Graph &g, const Node &n, size_t i, std::vector<int64_t> &out) {
  if (i >= n.inputs.size() || n.inputs[i] < 0 || !g.values[n.inputs[i]].is_const()) return false;
  out = g.values[n.inputs[i]].data->ints();
  return true;
}

// Slice of a constant rank-1 tensor with an empty result: fold it.
bool fold_empty_slice(Graph &g, Node &n) {
  if (n.inputs.empty() || n.inputs[0] < 0 || n.outputs.size() != 1 || n.outputs[0] < 0) return false;
  const Value &x = g.values[n.inputs[0]];
  if (!x.is_const() || x.shape.size() != 1) return false;
  std::vector<int64_t> starts, ends, steps{1};
  if (g.opset < 10) {
    starts = n.attr_ints("starts");
    ends = n.attr_ints("ends");
  } else if (!const_ints(g, n, 1, starts) || !const_ints(g, n, 2, ends)) {
    return false;
  } else if (n.inputs.size() > 4 && n.inputs[4] >= 0 && !const_ints(g, n, 4, steps)) {
    return false;
  }
  // One axis (rank 1): axes, if given, can only name it; lowering checks their form.
  if (starts.size() != 1 || ends.size() != 1 || steps.size() != 1 || steps[0] == 0) return false;
  if (ops::slice_range(x.shape[0], starts[0], ends[0], steps[0]).length != 0) return false;
  set_empty(g, n, x.dtype);
  return true;
}

// Concat: drop constant operands with no elements.
bool drop_empty_concat_operands(Graph &g, Node &n) {
  std::vector<int> kept;
  DType dtype = float32();
  for (int v : n.inputs) {
    if (v >= 0) dtype = g.values[v].dtype;
    if (v < 0 || !empty_const(g.values[v])) kept.push_back(v);
  }
  if (kept.size() == n.inputs.size()) return false;
  if (kept.empty()) {
    if (n.outputs.size() != 1 || n.outputs[0] < 0) return false;
    set_empty(g, n, dtype);
    return true;
  }
  n.inputs = kept;
  return false;
}

}  // namespace

bool fold_empty_constants(Graph &g, int id) {
  Node &n = g.nodes.at(id);
  if (n.dead) return false;
  if (n.op == "Slice") return fold_empty_slice(g, n);
  if (n.op == "Concat") return drop_empty_concat_operands(g, n);
  return false;
}

}  // namespace relay
}  // namespace tetune
