#include "relay_import/passes/channel_scale_folding.h"

namespace tetune {
namespace relay {

namespace {

// Whether `s` scales the channels of a [1, C, H, W] value: [1, C, 1, 1] or [C, 1, 1].
bool is_channel_scale(const Shape &s, int64_t C) { return s == Shape{1, C, 1, 1} || s == Shape{C, 1, 1}; }

}  // namespace

int fold_channel_scales_into_convs(Graph &g) {
  const ValueReaders readers(g);
  int folded = 0;
  for (size_t id = 0; id < g.nodes.size(); id++) {
    const Node &conv = g.nodes[id];
    if (conv.dead || conv.op != "Conv" || conv.attr_i("group", 1) != 1 || conv.inputs.size() < 2) continue;
    const int scaled = conv.inputs[0], w = conv.inputs[1];
    if (scaled < 0 || w < 0 || readers.only(g, scaled) != static_cast<int>(id)) continue;
    const int mul_id = g.values[scaled].producer;
    if (mul_id < 0 || g.nodes[mul_id].dead || g.nodes[mul_id].op != "Mul") continue;
    const Node &mul = g.nodes[mul_id];
    const Value &out = g.values[scaled];
    if (!out.shape_known || out.shape.size() != 4 || out.shape[0] != 1 || !out.dtype.is_float()) continue;
    int x = -1, s = -1;
    for (int k = 0; k < 2; k++) {
      const Value &a = g.values[mul.inputs[k]], &b = g.values[mul.inputs[1 - k]];
      if (a.shape_known && b.shape_known && a.shape == out.shape && is_channel_scale(b.shape, out.shape[1]))
        x = mul.inputs[k], s = mul.inputs[1 - k];
    }
    const Value &wv = g.values[w];
    if (x < 0 || g.values[x].dtype != out.dtype || g.values[s].dtype != out.dtype || wv.dtype != out.dtype ||
        !wv.shape_known || wv.shape.size() != 4 || wv.shape[1] != out.shape[1])
      continue;
    // Scale the smaller of the two: late layers' weights (1152 x 320) outweigh their activations (320 x 7 x 7).
    if (wv.nbytes() >= out.nbytes()) continue;  // same dtype: bytes compare as elements
    // W [K, C, kh, kw] * s broadcasts s's C over the weight's input channels.
    const std::string name = conv.name;
    const Shape w_shape = wv.shape;
    const DType w_dtype = wv.dtype;
    const int ws = g.add_value(name + ".channel_scaled_w", w_shape, w_dtype, true);  // invalidates references into g.values
    Node scale;
    scale.op = "Mul";
    scale.name = name + ".channel_scale";
    scale.inputs = {w, s};
    scale.outputs = {ws};
    g.add_node(scale);  // invalidates references into g.nodes
    Node &c = g.nodes[id];
    c.inputs[0] = x;
    c.inputs[1] = ws;
    g.nodes[mul_id].dead = true;
    folded++;
  }
  if (folded) g.compact();
  return folded;
}

}  // namespace relay
}  // namespace tetune
