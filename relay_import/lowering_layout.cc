// The blocked-layout ops that passes/blocked_layout.h puts into a graph. They
// are tetune's own (no ONNX domain has them), so an imported model never
// holds them: the pass builds them with shapes already known.
//
// A block needs not divide the channels: C/b below rounds up, and the channels
// that pad the last block are 0 (weights and ToBlocked) or finite (elementwise
// ops of them). Attribute `channels` = C on ToPlain and the convs says where
// the real channels end (default: all the block holds).
//
//   tetune.ToBlocked  [N, C, H, W] -> [N, C/b, H, W, b]  (attribute block = b)
//   tetune.ToPlain    [N, C/b, H, W, b] -> [N, C, H, W]  (attribute channels = C)
//   tetune.ConvNCHWc  x [N, C/ib, H, W, ib], w [K/ob, C/ib/G, R, S, ib, ob] (OIHW[ib]i[ob]o), optional bias [K];
//                     attributes strides (2), pads (4: top, left, bottom, right), channels (K), groups (G: groups
//                     of whole blocks, ops::conv2d_nchwc; default 1) -> [N, K/ob, OH, OW, ob]
//   tetune.DepthwiseConvNCHWc  x [N, C/b, H, W, b], w [C/b, R, S, b], optional bias [C]; attributes
//                     strides (2), pads (4), dilations (2) -> [N, C/b, OH, OW, b]
//   tetune.ToBlockedWeight  [K, C, R, S] -> [K/ob, C/ib, R, S, ib, ob] (attributes in_block, out_block), for a
//                     weight computed in the graph
//   tetune.MaxPoolNCHWc, tetune.AveragePoolNCHWc  [N, C/b, H, W, b] -> [N, C/b, OH, OW, b]; the attributes of
//                     ONNX MaxPool / AveragePool over 2 spatial axes (no auto_pad, no Indices output)
//   tetune.GlobalAveragePoolNCHWc  [N, C/b, H, W, b] -> [N, C/b, 1, 1, b]
//   tetune.ChannelGatherNCHWc  x_k [N, C_k/b_k, H, W, b_k] ... -> [N, count/b, H, W, b]: channels
//                     start .. start + count of the x_k's channels joined and shuffled in `groups` groups
//                     (ops::blocked_channel_gather; attributes channels (C_k each), groups, start, count, block)
//   tetune.WinogradInput, tetune.WinogradGemm, tetune.WinogradOutput: the three
//                     stages of a Winograd conv (passes/winograd.h has their shapes)
#include "relay_import/lowering_internal.h"
#include "te/ops/common.h"
#include "te/ops/conv.h"
#include "te/ops/pool.h"
#include "te/ops/reduce.h"
#include "te/ops/transform.h"
#include "te/ops/winograd.h"

