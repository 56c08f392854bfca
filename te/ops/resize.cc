#include "te/ops/resize.h"

#include <cmath>
#include <functional>

#include "base/errors.h"
#include "te/ops/common.h"

namespace tetune {
namespace ops {

namespace {
const std::string kOp = "Resize";

Expr f64(double v) { return make_float(v, float64()); }

struct Axis {
  int64_t in = 1, out = 1;
  double scale = 1, length = 1;  // length: in * scale unfloored (out when sizes were given)
  double roi_start = 0, roi_end = 1;
  bool copy = true;              // out == in, scale 1, full roi: the index itself
};

// Input coordinate (float64) of output index i along an axis.
Expr source_coord(const Expr &i, const Axis &a, const std::string &ctm) {
  Expr x = cast(float64(), i);
  if (ctm == "half_pixel") return (x + f64(0.5)) / f64(a.scale) - f64(0.5);
  if (ctm == "pytorch_half_pixel") return a.length > 1 ? (x + f64(0.5)) / f64(a.scale) - f64(0.5) : f64(0);
  if (ctm == "align_corners") return a.length == 1 ? f64(0) : x * f64(static_cast<double>(a.in - 1)) / f64(a.length - 1);
  if (ctm == "asymmetric") return x / f64(a.scale);
  if (ctm == "tf_half_pixel_for_nn") return (x + f64(0.5)) / f64(a.scale);
  // tf_crop_and_resize
  double span = (a.roi_end - a.roi_start) * static_cast<double>(a.in - 1), start = a.roi_start * static_cast<double>(a.in - 1);
  if (a.out == 1) return f64(span / 2 + start);
  return x * f64(span / static_cast<double>(a.out - 1)) + f64(start);
}

Expr nearest_index(const Expr &c, const std::string &nm) {
  if (nm == "round_prefer_floor") return tetune::ceil(c - f64(0.5));
  if (nm == "round_prefer_ceil") return tetune::floor(c + f64(0.5));
  if (nm == "floor") return tetune::floor(c);
  return tetune::ceil(c);
}

Expr to_index(const Expr &c, int64_t in) { return clamp(cast(int32(), c), make_int(0), make_int(static_cast<int>(in - 1))); }

// Taps of one interpolated axis: clamped indices and (normalized) float64 weights.
struct Taps {
  std::vector<Expr> index, weight;
};

Taps taps_of(const Expr &c, const Axis &a, const ResizeOptions &o) {
  Expr f = tetune::floor(c);
  Expr t = c - f;
  Expr i0 = cast(int32(), f);
  std::vector<int> offs;
  std::vector<Expr> w;
  if (o.mode == "linear") {
    offs = {0, 1};
    w = {f64(1) - t, t};
  } else {
    double A = o.cubic_coeff_a;
    auto near = [&](const Expr &d) { return (f64(A + 2) * d - f64(A + 3)) * d * d + f64(1); };
    auto far = [&](const Expr &d) { return ((f64(A) * d - f64(5 * A)) * d + f64(8 * A)) * d - f64(4 * A); };
    offs = {-1, 0, 1, 2};
    w = {far(t + f64(1)), near(t), near(f64(1) - t), far(f64(2) - t)};
  }
  Taps r;
  Expr total;
  for (size_t k = 0; k < offs.size(); k++) {
    Expr idx = i0 + make_int(offs[k]);
    if (o.exclude_outside) w[k] = select(idx >= make_int(0) && idx < make_int(static_cast<int>(a.in)), w[k], f64(0));
    total = k == 0 ? w[k] : total + w[k];
    r.index.push_back(clamp(idx, make_int(0), make_int(static_cast<int>(a.in - 1))));
  }
  for (auto &x : w) r.weight.push_back(o.exclude_outside ? x / total : x);
  return r;
}

void check_options(const ResizeOptions &o) {
  const std::string &m = o.mode, &ctm = o.coordinate_transformation_mode, &nm = o.nearest_mode;
  if (m != "nearest" && m != "linear" && m != "cubic")
    throw AttributeError(kOp + ": attribute 'mode' = '" + m + "' (expected nearest, linear or cubic)");
  if (ctm != "half_pixel" && ctm != "pytorch_half_pixel" && ctm != "align_corners" && ctm != "asymmetric" &&
      ctm != "tf_half_pixel_for_nn" && ctm != "tf_crop_and_resize")
    throw AttributeError(kOp + ": attribute 'coordinate_transformation_mode' = '" + ctm + "' is not supported");
  if (nm != "round_prefer_floor" && nm != "round_prefer_ceil" && nm != "floor" && nm != "ceil")
    throw AttributeError(kOp + ": attribute 'nearest_mode' = '" + nm + "' is not supported");
}
}  // namespace

Tensor resize_nd(const Tensor &x, const Shape &out_shape, const std::vector<double> &scales, const ResizeOptions &o,
                 const std::string &name) {
  check_float(x, kOp);
  check_options(o);
  int R = x.ndim();
  const std::string &ctm = o.coordinate_transformation_mode;
  if (static_cast<int>(out_shape.size()) != R)
    throw AttributeError(kOp + ": output shape " + shape_str(out_shape) + " must have the input's rank " + std::to_string(R));
  if (!scales.empty() && static_cast<int>(scales.size()) != R)
    throw AttributeError(kOp + ": attribute 'scales' " + float_list_str(scales) + " must hold one value per axis");
  bool crop = ctm == "tf_crop_and_resize";
  if (crop && static_cast<int>(o.roi.size()) != 2 * R)
    throw AttributeError(kOp + ": roi " + float_list_str(o.roi) + " must hold 2 * rank = " + std::to_string(2 * R) + " values");
  std::vector<Axis> axes(R);
  for (int d = 0; d < R; d++) {
    Axis &a = axes[d];
    a.in = x.shape()[d];
    a.out = out_shape[d];
    if (a.out < 1) throw AttributeError(kOp + ": output extent " + std::to_string(a.out) + " of axis " + std::to_string(d) + " must be >= 1");
    if (scales.empty()) {
      a.scale = static_cast<double>(a.out) / static_cast<double>(a.in);
      a.length = static_cast<double>(a.out);
    } else {
      if (!(scales[d] > 0)) throw AttributeError(kOp + ": scale " + num_str(scales[d]) + " of axis " + std::to_string(d) + " must be > 0");
      a.scale = scales[d];
      a.length = static_cast<double>(a.in) * scales[d];
    }
    if (crop) a.roi_start = o.roi[d], a.roi_end = o.roi[d + R];
    a.copy = a.out == a.in && a.scale == 1.0 && a.roi_start == 0.0 && a.roi_end == 1.0;
  }
  DType dt = x.dtype();
  Tensor t = compute(
      out_shape,
      [&](const std::vector<Var> &i) {
        std::vector<Expr> coord(R);
        Expr inside;  // tf_crop_and_resize: every coordinate within [0, in - 1]
        for (int d = 0; d < R; d++) {
          if (axes[d].copy) continue;
          coord[d] = source_coord(i[d], axes[d], ctm);
          if (crop) {
            Expr ok = coord[d] >= f64(0) && coord[d] <= f64(static_cast<double>(axes[d].in - 1));
            inside = inside.defined() ? (inside && ok) : ok;
          }
        }
        Expr val;
        if (o.mode == "nearest") {
          std::vector<Expr> at(R);
          for (int d = 0; d < R; d++) at[d] = axes[d].copy ? Expr(i[d]) : to_index(nearest_index(coord[d], o.nearest_mode), axes[d].in);
          val = x(at);
        } else {
          std::vector<Taps> taps(R);
          for (int d = 0; d < R; d++)
            if (!axes[d].copy) taps[d] = taps_of(coord[d], axes[d], o);
          // sum over every combination of taps of the product of their weights
          std::vector<Expr> at(R);
          std::function<Expr(int, const Expr &)> blend = [&](int d, const Expr &w) -> Expr {
            if (d == R) {
              Expr v = cast(float32(), x(at));
              return w.defined() ? cast(float32(), w) * v : v;
            }
            if (axes[d].copy) {
              at[d] = i[d];
              return blend(d + 1, w);
            }
            Expr acc;
            for (size_t k = 0; k < taps[d].index.size(); k++) {
              at[d] = taps[d].index[k];
              Expr term = blend(d + 1, w.defined() ? w * taps[d].weight[k] : taps[d].weight[k]);
              acc = acc.defined() ? acc + term : term;
            }
            return acc;
          };
          val = cast(dt, blend(0, Expr()));
        }
        return inside.defined() ? select(inside, val, make_float(o.extrapolation_value, dt)) : val;
      },
      name, "", default_axis_names(R));
  std::vector<double> sc;
  for (auto &a : axes) sc.push_back(a.scale);
  return annotate(t, o.mode == "nearest" ? "injective" : "resize",
                  {{"op", kOp}, {"mode", o.mode}, {"coordinate_transformation_mode", ctm}, {"nearest_mode", o.nearest_mode},
                   {"scales", float_list_str(sc)}});
}

Tensor resize(const Tensor &x, const std::vector<int64_t> &sizes, const std::string &mode, const std::string &ctm,
              const std::string &nm, const std::string &name) {
  check_rank(x, 4, kOp, "input");
  if (sizes.size() != 2 || sizes[0] < 1 || sizes[1] < 1)
    throw AttributeError(kOp + ": attribute 'sizes' " + list_str(sizes) + " must be two extents >= 1");
  ResizeOptions o;
  o.mode = mode, o.coordinate_transformation_mode = ctm, o.nearest_mode = nm;
  if (ctm == "tf_crop_and_resize") throw AttributeError(kOp + ": tf_crop_and_resize needs a roi (use resize_nd)");
  return resize_nd(x, {x.shape()[0], x.shape()[1], sizes[0], sizes[1]}, {}, o, name);
}

Tensor resize_scales(const Tensor &x, const std::vector<double> &scales, const std::string &mode, const std::string &ctm,
                     const std::string &nm, const std::string &name) {
  check_rank(x, 4, kOp, "input");
  if (scales.size() != 2 || !(scales[0] > 0) || !(scales[1] > 0))
    throw AttributeError(kOp + ": attribute 'scales' " + float_list_str(scales) + " must be two values > 0");
  int64_t OH = static_cast<int64_t>(std::floor(static_cast<double>(x.shape()[2]) * scales[0]));
  int64_t OW = static_cast<int64_t>(std::floor(static_cast<double>(x.shape()[3]) * scales[1]));
  if (OH < 1 || OW < 1) throw AttributeError(kOp + ": attribute 'scales' " + float_list_str(scales) + " gives an empty output");
  ResizeOptions o;
  o.mode = mode, o.coordinate_transformation_mode = ctm, o.nearest_mode = nm;
  if (ctm == "tf_crop_and_resize") throw AttributeError(kOp + ": tf_crop_and_resize needs a roi (use resize_nd)");
  return resize_nd(x, {x.shape()[0], x.shape()[1], OH, OW}, {1.0, 1.0, scales[0], scales[1]}, o, name);
}

}  // namespace ops
}  // namespace tetune
