// Lowerings of the region and unpooling ops beside MaxPool onto te/ops:
// RoiAlign (ops::roi_align) and MaxUnpool (ops::max_unpool).
#include "relay_import/lowering_internal.h"
#include "te/ops/max_unpool.h"
#include "te/ops/roi_align.h"

namespace tetune {
namespace relay {
namespace lowering {

namespace {

LOWER(l_roi_align) {
  Tensor x = c.in_rank(0, 4, "X");
  Tensor rois = c.in_rank(1, 2, "rois");
  Tensor bi = c.in_rank(2, 1, "batch_indices");
  // opset 10 has no coordinate_transformation_mode and samples as output_half_pixel does
  std::string ctm = c.opset() < 16 ? "output_half_pixel" : c.node().attr_s("coordinate_transformation_mode", "half_pixel");
  return {ops::roi_align(x, rois, bi, c.node().attr_s("mode", "avg"), c.node().attr_i("output_height", 1),
                         c.node().attr_i("output_width", 1), c.node().attr_i("sampling_ratio", 0),
                         c.node().attr_f("spatial_scale", 1.0), ctm, c.name())};
}

LOWER(l_max_unpool) {
  Tensor x = c.in_min_rank(0, 3, "X");
  int R = x.ndim() - 2;
  auto k = c.ints_attr("kernel_shape", {}, R, 1);
  auto s = c.ints_attr("strides", std::vector<int64_t>(R, 1), R, 1);
  auto pads = c.ints_attr("pads", std::vector<int64_t>(2 * R, 0), 2 * R, 0);
  std::vector<int64_t> out;
  if (c.has(2)) {
    if (!c.cdata(2)) c.unsupported("output_shape computed at run time (it must be a constant)");
    out = c.const_ints(2, "output_shape");
    if (static_cast<int>(out.size()) != R + 2 || out[0] != x.shape()[0] || out[1] != x.shape()[1])
      c.shape_fail("output_shape " + shape_str(out) + " must be [N, C, spatial...] of X " + shape_str(x.shape()));
    out.erase(out.begin(), out.begin() + 2);
  }
  return {ops::max_unpool(x, c.in(1), k, s, pads, out, c.name())};
}

}  // namespace

const OpTable &unpool_ops() {
  static const OpTable t = {
      {"RoiAlign", {l_roi_align, OpPattern::Reduce}},
      {"MaxUnpool", {l_max_unpool, OpPattern::Injective}},
  };
  return t;
}

}  // namespace lowering
}  // namespace relay
}  // namespace tetune