namespace tetune {
namespace relay {
namespace lowering {

namespace {

// y plus bias[K] (the node's input `input`, when given) along the channel of each (block, lane) of the blocked y.
// The node's attribute `channels` (K; default all of y's) leaves y's last block padded past K: there y is 0,
// so a padding channel stays finite (0 * inf in a conv reading a channel that is inf would be NaN there, and
// reach the real channels of the next conv through its zero weights).
Tensor add_blocked_bias(LowerContext &c, const Tensor &y, int input = 2) {
  const int64_t b = y.shape()[4], held = y.shape()[1] * b, K = c.node().attr_i("channels", held);
  if (!ops::channels_end_in_last_block(K, y.shape()[1], b))
    c.attr_fail("channels = " + std::to_string(K) + " do not end in the last block of " + shape_str(y.shape()));
  if (!c.has(input) && K == held) return y;
  Tensor bias;
  if (c.has(input)) {
    bias = c.in_rank(input, 1, "bias");
    if (bias.shape()[0] != K)
      c.shape_fail("bias " + shape_str(bias.shape()) + " does not have the " + std::to_string(K) + " output channels");
  }
  const int bi = static_cast<int>(b), k_end = static_cast<int>(K);
  Tensor r = compute(
      y.shape(),
      [&](const std::vector<Var> &i) {
        Expr k = Expr(i[1]) * bi + i[4];
        Expr v = y(i[0], i[1], i[2], i[3], i[4]);
        if (K == held) return v + bias(k);
        if (bias.defined()) v = v + bias(min(k, Expr(k_end - 1)));
        return select(k < k_end, v, make_float(0, y.dtype()));
      },
      c.name(), "", {"n", "k", "h", "w", "kb"});
  return ops::annotate(r, "broadcast", {{"op", "Conv"}});
}

// A block below 1: ops::to_blocked's AttributeError, which lower_node prefixes with the node.
LOWER(l_to_blocked) { return {ops::to_blocked(c.in_rank(0, 4, "input"), c.node().attr_i("block", 0), c.name())}; }

LOWER(l_to_plain) { return {ops::to_plain(c.in_rank(0, 5, "input"), c.node().attr_i("channels", 0), c.name())}; }

LOWER(l_conv_nchwc) {
  Tensor x = c.in_rank(0, 5, "input");
  Tensor w = c.in_rank(1, 6, "weight");
  auto strides = c.ints_attr("strides", {1, 1}, 2, 1);
  auto pads = c.ints_attr("pads", {0, 0, 0, 0}, 4, 0);
  Tensor conv = ops::conv2d_nchwc(x, w, strides, pads, c.has(2) ? c.name() + ".conv" : c.name(), c.node().attr_i("groups", 1));
  return {add_blocked_bias(c, conv)};
}


LOWER(l_depthwise_conv_nchwc) {
  Tensor x = c.in_rank(0, 5, "input");
  Tensor w = c.in_rank(1, 4, "weight");
  auto strides = c.ints_attr("strides", {1, 1}, 2, 1);
  auto pads = c.ints_attr("pads", {0, 0, 0, 0}, 4, 0);
  auto dilations = c.ints_attr("dilations", {1, 1}, 2, 1);
  Tensor conv = ops::depthwise_conv2d_nchwc(x, w, strides, pads, dilations, c.has(2) ? c.name() + ".conv" : c.name());
  return {add_blocked_bias(c, conv)};
}

LOWER(l_to_blocked_weight) {
  Tensor w = c.in_rank(0, 4, "weight");
  const int64_t ib = c.node().attr_i("in_block", 0), ob = c.node().attr_i("out_block", 0), K = w.shape()[0], C = w.shape()[1];
  if (ib < 1 || ob < 1) c.attr_fail("blocks " + std::to_string(ib) + "i" + std::to_string(ob) + "o are not positive");
  const int k_end = static_cast<int>(K), c_end = static_cast<int>(C);
  Tensor y = compute(
      {(K + ob - 1) / ob, (C + ib - 1) / ib, w.shape()[2], w.shape()[3], ib, ob},
      [&](const std::vector<Var> &i) {
        Expr k = Expr(i[0]) * static_cast<int>(ob) + i[5], ch = Expr(i[1]) * static_cast<int>(ib) + i[4];
        if (K % ob == 0 && C % ib == 0) return w(k, ch, i[2], i[3]);
        // Channels that pad a block get weight 0.
        return select(k < k_end && ch < c_end, w(min(k, Expr(k_end - 1)), min(ch, Expr(c_end - 1)), i[2], i[3]),
                      make_float(0, w.dtype()));
      },
      c.name(), "", {"ko", "co", "r", "s", "ci", "kb"});
  const std::string layout = "OIHW" + std::to_string(ib) + "i" + std::to_string(ob) + "o";
  return {ops::annotate(y, "injective", {{"op", "LayoutTransform"}, {"layout", layout}})};
}

LOWER(l_max_pool_nchwc) {
  Tensor x = c.in_rank(0, 5, "input");
  return {ops::max_pool2d(x, c.ints_attr("kernel_shape", {}, 2, 1), c.ints_attr("strides", {1, 1}, 2, 1),
                          c.ints_attr("pads", {0, 0, 0, 0}, 4, 0), c.ints_attr("dilations", {1, 1}, 2, 1),
                          c.node().attr_i("ceil_mode", 0) != 0, c.name())};
}

LOWER(l_avg_pool_nchwc) {
  Tensor x = c.in_rank(0, 5, "input");
  return {ops::avg_pool2d(x, c.ints_attr("kernel_shape", {}, 2, 1), c.ints_attr("strides", {1, 1}, 2, 1),
                          c.ints_attr("pads", {0, 0, 0, 0}, 4, 0), c.node().attr_i("ceil_mode", 0) != 0,
                          c.node().attr_i("count_include_pad", 0) != 0, c.name())};
}

int tile_attr(LowerContext &c) {
  const int64_t m = c.node().attr_i("m", 0);
  if (m != 2 && m != 4) c.attr_fail("m = " + std::to_string(m) + " must be 2 or 4");
  return static_cast<int>(m);
}

LOWER(l_winograd_input) {
  return {ops::winograd_input_nchwc(c.in_rank(0, 5, "input"), tile_attr(c), c.ints_attr("pads", {0, 0, 0, 0}, 4, 0), c.name())};
}

LOWER(l_winograd_gemm) {
  Tensor v = c.in_rank(0, 4, "transformed input"), u = c.in_rank(1, 5, "transformed weight");
  return {ops::winograd_gemm_nchwc(v, u, c.name())};
}

LOWER(l_winograd_output) {
  Tensor mt = c.in_rank(0, 4, "product");
  const int m = tile_attr(c);
  const std::vector<int64_t> hw = c.ints_attr("output_hw", {}, 2, 1);
  const int64_t tiles = ((hw[0] + m - 1) / m) * ((hw[1] + m - 1) / m);
  if (mt.shape()[2] % tiles)
    c.shape_fail("product " + shape_str(mt.shape()) + " does not hold whole images of " + std::to_string(tiles) + " tiles");
  Tensor y = ops::winograd_output_nchwc(mt, m, mt.shape()[2] / tiles, hw[0], hw[1], c.has(1) ? c.name() + ".conv" : c.name());
  return {add_blocked_bias(c, y, 1)};
}

LOWER(l_channel_gather_nchwc) {
  std::vector<Tensor> xs;
  for (int i = 0; i < c.num_inputs(); i++) xs.push_back(c.in_rank(i, 5, "input " + std::to_string(i)));
  const Node &n = c.node();
  return {ops::blocked_channel_gather(xs, n.attr_ints("channels"), n.attr_i("groups", 1), n.attr_i("start", 0),
                                      n.attr_i("count", 0), n.attr_i("block", 0), c.name())};
}

LOWER(l_global_avg_pool_nchwc) { return {ops::reduce_mean(c.in_rank(0, 5, "input"), {2, 3}, true, c.name())}; }

}  // namespace

const OpTable &layout_ops() {
  static const OpTable r = {
      {"tetune.ToBlocked", {l_to_blocked, OpPattern::Injective}},
      {"tetune.ToPlain", {l_to_plain, OpPattern::Injective}},
      {"tetune.ConvNCHWc", {l_conv_nchwc, OpPattern::Anchor}},
      {"tetune.DepthwiseConvNCHWc", {l_depthwise_conv_nchwc, OpPattern::Anchor}},
      {"tetune.ToBlockedWeight", {l_to_blocked_weight, OpPattern::Injective}},
      {"tetune.MaxPoolNCHWc", {l_max_pool_nchwc, OpPattern::Reduce}},
      {"tetune.AveragePoolNCHWc", {l_avg_pool_nchwc, OpPattern::Reduce}},
      {"tetune.GlobalAveragePoolNCHWc", {l_global_avg_pool_nchwc, OpPattern::Reduce}},
      {"tetune.ChannelGatherNCHWc", {l_channel_gather_nchwc, OpPattern::Injective}},
      {"tetune.WinogradInput", {l_winograd_input, OpPattern::Injective}},
      {"tetune.WinogradGemm", {l_winograd_gemm, OpPattern::Anchor}},
      {"tetune.WinogradOutput", {l_winograd_output, OpPattern::Anchor}},
  };
  return r;
}

}  // namespace lowering
}  // namespace relay
}  // namespace tetune
