// Lowerings of ONNX Resize (opsets 10-18) and Upsample onto ops::resize_nd.
#include <cmath>

#include "relay_import/lowering_internal.h"
#include "te/ops/resize.h"

namespace tetune {
namespace relay {
namespace lowering {

namespace {

void check_scales(LowerContext &c, const Tensor &x, const std::vector<double> &scales) {
  for (size_t a = 0; a < scales.size(); a++)
    if (!std::isfinite(scales[a]) || scales[a] <= 0 || static_cast<double>(x.shape()[a]) * scales[a] > double(int64_t(1) << 24))
      c.attr_fail("scale " + std::to_string(scales[a]) + " of axis " + std::to_string(a) + " must be positive, finite and not overflow");
}

// Per-axis values given for `axes` only (opset 18) spread over all axes, others `fill`.
template <typename T>
std::vector<T> spread(LowerContext &c, const std::vector<T> &v, const std::vector<int64_t> &axes, int rank, T fill,
                      const std::string &what) {
  if (axes.empty()) {
    if (static_cast<int>(v.size()) != rank)
      c.shape_fail(what + " has " + std::to_string(v.size()) + " values, expected one per axis (" + std::to_string(rank) + ")");
    return v;
  }
  if (v.size() != axes.size())
    c.shape_fail(what + " has " + std::to_string(v.size()) + " values, expected one per entry of 'axes' (" + std::to_string(axes.size()) + ")");
  std::vector<T> r(rank, fill);
  for (size_t k = 0; k < axes.size(); k++) {
    int64_t a = axes[k] < 0 ? axes[k] + rank : axes[k];
    if (a < 0 || a >= rank) c.attr_fail("attribute 'axes' value " + std::to_string(axes[k]) + " is out of range");
    r[a] = v[k];
  }
  return r;
}

std::vector<Tensor> resize_common(LowerContext &c, const Tensor &x, std::vector<double> scales, std::vector<int64_t> sizes,
                                  ops::ResizeOptions o) {
  int R = x.ndim();
  Shape out(R);
  if (!sizes.empty()) {
    for (int a = 0; a < R; a++)
      if (sizes[a] < 1 || sizes[a] > (int64_t(1) << 24)) c.attr_fail("size " + std::to_string(sizes[a]) + " of axis " + std::to_string(a) + " is out of range");
    out = sizes;
    scales.clear();
  } else {
    check_scales(c, x, scales);
    for (int a = 0; a < R; a++) {
      double len = static_cast<double>(x.shape()[a]) * scales[a];
      if (o.coordinate_transformation_mode == "tf_crop_and_resize") len *= o.roi[a + R] - o.roi[a];
      out[a] = static_cast<int64_t>(std::floor(len));
    }
  }
  return {ops::resize_nd(x, out, scales, o, c.name())};
}

LOWER(l_resize) {
  Tensor x = c.in(0);
  int R = x.ndim();
  ops::ResizeOptions o;
  o.mode = c.node().attr_s("mode", "nearest");
  if (c.opset() < 11) {
    o.coordinate_transformation_mode = "asymmetric";
    o.nearest_mode = "floor";
    if (o.mode != "nearest" && o.mode != "linear") c.unsupported("mode " + o.mode + " at opset " + std::to_string(c.opset()));
    return resize_common(c, x, c.const_floats(1, "scales"), {}, o);
  }
  o.coordinate_transformation_mode = c.node().attr_s("coordinate_transformation_mode", "half_pixel");
  o.nearest_mode = c.node().attr_s("nearest_mode", "round_prefer_floor");
  o.cubic_coeff_a = c.node().attr_f("cubic_coeff_a", -0.75);
  o.exclude_outside = c.node().attr_i("exclude_outside", 0) != 0;
  o.extrapolation_value = c.node().attr_f("extrapolation_value", 0.0);
  if (o.coordinate_transformation_mode == "half_pixel_symmetric") c.unsupported("coordinate_transformation_mode half_pixel_symmetric");
  if (c.node().attr_s("keep_aspect_ratio_policy", "stretch") != "stretch") c.unsupported("keep_aspect_ratio_policy");
  std::vector<int64_t> axes = c.ints_attr("axes", {}, -1, -R);
  if (o.coordinate_transformation_mode == "tf_crop_and_resize") {
    if (!c.has(1) || !c.cdata(1)) c.unsupported("tf_crop_and_resize without a constant roi");
    auto roi = c.const_floats(1, "roi");
    if (axes.empty()) {
      o.roi = roi;
    } else {
      size_t n = axes.size();
      if (roi.size() != 2 * n) c.shape_fail("roi has " + std::to_string(roi.size()) + " values, expected " + std::to_string(2 * n));
      auto st = spread(c, std::vector<double>(roi.begin(), roi.begin() + n), axes, R, 0.0, "roi");
      auto en = spread(c, std::vector<double>(roi.begin() + n, roi.end()), axes, R, 1.0, "roi");
      o.roi = st;
      o.roi.insert(o.roi.end(), en.begin(), en.end());
    }
    if (static_cast<int>(o.roi.size()) != 2 * R) c.shape_fail("roi has " + std::to_string(o.roi.size()) + " values, expected " + std::to_string(2 * R));
  }
  if (c.has(3) && c.cdata(3) && c.cdata(3)->size() > 0) {
    std::vector<int64_t> s = spread(c, c.const_ints(3, "sizes"), axes, R, int64_t(-1), "sizes");
    for (int a = 0; a < R; a++)
      if (s[a] < 0) s[a] = x.shape()[a];
    return resize_common(c, x, {}, s, o);
  }
  if (!c.has(2) || !c.cdata(2) || c.cdata(2)->size() == 0) c.fail("neither scales nor sizes is given (or constant)");
  return resize_common(c, x, spread(c, c.const_floats(2, "scales"), axes, R, 1.0, "scales"), {}, o);
}

LOWER(l_upsample) {
  Tensor x = c.in(0);
  ops::ResizeOptions o;
  o.mode = c.node().attr_s("mode", "nearest");
  if (o.mode == "bilinear") o.mode = "linear";  // Upsample-7 accepts the older name
  if (o.mode != "nearest" && o.mode != "linear") c.unsupported("Upsample mode " + o.mode);
  o.coordinate_transformation_mode = "asymmetric";
  o.nearest_mode = "floor";
  std::vector<double> scales = c.opset() < 9 ? c.node().attr_floats("scales") : c.const_floats(1, "scales");
  if (static_cast<int>(scales.size()) != x.ndim())
    c.shape_fail("scales has " + std::to_string(scales.size()) + " values, expected " + std::to_string(x.ndim()));
  return resize_common(c, x, scales, {}, o);
}

}  // namespace

const OpTable &resize_ops() {
  static const OpTable t = {
      {"Resize", {l_resize, OpPattern::Injective}},
      {"Upsample", {l_upsample, OpPattern::Injective}},
  };
  return t;
}

}  // namespace lowering
}  // namespace relay
}  // namespace tetune
