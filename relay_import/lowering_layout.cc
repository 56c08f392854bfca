// The blocked-layout ops that passes/blocked_layout.h puts into a graph. They
// are tetune's own (no ONNX domain has them), so an imported model never
// holds them: the pass builds them with shapes already known.
//
//   tetune.ToBlocked  [N, C, H, W] -> [N, C/b, H, W, b]  (attribute block = b; C % b == 0)
//   tetune.ToPlain    [N, C/b, H, W, b] -> [N, C, H, W]
//   tetune.ConvNCHWc  x [N, C/b, H, W, b], w [K/b, C/b, R, S, b, b] (OIHW[b]i[b]o), optional bias [K];
//                     attributes strides (2), pads (4: top, left, bottom, right) -> [N, K/b, OH, OW, b]
//   tetune.GlobalAveragePoolNCHWc  [N, C/b, H, W, b] -> [N, C/b, 1, 1, b]
#include "relay_import/lowering_internal.h"
#include "te/ops/common.h"
#include "te/ops/conv.h"

namespace tetune {
namespace relay {
namespace lowering {

namespace {

LOWER(l_to_blocked) {
  Tensor x = c.in_rank(0, 4, "input");
  const int64_t b = c.node().attr_i("block", 0), C = x.shape()[1];
  if (b < 1 || C % b) c.attr_fail("block " + std::to_string(b) + " does not divide the " + std::to_string(C) + " channels");
  const Shape s{x.shape()[0], C / b, x.shape()[2], x.shape()[3], b};
  Tensor y = compute(
      s, [&](const std::vector<Var> &i) { return x(i[0], Expr(i[1]) * static_cast<int>(b) + i[4], i[2], i[3]); }, c.name(), "",
      {"n", "c", "h", "w", "cb"});
  return {ops::annotate(y, "injective", {{"op", "LayoutTransform"}, {"layout", "NCHW" + std::to_string(b) + "c"}})};
}

LOWER(l_to_plain) {
  Tensor x = c.in_rank(0, 5, "input");
  const int64_t b = x.shape()[4];
  const Shape s{x.shape()[0], x.shape()[1] * b, x.shape()[2], x.shape()[3]};
  Tensor y = compute(
      s,
      [&](const std::vector<Var> &i) {
        Expr ch = i[1];
        return x(i[0], ch / static_cast<int>(b), i[2], i[3], ch % static_cast<int>(b));
      },
      c.name(), "", {"n", "c", "h", "w"});
  return {ops::annotate(y, "injective", {{"op", "LayoutTransform"}, {"layout", "NCHW"}})};
}

LOWER(l_conv_nchwc) {
  Tensor x = c.in_rank(0, 5, "input");
  Tensor w = c.in_rank(1, 6, "weight");
  auto strides = c.ints_attr("strides", {1, 1}, 2, 1);
  auto pads = c.ints_attr("pads", {0, 0, 0, 0}, 4, 0);
  const bool biased = c.has(2);
  Tensor conv = ops::conv2d_nchwc(x, w, strides, pads, biased ? c.name() + ".conv" : c.name());
  if (!biased) return {conv};
  Tensor bias = c.in_rank(2, 1, "bias");
  const int64_t kb = conv.shape()[4];
  if (bias.shape()[0] != conv.shape()[1] * kb)
    c.shape_fail("bias " + shape_str(bias.shape()) + " does not have the " + std::to_string(conv.shape()[1] * kb) + " output channels");
  Tensor y = compute(
      conv.shape(),
      [&](const std::vector<Var> &i) {
        return conv(i[0], i[1], i[2], i[3], i[4]) + bias(Expr(i[1]) * static_cast<int>(kb) + i[4]);
      },
      c.name(), "", {"n", "k", "h", "w", "kb"});
  return {ops::annotate(y, "broadcast", {{"op", "Conv"}})};
}

LOWER(l_global_avg_pool_nchwc) {
  Tensor x = c.in_rank(0, 5, "input");
  const Shape &s = x.shape();
  const int64_t H = s[2], W = s[3];
  Tensor y = compute(
      {s[0], s[1], 1, 1, s[4]},
      [&](const std::vector<Var> &i) {
        IterVar rh = reduce_axis(H, "rh"), rw = reduce_axis(W, "rw");
        return tetune::sum(x(i[0], i[1], rh, rw, i[4]), {rh, rw});
      },
      c.name() + ".sum", "", {"n", "c", "h", "w", "cb"});
  ops::annotate(y, "pool", {{"op", "GlobalAveragePool"}});
  const double inv = 1.0 / static_cast<double>(H * W);
  Tensor mean = compute(
      y.shape(), [&](const std::vector<Var> &i) { return y(i[0], i[1], i[2], i[3], i[4]) * imm(inv, x.dtype()); }, c.name(), "",
      {"n", "c", "h", "w", "cb"});
  return {ops::annotate(mean, "elemwise", {{"op", "GlobalAveragePool"}})};
}

}  // namespace

const OpTable &layout_ops() {
  static const OpTable r = {
      {"tetune.ToBlocked", {l_to_blocked, OpPattern::Injective}},
      {"tetune.ToPlain", {l_to_plain, OpPattern::Injective}},
      {"tetune.ConvNCHWc", {l_conv_nchwc, OpPattern::Anchor}},
      {"tetune.GlobalAveragePoolNCHWc", {l_global_avg_pool_nchwc, OpPattern::Reduce}},
  };
  return r;
}

}  // namespace lowering
}  // namespace relay
}  // namespace tetune
