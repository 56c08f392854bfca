#include "relay_import/passes/layer_norm_fusion.h"

#include <algorithm>

namespace tetune {
namespace relay {

namespace {

bool is_op(const Graph &g, int id, const char *op) { return id >= 0 && !g.nodes[id].dead && g.nodes[id].op == op; }

// The single element of a constant, or false.
bool scalar_constant(const Graph &g, int v, double &out) {
  if (v < 0 || !g.values[v].is_const() || g.values[v].data->size() != 1) return false;
  out = g.values[v].data->get(0);
  return true;
}

// First reduced axis of a ReduceMean that keeps its dims and reduces the trailing axes [axis, r); -1 otherwise.
int64_t trailing_mean_axis(const Graph &g, const Node &n, int64_t r) {
  if (n.attr_i("keepdims", 1) != 1) return -1;
  std::vector<int64_t> axes = n.attr_ints("axes");
  if (!n.has_attr("axes") && n.inputs.size() > 1 && n.inputs[1] >= 0) {  // opset 18: axes as an input
    const Value &a = g.values[n.inputs[1]];
    if (!a.is_const()) return -1;
    for (int64_t i = 0; i < a.data->size(); i++) axes.push_back(static_cast<int64_t>(a.data->get(i)));
  }
  if (axes.empty()) return -1;  // all axes (or noop_with_empty_axes): not a layer norm over [axis, r)
  for (int64_t &a : axes) a = a < 0 ? a + r : a;
  std::sort(axes.begin(), axes.end());
  for (size_t i = 0; i < axes.size(); i++)
    if (axes[i] != r - static_cast<int64_t>(axes.size()) + static_cast<int64_t>(i)) return -1;
  return axes.front();
}

// The other input of a binary node whose one input is v; -1 when neither is.
int other_input(const Node &n, int v) {
  if (n.inputs.size() != 2) return -1;
  if (n.inputs[0] == v) return n.inputs[1];
  return n.inputs[1] == v ? n.inputs[0] : -1;
}

// `p` (scale or bias) as LayerNormalization takes it: its shape without leading 1s, which must broadcast to
// x.shape[axis:]; a constant is re-shaped when it had leading 1s. -1 when p does not fit.
int as_norm_parameter(Graph &g, int p, const Value &x, int64_t axis) {
  const Value pv = g.values[p];  // a copy: add_const below moves g.values
  if (!pv.shape_known || pv.dtype != x.dtype) return -1;
  Shape s = pv.shape;
  while (!s.empty() && s.front() == 1) s.erase(s.begin());
  const int64_t tail = static_cast<int64_t>(x.shape.size()) - axis;
  if (static_cast<int64_t>(s.size()) > tail) return -1;
  for (size_t i = 0; i < s.size(); i++)
    if (s[i] != 1 && s[i] != x.shape[x.shape.size() - s.size() + i]) return -1;
  if (s == pv.shape) return p;
  return pv.is_const() ? g.add_const(pv.name + ".layer_norm", pv.data->reshaped(s)) : -1;
}

// Rewrites the pattern whose first ReduceMean is node `id`; false (g unchanged) when it does not match.
bool fuse_at(Graph &g, const ValueReaders &rd, int id) {
  const Node &mean = g.nodes[id];
  if (mean.inputs.empty() || mean.inputs[0] < 0 || mean.outputs.size() != 1) return false;
  const int x = mean.inputs[0];
  const Value xv = g.values[x];
  if (!xv.shape_known || xv.shape.empty() || !xv.dtype.is_float()) return false;
  const int64_t r = static_cast<int64_t>(xv.shape.size()), axis = trailing_mean_axis(g, mean, r);
  if (axis < 0) return false;

  const int sub = rd.only(g, mean.outputs[0]);
  if (!is_op(g, sub, "Sub") || g.nodes[sub].inputs != std::vector<int>{x, mean.outputs[0]}) return false;
  const int d = g.nodes[sub].outputs[0];
  if (rd.is_output[d] || rd.of[d].size() != 2) return false;
  int pow = rd.of[d][0], div = rd.of[d][1];
  if (!is_op(g, pow, "Pow")) std::swap(pow, div);
  double exponent = 0;
  if (!is_op(g, pow, "Pow") || !is_op(g, div, "Div") || g.nodes[pow].inputs.size() != 2 || g.nodes[pow].inputs[0] != d ||
      !scalar_constant(g, g.nodes[pow].inputs[1], exponent) || exponent != 2 || g.nodes[div].inputs[0] != d)
    return false;
  const int var = rd.only(g, g.nodes[pow].outputs[0]);
  if (!is_op(g, var, "ReduceMean") || g.nodes[var].inputs[0] != g.nodes[pow].outputs[0] ||
      trailing_mean_axis(g, g.nodes[var], r) != axis)
    return false;
  const int add_eps = rd.only(g, g.nodes[var].outputs[0]);
  double epsilon = 0;
  if (!is_op(g, add_eps, "Add") || !scalar_constant(g, other_input(g.nodes[add_eps], g.nodes[var].outputs[0]), epsilon))
    return false;
  const int sqrt = rd.only(g, g.nodes[add_eps].outputs[0]);
  if (!is_op(g, sqrt, "Sqrt") || rd.only(g, g.nodes[sqrt].outputs[0]) != div ||
      g.nodes[div].inputs[1] != g.nodes[sqrt].outputs[0])
    return false;

  // Optional scale, then bias: a Mul (Add) that alone reads the value so far and whose other input fits.
  std::vector<int> pattern = {id, sub, pow, var, add_eps, sqrt, div};
  int y = g.nodes[div].outputs[0], scale = -1, bias = -1;
  for (const char *op : {"Mul", "Add"}) {
    const int n = rd.only(g, y);
    if (!is_op(g, n, op) || g.nodes[n].outputs.size() != 1 || g.values[g.nodes[n].outputs[0]].shape != xv.shape) break;
    const int p = other_input(g.nodes[n], y);
    const int fitted = p >= 0 && p != y ? as_norm_parameter(g, p, xv, axis) : -1;
    if (fitted < 0) break;
    (std::string(op) == "Mul" ? scale : bias) = fitted;
    pattern.push_back(n);
    y = g.nodes[n].outputs[0];
  }
  if (scale < 0) {  // LayerNormalization requires a scale: ones over the normalised axes
    NDArray ones(Shape(xv.shape.begin() + axis, xv.shape.end()), xv.dtype);
    for (int64_t i = 0; i < ones.size(); i++) ones.set(i, 1);
    scale = g.add_const(g.nodes[id].name + ".layer_norm_scale", ones);
  }
  Node ln;
  ln.op = "LayerNormalization";
  ln.name = g.nodes[div].name + ".layer_norm";
  ln.attrs["axis"] = Attr::of_int(axis);
  ln.attrs["epsilon"] = Attr::of_float(epsilon);
  ln.inputs = {x, scale};
  if (bias >= 0) ln.inputs.push_back(bias);
  ln.outputs = {y};
  for (int n : pattern) g.nodes[n].dead = true;
  g.add_node(ln);
  return true;
}

}  // namespace

int fuse_layer_norms(Graph &g) {
  const ValueReaders rd(g);  // nodes added below read only values that were there; a fused pattern's nodes are dead
  int fused = 0;
  const size_t before = g.nodes.size();
  for (size_t id = 0; id < before; id++)
    if (is_op(g, static_cast<int>(id), "ReduceMean") && fuse_at(g, rd, static_cast<int>(id))) fused++;
  if (fused) g.compact();
  return fused;
}

}  // namespace relay
}  // namespace tetune
