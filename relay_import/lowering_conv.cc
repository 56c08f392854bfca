// Conv over inputs that are not 2-D, which l_conv (lowering.cc) hands over:
// 1-D runs as the tuned 2-D conv2d over [N, C, 1, L] (so its schedules and
// workload keys apply), 3-D and more as the direct ops::conv_nd.
#include <algorithm>

#include "relay_import/lowering_internal.h"
#include "te/ops/conv.h"
#include "te/ops/conv_nd.h"
#include "te/ops/transform.h"

namespace tetune {
namespace relay {
namespace lowering {

std::vector<Tensor> conv_other_rank(LowerContext &c) {
  Tensor x = c.in_min_rank(0, 3, "X");
  int R = x.ndim() - 2;
  Tensor w = c.in_rank(1, R + 2, "W");
  Tensor b = c.has(2) ? c.in_rank(2, 1, "B") : Tensor();
  const Shape &xs = x.shape(), &ws = w.shape();
  std::vector<int64_t> k(ws.begin() + 2, ws.end()), one(R, 1);
  if (c.node().has_attr("kernel_shape") && c.ints_attr("kernel_shape", {}, R, 1) != k)
    c.shape_fail("attribute 'kernel_shape' does not match the weight shape " + shape_str(ws));
  auto s = c.ints_attr("strides", one, R, 1);
  auto d = c.ints_attr("dilations", one, R, 1);
  std::string ap = c.node().attr_s("auto_pad", "NOTSET");
  std::vector<int64_t> pads(2 * R, 0);
  if (ap == "NOTSET") {
    pads = c.ints_attr("pads", pads, 2 * R, 0);
  } else if (ap == "SAME_UPPER" || ap == "SAME_LOWER") {
    // output ceil(L / s); SAME_UPPER puts the odd pad at the end (ONNX Conv)
    for (int a = 0; a < R; a++) {
      int64_t L = xs[2 + a], span = d[a] * (k[a] - 1) + 1;
      int64_t total = std::max<int64_t>(((L + s[a] - 1) / s[a] - 1) * s[a] + span - L, 0);
      pads[a] = ap == "SAME_UPPER" ? total / 2 : total - total / 2;
      pads[a + R] = total - pads[a];
    }
  } else if (ap != "VALID") {
    c.unsupported("auto_pad " + ap);
  }
  int64_t group = c.node().attr_i("group", 1);
  if (R != 1) return {ops::conv_nd(x, w, b, s, pads, d, group, c.name())};
  Tensor x2 = ops::reshape(x, {xs[0], xs[1], 1, xs[2]}, c.name() + ".x2d");
  Tensor w2 = ops::reshape(w, {ws[0], ws[1], 1, ws[2]}, c.name() + ".w2d");
  Tensor y = ops::conv2d(x2, w2, b, {1, s[0]}, {0, pads[0], 0, pads[1]}, {1, d[0]}, group, c.name() + ".conv2d");
  const Shape &ys = y.shape();
  return {ops::reshape(y, {ys[0], ys[1], ys[3]}, c.name())};
}

}  // namespace lowering
}  // namespace relay
}  // namespace tetune
