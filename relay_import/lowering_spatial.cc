// Lowerings of spatial sampling and index ops onto te/ops: GridSample, ReverseSequence,
// Det (M <= 3), and the rank-generic forms of pooling (3-D) and ConvTranspose that
// lowering.cc hands over.
#include <algorithm>

#include "relay_import/lowering_internal.h"
#include "te/ops/conv_transpose_nd.h"
#include "te/ops/det.h"
#include "te/ops/grid_sample.h"
#include "te/ops/pool.h"
#include "te/ops/reverse_sequence.h"
#include "te/ops/transform.h"

namespace tetune {
namespace relay {
namespace lowering {

namespace {

LOWER(l_grid_sample) {
  Tensor x = c.in_min_rank(0, 3, "X");
  Tensor grid = c.in_rank(1, x.ndim(), "grid");
  // opset 16 names the modes bilinear / bicubic, opset 20 linear / cubic (and allows N-D)
  if (c.opset() < 20 && x.ndim() != 4) c.unsupported(std::to_string(x.ndim() - 2) + "-D GridSample before opset 20");
  std::string mode = c.node().attr_s("mode", c.opset() < 20 ? "bilinear" : "linear");
  return {ops::grid_sample(x, grid, mode, c.node().attr_s("padding_mode", "zeros"), c.node().attr_i("align_corners", 0) != 0,
                           c.name())};
}

LOWER(l_reverse_sequence) {
  Tensor x = c.in_min_rank(0, 2, "input");
  Tensor lens = c.in_rank(1, 1, "sequence_lens");
  int64_t T = x.shape()[c.node().attr_i("time_axis", 0) == 0 ? 0 : 1];
  // onnxruntime rejects lengths outside [0, T]; a constant one is checked here, the kernel clamps the rest
  if (c.cdata(1))
    for (int64_t n : c.const_ints(1, "sequence_lens"))
      if (n < 0 || n > T) c.fail("sequence length " + std::to_string(n) + " is out of range [0, " + std::to_string(T) + "]");
  return {ops::reverse_sequence(x, lens, c.node().attr_i("batch_axis", 1), c.node().attr_i("time_axis", 0), c.name())};
}

LOWER(l_det) {
  Tensor x = c.in_min_rank(0, 2, "X");
  if (x.shape()[x.ndim() - 1] > 3) c.unsupported("Det of matrices larger than 3 x 3 (needs LU with pivoting)");
  return {ops::det_small(x, c.name())};
}

}  // namespace

// Max and average pooling are separable (the window is a box and the average's
// count a product of per-axis counts, ceil-mode overhang included), so a 3-D
// pool is a 2-D pool over (H, W) of [N, C*D, H, W] followed by a pool over D of
// [N, C, D, OH*OW]: exact, and kd + kh*kw taps per output instead of kd*kh*kw.
std::vector<Tensor> pool3d(LowerContext &c, bool is_max) {
  Tensor x = c.in_rank(0, 5, "X");
  if (c.node().outputs.size() > 1 && c.node().outputs[1] >= 0) c.unsupported("Indices output of 3-D MaxPool");
  if (is_max && c.node().attr_i("storage_order", 0) != 0) c.unsupported("storage_order=1");
  auto k = c.ints_attr("kernel_shape", {}, 3, 1);
  auto s = c.ints_attr("strides", {1, 1, 1}, 3, 1);
  auto d = c.ints_attr("dilations", {1, 1, 1}, 3, 1);
  if (!is_max && d != std::vector<int64_t>{1, 1, 1}) c.unsupported("dilated AveragePool");
  std::string ap = c.node().attr_s("auto_pad", "NOTSET");
  std::vector<int64_t> pads(6, 0);
  if (ap == "NOTSET") {
    pads = c.ints_attr("pads", pads, 6, 0);
  } else if (ap == "SAME_UPPER" || ap == "SAME_LOWER") {
    for (int a = 0; a < 3; a++) {
      int64_t L = x.shape()[2 + a], ek = d[a] * (k[a] - 1) + 1;
      int64_t total = std::max<int64_t>(((L + s[a] - 1) / s[a] - 1) * s[a] + ek - L, 0);
      pads[a] = ap == "SAME_UPPER" ? total / 2 : total - total / 2;
      pads[a + 3] = total - pads[a];
    }
  } else if (ap != "VALID") {
    c.unsupported("auto_pad " + ap);
  }
  bool ceil_mode = c.node().attr_i("ceil_mode", 0) != 0, incl = c.node().attr_i("count_include_pad", 0) != 0;
  auto pool = [&](const Tensor &t, const std::vector<int64_t> &kk, const std::vector<int64_t> &ss,
                  const std::vector<int64_t> &pp, const std::vector<int64_t> &dd, const std::string &name) {
    return is_max ? ops::max_pool2d(t, kk, ss, pp, dd, ceil_mode, name) : ops::avg_pool2d(t, kk, ss, pp, ceil_mode, incl, name);
  };
  const Shape &xs = x.shape();
  Tensor hw = pool(ops::reshape(x, {xs[0], xs[1] * xs[2], xs[3], xs[4]}, c.name() + ".nd_hw"), {k[1], k[2]}, {s[1], s[2]},
                   {pads[1], pads[2], pads[4], pads[5]}, {d[1], d[2]}, c.name() + ".hw");
  int64_t OH = hw.shape()[2], OW = hw.shape()[3];
  Tensor dd = pool(ops::reshape(hw, {xs[0], xs[1], xs[2], OH * OW}, c.name() + ".nd_d"), {k[0], 1}, {s[0], 1},
                   {pads[0], 0, pads[3], 0}, {d[0], 1}, c.name() + ".d");
  return {ops::reshape(dd, {xs[0], xs[1], dd.shape()[2], OH, OW}, c.name())};
}

// pads from 'pads' / 'auto_pad' / 'output_shape' as ONNX ConvTranspose (opset 11) defines them.
std::vector<Tensor> conv_transpose_nd(LowerContext &c) {
  Tensor x = c.in_min_rank(0, 3, "X");
  int R = x.ndim() - 2;
  Tensor w = c.in_rank(1, R + 2, "W");
  Tensor b = c.has(2) ? c.in_rank(2, 1, "B") : Tensor();
  std::vector<int64_t> one(R, 1);
  auto s = c.ints_attr("strides", one, R, 1);
  auto d = c.ints_attr("dilations", one, R, 1);
  auto op = c.ints_attr("output_padding", std::vector<int64_t>(R, 0), R, 0);
  std::string ap = c.node().attr_s("auto_pad", "NOTSET");
  std::vector<int64_t> pads(2 * R, 0);
  std::vector<int64_t> os;
  if (c.node().has_attr("output_shape")) {
    os = c.ints_attr("output_shape", {}, -1, 1);
    if (static_cast<int>(os.size()) == R + 2) os.erase(os.begin(), os.begin() + 2);
    if (static_cast<int>(os.size()) != R)
      c.attr_fail("attribute 'output_shape' has " + std::to_string(os.size()) + " values, expected " + std::to_string(R));
  } else if (ap == "SAME_UPPER" || ap == "SAME_LOWER") {
    for (int a = 0; a < R; a++) os.push_back(x.shape()[2 + a] * s[a]);
  } else if (ap == "NOTSET") {
    pads = c.ints_attr("pads", pads, 2 * R, 0);
  } else if (ap != "VALID") {
    c.unsupported("auto_pad " + ap);
  }
  for (int a = 0; a < static_cast<int>(os.size()); a++) {
    if (os[a] > (int64_t(1) << 24)) c.attr_fail("output extent " + std::to_string(os[a]) + " is too large");
    int64_t total = s[a] * (x.shape()[2 + a] - 1) + op[a] + (w.shape()[2 + a] - 1) * d[a] + 1 - os[a];
    // floor division, as the ONNX reference (a negative total pads the end of the output)
    int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
    pads[a] = ap == "SAME_UPPER" ? half : total - half;
    pads[a + R] = total - pads[a];
  }
  return {ops::conv_transpose_nd(x, w, b, s, pads, d, op, c.node().attr_i("group", 1), c.name())};
}

const OpTable &spatial_ops() {
  static const OpTable t = {
      {"GridSample", {l_grid_sample, OpPattern::Injective}},
      {"ReverseSequence", {l_reverse_sequence, OpPattern::Injective}},
      {"Det", {l_det, OpPattern::Injective}},
  };
  return t;
}

}  // namespace lowering
}  // namespace relay
}  // namespace tetune
