#include "relay_import/passes/batch_norm_folding.h"

#include <cmath>

namespace tetune {
namespace relay {

int fold_batch_norms(Graph &g) {
  const ValueReaders readers(g);
  int folded = 0;
  for (size_t id = 0; id < g.nodes.size(); id++) {
    Node &bn = g.nodes[id];
    if (bn.dead || bn.op != "BatchNormalization" || bn.attr_i("training_mode", 0) != 0) continue;
    if (bn.outputs.size() > 1) {
      bool extra = false;
      for (size_t k = 1; k < bn.outputs.size(); k++) extra |= bn.outputs[k] >= 0;
      if (extra) continue;
    }
    int x = bn.inputs[0];
    int p = g.values[x].producer;
    if (p < 0 || g.nodes[p].dead || g.nodes[p].op != "Conv") continue;
    Node &conv = g.nodes[p];
    if (readers.only(g, x) != static_cast<int>(id)) continue;
    bool params_const = true;
    for (int k = 1; k <= 4; k++) params_const &= bn.inputs.size() > 4 && g.values[bn.inputs[k]].is_const();
    if (!params_const || !g.values[conv.inputs[1]].is_const()) continue;
    if (conv.inputs.size() > 2 && conv.inputs[2] >= 0 && !g.values[conv.inputs[2]].is_const()) continue;
    const NDArray &W = *g.values[conv.inputs[1]].data;
    if (!W.dtype().is_float() || W.ndim() < 1) continue;
    int64_t O = W.shape()[0];
    const NDArray &scale = *g.values[bn.inputs[1]].data, &beta = *g.values[bn.inputs[2]].data,
                  &mean = *g.values[bn.inputs[3]].data, &var = *g.values[bn.inputs[4]].data;
    if (scale.size() != O || beta.size() != O || mean.size() != O || var.size() != O) continue;
    double eps = bn.attr_f("epsilon", 1e-5);
    NDArray W2(W.shape(), W.dtype());
    NDArray B2(Shape{O}, W.dtype());
    const NDArray *B = (conv.inputs.size() > 2 && conv.inputs[2] >= 0) ? g.values[conv.inputs[2]].data.get() : nullptr;
    int64_t per = W.size() / O;
    for (int64_t o = 0; o < O; o++) {
      // in float32 like the runtime computes it: s = scale / sqrt(var + eps)
      float s = static_cast<float>(scale.get(o)) / std::sqrt(static_cast<float>(var.get(o)) + static_cast<float>(eps));
      for (int64_t k = 0; k < per; k++) W2.set(o * per + k, static_cast<float>(W.get(o * per + k)) * s);
      float b = B ? static_cast<float>(B->get(o)) : 0.f;
      B2.set(o, (b - static_cast<float>(mean.get(o))) * s + static_cast<float>(beta.get(o)));
    }
    int wv = g.add_const(g.values[conv.inputs[1]].name + ".bnfold", W2);
    int bv = g.add_const(g.values[bn.outputs[0]].name + ".bnbias", B2);
    Node &conv2 = g.nodes[p];  // add_const may not invalidate nodes, but be safe
    conv2.inputs.resize(3, -1);
    conv2.inputs[1] = wv;
    conv2.inputs[2] = bv;
    // the conv now produces the BN's output value
    int y = g.nodes[id].outputs[0];
    g.values[y].producer = p;
    conv2.outputs[0] = y;
    g.nodes[id].dead = true;
    folded++;
  }
  if (folded) g.compact();
  return folded;
}

}  // namespace relay
}  // namespace tetune
