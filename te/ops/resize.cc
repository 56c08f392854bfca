#include "te/ops/resize.h"

#include <cmath>

#include "base/errors.h"
#include "te/ops/common.h"

namespace tetune {
namespace ops {

namespace {
const std::string kOp = "Resize";

Expr f32(double v) { return make_float(v, float32()); }

// Input coordinate (float32) of output position i along an axis.
Expr source_coord(const Expr &i, int64_t in, int64_t out, double scale, const std::string &ctm) {
  Expr x = tetune::cast(float32(), i);
  if (ctm == "half_pixel") return (x + f32(0.5)) / f32(scale) - f32(0.5);
  if (ctm == "pytorch_half_pixel") return out > 1 ? (x + f32(0.5)) / f32(scale) - f32(0.5) : f32(0);
  if (ctm == "align_corners") return out == 1 ? f32(0) : x * f32(static_cast<double>(in - 1)) / f32(static_cast<double>(out - 1));
  if (ctm == "asymmetric") return x / f32(scale);
  return (x + f32(0.5)) / f32(scale);  // tf_half_pixel_for_nn
}

Expr nearest_index(const Expr &c, int64_t in, const std::string &nm) {
  Expr r;
  if (nm == "round_prefer_floor") r = tetune::ceil(c - f32(0.5));
  else if (nm == "round_prefer_ceil") r = tetune::floor(c + f32(0.5));
  else if (nm == "floor") r = tetune::floor(c);
  else r = tetune::ceil(c);
  return clamp(tetune::cast(int32(), r), 0, static_cast<int>(in - 1));
}

Tensor resize_impl(const Tensor &x, int64_t OH, int64_t OW, double sh, double sw, const std::string &mode,
                   const std::string &ctm, const std::string &nm, const std::string &name) {
  check_rank(x, 4, kOp, "input");
  check_float(x, kOp);
  if (mode != "nearest" && mode != "linear")
    throw AttributeError(kOp + ": attribute 'mode' = '" + mode + "' (expected nearest or linear)");
  if (ctm != "half_pixel" && ctm != "pytorch_half_pixel" && ctm != "align_corners" && ctm != "asymmetric" &&
      ctm != "tf_half_pixel_for_nn")
    throw AttributeError(kOp + ": attribute 'coordinate_transformation_mode' = '" + ctm + "' is not supported");
  if (nm != "round_prefer_floor" && nm != "round_prefer_ceil" && nm != "floor" && nm != "ceil")
    throw AttributeError(kOp + ": attribute 'nearest_mode' = '" + nm + "' is not supported");
  int64_t H = x.shape()[2], W = x.shape()[3];
  DType dt = x.dtype();
  Tensor t = compute(
      {x.shape()[0], x.shape()[1], OH, OW},
      [&](const std::vector<Var> &i) {
        Expr ch = source_coord(i[2], H, OH, sh, ctm), cw = source_coord(i[3], W, OW, sw, ctm);
        if (mode == "nearest") return x(i[0], i[1], nearest_index(ch, H, nm), nearest_index(cw, W, nm));
        Expr fh0 = tetune::floor(ch), fw0 = tetune::floor(cw);
        Expr ah = ch - fh0, aw = cw - fw0;
        Expr h0 = tetune::cast(int32(), fh0), w0 = tetune::cast(int32(), fw0);
        int hm = static_cast<int>(H - 1), wm = static_cast<int>(W - 1);
        Expr h0c = clamp(h0, 0, hm), h1c = clamp(h0 + 1, 0, hm), w0c = clamp(w0, 0, wm), w1c = clamp(w0 + 1, 0, wm);
        auto at = [&](const Expr &h, const Expr &w) { return tetune::cast(float32(), x(i[0], i[1], h, w)); };
        Expr top = at(h0c, w0c) * (f32(1) - aw) + at(h0c, w1c) * aw;
        Expr bot = at(h1c, w0c) * (f32(1) - aw) + at(h1c, w1c) * aw;
        return tetune::cast(dt, top * (f32(1) - ah) + bot * ah);
      },
      name, "", {"n", "c", "h", "w"});
  return annotate(t, mode == "nearest" ? "injective" : "resize",
                  {{"op", kOp}, {"mode", mode}, {"coordinate_transformation_mode", ctm}, {"nearest_mode", nm},
                   {"scales", float_list_str({sh, sw})}});
}
}  // namespace

Tensor resize(const Tensor &x, const std::vector<int64_t> &sizes, const std::string &mode, const std::string &ctm,
              const std::string &nm, const std::string &name) {
  check_rank(x, 4, kOp, "input");
  if (sizes.size() != 2 || sizes[0] < 1 || sizes[1] < 1)
    throw AttributeError(kOp + ": attribute 'sizes' " + list_str(sizes) + " must be two extents >= 1");
  double sh = static_cast<double>(sizes[0]) / static_cast<double>(x.shape()[2]);
  double sw = static_cast<double>(sizes[1]) / static_cast<double>(x.shape()[3]);
  return resize_impl(x, sizes[0], sizes[1], sh, sw, mode, ctm, nm, name);
}

Tensor resize_scales(const Tensor &x, const std::vector<double> &scales, const std::string &mode, const std::string &ctm,
                     const std::string &nm, const std::string &name) {
  check_rank(x, 4, kOp, "input");
  if (scales.size() != 2 || !(scales[0] > 0) || !(scales[1] > 0))
    throw AttributeError(kOp + ": attribute 'scales' " + float_list_str(scales) + " must be two values > 0");
  int64_t OH = static_cast<int64_t>(std::floor(static_cast<double>(x.shape()[2]) * scales[0]));
  int64_t OW = static_cast<int64_t>(std::floor(static_cast<double>(x.shape()[3]) * scales[1]));
  if (OH < 1 || OW < 1) throw AttributeError(kOp + ": attribute 'scales' " + float_list_str(scales) + " gives an empty output");
  return resize_impl(x, OH, OW, scales[0], scales[1], mode, ctm, nm, name);
}

}  // namespace ops
}  // namespace tetune
