#include "relay_import/dynamic_rows.h"

#include <string>

#include "base/errors.h"
#include "relay_import/host_ops.h"
#include "relay_import/lowering.h"

namespace tetune {
namespace relay {

namespace {

int64_t prod(const Shape &s, int end) {
  int64_t p = 1;
  for (int i = 0; i < end; i++) p *= s[i];
  return p;
}

int norm_axis(int64_t a, int rank) { return static_cast<int>(a < 0 ? a + rank : a); }

struct Walker {
  const Graph &g;
  std::vector<DynamicAxis> dyn;

  [[noreturn]] void refuse(const Node &n, int v, const std::string &why) {
    const Value &val = g.values[v];
    const Value &src = g.values[dyn[v].source];
    std::string from = src.producer >= 0 ? g.nodes[src.producer].op + " node '" + g.nodes[src.producer].name + "'" : "?";
    throw ImportError(n.op + " node '" + n.name + "' (opset " + std::to_string(g.opset) + "): unsupported reader of '" + val.name +
                      "', whose axis " + std::to_string(dyn[v].axis) + " has the data-dependent extent of " + from + " (" +
                      why + ")");
  }

  // Output axis of a view / reshape that keeps the elements before the axis together.
  int reshape_axis(const Shape &in, int a, const Shape &out) {
    int64_t before = prod(in, a);
    for (int j = 0; j < static_cast<int>(out.size()); j++)
      if (prod(out, j) == before && out[j] == in[a]) return j;
    return -1;
  }

  void visit(const Node &n) {
    if (const HostOp *h = find_host_op(n.op)) {
      for (size_t k = 0; k < n.outputs.size(); k++) {
        int o = n.outputs[k];
        if (o < 0) continue;
        int a = h->dynamic_axis(n, static_cast<int>(k), static_cast<int>(g.values[o].shape.size()));
        if (a >= 0) dyn[o] = {a, o};
      }
      return;  // a host op reads its inputs trimmed
    }
    std::vector<int> slots;
    for (size_t i = 0; i < n.inputs.size(); i++)
      if (n.inputs[i] >= 0 && dyn[n.inputs[i]].axis >= 0) slots.push_back(static_cast<int>(i));
    if (slots.empty()) return;
    int v0 = n.inputs[slots[0]];
    for (int s : slots)
      if (dyn[n.inputs[s]].source != dyn[v0].source) refuse(n, n.inputs[s], "two different data-dependent extents meet");
    int out = n.outputs.empty() ? -1 : n.outputs[0];
    if (out < 0) return;
    const Shape &os = g.values[out].shape;
    int R = static_cast<int>(os.size());
    DynamicAxis r{-1, dyn[v0].source};
    OpPattern p = op_pattern(n);
    if (p == OpPattern::Elemwise) {
      for (int s : slots) {
        int v = n.inputs[s];
        const Shape &is = g.values[v].shape;
        int a = dyn[v].axis + R - static_cast<int>(is.size());
        if (os[a] != is[dyn[v].axis]) refuse(n, v, "broadcast along the axis");
        if (r.axis >= 0 && r.axis != a) refuse(n, v, "two inputs' data-dependent axes differ");
        r.axis = a;
      }
      for (int o : n.outputs)
        if (o >= 0) dyn[o] = r;
      return;
    }
    const Shape &is = g.values[v0].shape;
    int a = dyn[v0].axis;
    if (n.op == "Reshape" || n.op == "Flatten" || n.op == "Squeeze" || n.op == "Unsqueeze" || n.op == "Identity" ||
        n.op == "Dropout") {
      if (slots.size() != 1 || slots[0] != 0) refuse(n, n.inputs[slots.back()], "a data-dependent shape or axes input");
      r.axis = reshape_axis(is, a, os);
      if (r.axis < 0) refuse(n, v0, "the reshape merges the axis with an earlier one");
    } else if (n.op == "Gather") {
      int ax = norm_axis(n.attr_i("axis", 0), static_cast<int>(is.size()));
      if (slots.size() == 2) refuse(n, v0, "data and indices both data-dependent");
      if (slots[0] == 1) {
        r.axis = ax + a;  // indices' axes replace the gathered axis
      } else {
        if (a == ax) refuse(n, v0, "gathering along the data-dependent axis reads padding rows");
        int q = static_cast<int>(g.values[n.inputs[1]].shape.size());
        r.axis = a < ax ? a : a + q - 1;
      }
    } else if (n.op == "Transpose") {
      std::vector<int64_t> perm = n.attr_ints("perm");
      for (int j = 0; j < R; j++)
        if ((perm.empty() ? R - 1 - j : perm[j]) == a) r.axis = j;
    } else if (n.op == "Slice") {
      if (slots.size() != 1 || slots[0] != 0) refuse(n, n.inputs[slots.back()], "data-dependent slice bounds");
      std::vector<int64_t> axes;
      if (g.opset < 10) axes = n.attr_ints("axes");
      else if (n.inputs.size() > 3 && n.inputs[3] >= 0 && g.values[n.inputs[3]].is_const())
        axes = g.values[n.inputs[3]].data->ints();
      bool sliced = axes.empty();  // no axes: every axis is sliced
      for (auto x : axes) sliced = sliced || norm_axis(x, R) == a;
      if (sliced) refuse(n, v0, "slicing along the data-dependent axis");
      r.axis = a;
    } else if (n.op == "Concat") {
      if (norm_axis(n.attr_i("axis", 0), R) == a) refuse(n, v0, "concatenating along the data-dependent axis");
      r.axis = a;
    } else {
      refuse(n, v0, "only elementwise ops, views, Gather, Transpose and Slice / Concat along other axes keep rows apart");
    }
    for (size_t k = 0; k < n.outputs.size(); k++)
      if (n.outputs[k] >= 0) dyn[n.outputs[k]] = k == 0 ? r : DynamicAxis{};
  }
};

}  // namespace

std::vector<DynamicAxis> dynamic_axes(const Graph &g) {
  Walker w{g, std::vector<DynamicAxis>(g.values.size())};
  for (int id : g.topo_order()) w.visit(g.nodes[id]);
  return w.dyn;
}

}  // namespace relay
}  // namespace tetune
