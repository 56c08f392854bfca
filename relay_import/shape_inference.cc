#include "relay_import/shape_inference.h"

#include "relay_import/expansion.h"
#include "relay_import/lowering.h"
#include "relay_import/passes/constant_folding.h"
#include "relay_import/passes/empty_constants.h"
#include "base/errors.h"

namespace tetune {
namespace relay {

std::vector<Tensor> lower_with_placeholders(const Graph &g, int id, std::vector<Tensor> *placeholders,
                                            std::vector<int> *placeholder_values) {
  const Node &n = g.nodes.at(id);
  std::vector<Tensor> cache(n.inputs.size());
  auto get = [&](int i) -> Tensor {
    if (cache[i].defined()) return cache[i];
    int v = n.inputs[i];
    const Value &val = g.values.at(v);
    if (!val.shape_known)
      throw ImportError(n.op + " node '" + n.name + "': shape of input '" + val.name + "' is unknown");
    for (int64_t d : val.shape)
      if (d <= 0)
        throw ImportError(n.op + " node '" + n.name + "': input '" + val.name + "' has a zero-size shape " + shape_str(val.shape) +
                          " (unsupported: zero-size tensors)");
    // the same value may feed several slots: share one placeholder
    for (size_t j = 0; j < n.inputs.size(); j++)
      if (n.inputs[j] == v && cache[j].defined()) return cache[i] = cache[j];
    Tensor t = placeholder(val.shape, val.dtype, "in" + std::to_string(i));
    cache[i] = t;
    if (placeholders) placeholders->push_back(t);
    if (placeholder_values) placeholder_values->push_back(v);
    return t;
  };
  LowerContext ctx(g, n, get);
  return lower_node(ctx);
}

void infer_node(Graph &g, int id) {
  Node &n = g.nodes.at(id);
  for (int v : n.inputs)
    if (v >= 0 && !g.values[v].shape_known)
      throw ImportError(n.op + " node '" + n.name + "': shape of input '" + g.values[v].name + "' is unknown");
  if (n.op == "Shape" || n.op == "Size") {
    if (n.inputs.size() != 1 || n.inputs[0] < 0 || n.outputs.size() != 1 || n.outputs[0] < 0)
      throw ImportError(n.op + " node '" + n.name + "' (opset " + std::to_string(g.opset) + "): expected one input and one output, got " +
                        std::to_string(n.inputs.size()) + " inputs and " + std::to_string(n.outputs.size()) + " outputs");
    for (int o : n.outputs) g.values[o].shape_known = true;
    return;  // always folded
  }
  std::vector<Tensor> outs = lower_with_placeholders(g, id, nullptr, nullptr);
  if (outs.size() < n.outputs.size()) {
    for (size_t i = outs.size(); i < n.outputs.size(); i++)
      if (n.outputs[i] >= 0)
        throw ImportError(n.op + " node '" + n.name + "': output " + std::to_string(i) + " is not supported");
  }
  for (size_t i = 0; i < n.outputs.size(); i++) {
    int o = n.outputs[i];
    if (o < 0) continue;
    Value &v = g.values[o];
    v.shape = outs[i].shape();
    v.dtype = outs[i].dtype();
    v.shape_known = true;
  }
}

namespace {
// Infers (and folds) node id; an expanded op (RNN, Loop, ...) is replaced by
// new nodes, each inferred the same way as the expansion adds it.
void infer_and_fold(Graph &g, int id, bool fold) {
  if (is_expanded_op(g.nodes[id].op) || reads_non_tensor(g, id)) {
    expand_node(g, id, [&g, fold](int k) { infer_and_fold(g, k, fold); });
    return;
  }
  if (fold_empty_constants(g, id)) return;
  infer_node(g, id);
  if (fold || g.nodes[id].op == "Shape" || g.nodes[id].op == "Size") try_fold_node(g, id);
}
}  // namespace

void infer_shapes(Graph &g, bool fold) {
  for (int id : g.topo_order()) infer_and_fold(g, id, fold);
}

}  // namespace relay
}  // namespace tetune
