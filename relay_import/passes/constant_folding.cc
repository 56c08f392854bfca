#include "relay_import/passes/constant_folding.h"

#include <algorithm>

#include "relay_import/host_ops.h"
#include "relay_import/lowering.h"
#include "relay_import/shape_inference.h"
#include "base/errors.h"
#include "te/interpreter.h"

namespace tetune {
namespace relay {

namespace {

void set_const(Graph &g, int v, const NDArray &a) {
  g.values[v].data = std::make_shared<NDArray>(a);
  g.values[v].shape = a.shape();
  g.values[v].dtype = a.dtype();
  g.values[v].shape_known = true;
}

}  // namespace

bool try_fold_node(Graph &g, int id, int64_t max_elements) {
  Node &n = g.nodes.at(id);
  if (n.dead) return false;
  if (n.op == "Shape" || n.op == "Size") {
    if (n.inputs.size() != 1 || n.inputs[0] < 0 || n.outputs.size() != 1 || n.outputs[0] < 0)
      throw ImportError(n.op + " node '" + n.name + "': expected one input and one output");
    const Value &x = g.values.at(n.inputs.at(0));
    if (!x.shape_known) return false;
    int r = static_cast<int>(x.shape.size());
    if (n.op == "Size") {
      int64_t s = 1;
      for (auto d : x.shape) s *= d;
      NDArray a(Shape{}, int64());
      a.set(0, static_cast<double>(s));
      set_const(g, n.outputs[0], a);
    } else {
      int64_t start = n.attr_i("start", 0), end = n.attr_i("end", r);
      if (start < 0) start += r;
      if (end < 0) end += r;
      start = std::max<int64_t>(0, std::min<int64_t>(start, r));
      end = std::max<int64_t>(start, std::min<int64_t>(end, r));
      NDArray a(Shape{end - start}, int64());
      for (int64_t i = start; i < end; i++) a.set(i - start, static_cast<double>(x.shape[i]));
      set_const(g, n.outputs[0], a);
    }
    n.dead = true;
    return true;
  }
  bool any = false;
  for (int v : n.inputs) {
    if (v < 0) continue;
    any = true;
    if (!g.values[v].is_const()) return false;
  }
  if (!any && n.op != "ConstantOfShape" && n.op != "Range") return false;
  for (int o : n.outputs) {
    if (o < 0) continue;
    if (!g.values[o].shape_known) return false;
    if (checked_num_elements(g.values[o].shape, max_elements) < 0) return false;
  }
  // View ops: reshape the data directly.
  OpPattern p = op_pattern(n);
  if (p == OpPattern::View) {
    if (n.inputs.empty() || n.inputs[0] < 0 || n.outputs.empty() || n.outputs[0] < 0) return false;
    const NDArray &in = *g.values[n.inputs[0]].data;
    set_const(g, n.outputs[0], in.reshaped(g.values[n.outputs[0]].shape));
    n.dead = true;
    return true;
  }
  // Data-dependent ops: the host op gives exact-size constants.
  if (p == OpPattern::Host) {
    std::vector<NDArray> ins;
    for (int v : n.inputs) ins.push_back(v < 0 ? NDArray() : *g.values[v].data);
    std::vector<NDArray> outs;
    try {
      outs = run_host_op(n, ins);
    } catch (const Error &e) {
      throw ImportError(n.op + " node '" + n.name + "': constant folding failed: " + e.what());
    }
    for (size_t k = 0; k < n.outputs.size() && k < outs.size(); k++)
      if (n.outputs[k] >= 0) set_const(g, n.outputs[k], outs[k]);
    n.dead = true;
    return true;
  }
  std::vector<Tensor> phs;
  std::vector<int> pvals;
  std::vector<Tensor> outs = lower_with_placeholders(g, id, &phs, &pvals);
  std::vector<NDArray> data;
  for (int v : pvals) data.push_back(*g.values[v].data);
  std::vector<Tensor> wanted;
  std::vector<int> wanted_vals;
  for (size_t i = 0; i < n.outputs.size() && i < outs.size(); i++)
    if (n.outputs[i] >= 0) {
      wanted.push_back(outs[i]);
      wanted_vals.push_back(n.outputs[i]);
    }
  // an output that is directly an input placeholder (no compute) copies it
  std::vector<NDArray> res(wanted.size());
  std::vector<Tensor> comp;
  std::vector<size_t> comp_idx;
  for (size_t i = 0; i < wanted.size(); i++) {
    if (wanted[i].is_placeholder()) {
      for (size_t k = 0; k < phs.size(); k++)
        if (phs[k].same_as(wanted[i])) res[i] = data[k];
    } else {
      comp.push_back(wanted[i]);
      comp_idx.push_back(i);
    }
  }
  if (!comp.empty()) {
    std::vector<NDArray> r;
    try {
      r = interpret(comp, phs, data);
    } catch (const Error &e) {
      throw ImportError(n.op + " node '" + n.name + "': constant folding failed: " + e.what());
    }
    for (size_t i = 0; i < r.size(); i++) res[comp_idx[i]] = std::move(r[i]);
  }
  for (size_t i = 0; i < wanted.size(); i++) set_const(g, wanted_vals[i], res[i]);
  n.dead = true;
  return true;
}

int fold_constants(Graph &g, int64_t max_elements) {
  int k = 0;
  for (int id : g.topo_order()) k += try_fold_node(g, id, max_elements);
  return k;
}

}  // namespace relay
}  // namespace tetune
