#include "relay_import/passes/batch_norm_folding.h"

#include <cmath>

namespace tetune {
namespace relay {

namespace {

// The scales s = scale / sqrt(var + eps) of an inference BatchNormalization
// over C channels, in float32 as the runtime computes them; empty when bn is
// not one (training mode, a mean or variance output read, parameters that are
// not C constants).
std::vector<float> inference_scales(const Graph &g, const Node &bn, int64_t C) {
  if (bn.dead || bn.op != "BatchNormalization" || bn.attr_i("training_mode", 0) != 0 || bn.inputs.size() < 5) return {};
  for (size_t k = 1; k < bn.outputs.size(); k++)
    if (bn.outputs[k] >= 0) return {};
  for (int k = 1; k <= 4; k++)
    if (bn.inputs[k] < 0 || !g.values[bn.inputs[k]].is_const() || g.values[bn.inputs[k]].data->size() != C) return {};
  const NDArray &scale = *g.values[bn.inputs[1]].data, &var = *g.values[bn.inputs[4]].data;
  const float eps = static_cast<float>(bn.attr_f("epsilon", 1e-5));
  std::vector<float> s(C);
  for (int64_t c = 0; c < C; c++) s[c] = static_cast<float>(scale.get(c)) / std::sqrt(static_cast<float>(var.get(c)) + eps);
  return s;
}

}  // namespace

int fold_batch_norms(Graph &g) {
  const ValueReaders readers(g);
  int folded = 0;
  for (size_t id = 0; id < g.nodes.size(); id++) {
    Node &bn = g.nodes[id];
    if (bn.dead || bn.op != "BatchNormalization" || bn.inputs.empty()) continue;
    int x = bn.inputs[0];
    int p = g.values[x].producer;
    if (p < 0 || g.nodes[p].dead || g.nodes[p].op != "Conv") continue;
    Node &conv = g.nodes[p];
    if (readers.only(g, x) != static_cast<int>(id)) continue;
    if (!g.values[conv.inputs[1]].is_const()) continue;
    if (conv.inputs.size() > 2 && conv.inputs[2] >= 0 && !g.values[conv.inputs[2]].is_const()) continue;
    const NDArray &W = *g.values[conv.inputs[1]].data;
    if (!W.dtype().is_float() || W.ndim() < 1) continue;
    int64_t O = W.shape()[0];
    const std::vector<float> s = inference_scales(g, bn, O);
    if (s.empty()) continue;
    const NDArray &beta = *g.values[bn.inputs[2]].data, &mean = *g.values[bn.inputs[3]].data;
    NDArray W2(W.shape(), W.dtype());
    NDArray B2(Shape{O}, W.dtype());
    const NDArray *B = (conv.inputs.size() > 2 && conv.inputs[2] >= 0) ? g.values[conv.inputs[2]].data.get() : nullptr;
    int64_t per = W.size() / O;
    for (int64_t o = 0; o < O; o++) {
      for (int64_t k = 0; k < per; k++) W2.set(o * per + k, static_cast<float>(W.get(o * per + k)) * s[o]);
      float b = B ? static_cast<float>(B->get(o)) : 0.f;
      B2.set(o, (b - static_cast<float>(mean.get(o))) * s[o] + static_cast<float>(beta.get(o)));
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

int batch_norms_to_affine(Graph &g) {
  int rewritten = 0;
  const size_t n = g.nodes.size();  // the loop adds nodes: copy what it needs of each
  for (size_t id = 0; id < n; id++) {
    const Node bn = g.nodes[id];
    if (bn.dead || bn.op != "BatchNormalization" || bn.inputs.empty() || bn.inputs[0] < 0 || bn.outputs.empty() ||
        bn.outputs[0] < 0)
      continue;
    const Value x = g.values[bn.inputs[0]];
    if (!x.shape_known || x.dtype != float32() || x.shape.size() < 2) continue;
    const int64_t C = x.shape[1];
    const std::vector<float> s = inference_scales(g, bn, C);
    if (s.empty()) continue;
    const NDArray &beta = *g.values[bn.inputs[2]].data, &mean = *g.values[bn.inputs[3]].data;
    Shape param_shape(x.shape.size() - 1, 1);  // [C, 1, ..., 1]: NumPy broadcasting lines C up with axis 1
    param_shape[0] = C;
    NDArray scale(param_shape, float32()), shift(param_shape, float32());
    for (int64_t c = 0; c < C; c++) {
      scale.set(c, s[c]);
      shift.set(c, static_cast<float>(beta.get(c)) - static_cast<float>(mean.get(c)) * s[c]);
    }
    const int sv = g.add_const(bn.name + ".scale", scale), tv = g.add_const(bn.name + ".shift", shift);
    const int scaled = g.add_value(bn.name + ".scaled", x.shape, x.dtype, true);
    g.nodes[id].dead = true;
    Node mul;
    mul.op = "Mul";
    mul.name = bn.name + ".mul";
    mul.inputs = {bn.inputs[0], sv};
    mul.outputs = {scaled};
    g.add_node(mul);
    Node add;
    add.op = "Add";
    add.name = bn.name + ".add";
    add.inputs = {scaled, tv};
    add.outputs = {bn.outputs[0]};
    g.add_node(add);
    rewritten++;
  }
  if (rewritten) g.compact();
  return rewritten;
}

}  // namespace relay
}  // namespace tetune
