#include "relay_import/passes/unit_axis_transpose.h"

#include <numeric>

namespace tetune {
namespace relay {

namespace {

// The permutation of Transpose node n over a rank-r input (ONNX: reversed axes when absent).
std::vector<int64_t> permutation(const Node &n, size_t rank) {
  std::vector<int64_t> reversed(rank);
  std::iota(reversed.rbegin(), reversed.rend(), 0);
  return n.attr_ints("perm", reversed);
}

// Whether perm visits the axes of extent > 1 of `shape` in increasing order (a malformed perm: no).
bool moves_only_unit_axes(const std::vector<int64_t> &perm, const Shape &shape) {
  if (perm.size() != shape.size()) return false;
  int64_t last = -1;
  for (int64_t axis : perm) {
    if (axis < 0 || axis >= static_cast<int64_t>(shape.size())) return false;
    if (shape[axis] == 1) continue;
    if (axis < last) return false;
    last = axis;
  }
  return true;
}

}  // namespace

int transposes_of_unit_axes_to_views(Graph &g) {
  int n = 0;
  const size_t before = g.nodes.size();  // nodes added on the way are the Reshapes
  for (size_t id = 0; id < before; id++) {
    const Node t = g.nodes[id];
    if (t.dead || t.op != "Transpose" || t.inputs.size() != 1 || t.inputs[0] < 0 || t.outputs.size() != 1 ||
        t.outputs[0] < 0)
      continue;
    const Value in = g.values[t.inputs[0]], out = g.values[t.outputs[0]];  // copies: add_reshape adds values
    if (!in.shape_known || !out.shape_known || !moves_only_unit_axes(permutation(t, in.shape.size()), in.shape))
      continue;
    g.nodes[id].dead = true;
    g.add_reshape(t.inputs[0], out.shape, out.name, t.outputs[0]);
    n++;
  }
  return n;
}

}  // namespace relay
}  // namespace tetune
