#include "te/ops/grid_sample.h"

#include <functional>
#include <limits>

#include "base/errors.h"
#include "te/ops/common.h"

namespace tetune {
namespace ops {

namespace {
const std::string kOp = "GridSample";

Expr f64(double v) { return make_float(v, float64()); }

// One spatial axis: extent and the borders of the valid coordinate range.
struct Axis {
  int64_t len;
  double lo, hi;
};

// Reflects v into [lo, hi] by bouncing off the borders (the reference's _gs_reflect).
Expr reflect(const Expr &v, const Axis &a) {
  double rng = a.hi - a.lo;
  if (rng <= 0) return f64(a.lo);  // one pixel with align_corners: everything maps onto it
  auto bounce = [&](const Expr &dx, double from, double sign) {
    Expr n = tetune::floor(dx / f64(rng));
    Expr r = dx - n * f64(rng);
    Expr even = n - f64(2) * tetune::floor(n / f64(2)) == f64(0);
    // an even number of bounces leaves v moving away from `from`, an odd one towards it
    return select(even, f64(from) + f64(sign) * r, f64(sign > 0 ? a.hi : a.lo) - f64(sign) * r);
  };
  return select(v < f64(a.lo), bounce(f64(a.lo) - v, a.lo, 1),
                select(v > f64(a.hi), bounce(v - f64(a.hi), a.hi, -1), v));
}

// The pixel coordinate (float64) from normalized g, with the border / reflection of out-of-range values.
Expr pixel_coord(const Expr &g, const Axis &a, bool align, const std::string &padding) {
  double L = static_cast<double>(a.len);
  Expr v = align ? (g + f64(1)) / f64(2) * f64(L - 1) : ((g + f64(1)) * f64(L) - f64(1)) / f64(2);
  Expr out = v < f64(a.lo) || v > f64(a.hi);
  if (padding == "border") return select(out, clamp(v, f64(0), f64(L - 1)), v);
  if (padding == "reflection") return select(out, reflect(v, a), v);
  return v;
}

// Tap index i (int32) read along an axis: the index to load (always in range) and, for "zeros", whether it is inside.
struct Tap {
  Expr index, inside;
};

Tap tap(const Expr &i, const Axis &a, const std::string &padding) {
  int last = static_cast<int>(a.len - 1);
  if (padding == "zeros") return {clamp(i, make_int(0), make_int(last)), i >= make_int(0) && i <= make_int(last)};
  if (padding == "border") return {clamp(i, make_int(0), make_int(last)), Expr()};
  // reflection of the integer tap, truncated toward zero as the reference's int()
  Expr r = cast(int32(), reflect(cast(float64(), i), a));
  return {clamp(r, make_int(0), make_int(last)), Expr()};
}

// Keys' cubic weights (a = -0.75) of the taps floor - 1 .. floor + 2 at fraction t.
std::vector<Expr> cubic_weights(const Expr &t) {
  const double A = -0.75;
  auto near = [&](const Expr &d) { return ((f64(A + 2) * d - f64(A + 3)) * d) * d + f64(1); };
  auto far = [&](const Expr &d) { return ((f64(A) * d - f64(5 * A)) * d + f64(8 * A)) * d - f64(4 * A); };
  return {far(t + f64(1)), near(t), near(f64(1) - t), far(f64(2) - t)};
}
}  // namespace

Tensor grid_sample(const Tensor &x, const Tensor &grid, const std::string &mode_in, const std::string &padding,
                   bool align, const std::string &name) {
  check_float(x, kOp);
  check_float(grid, kOp);
  std::string mode = mode_in == "bilinear" ? "linear" : mode_in == "bicubic" ? "cubic" : mode_in;
  if (mode != "linear" && mode != "nearest" && mode != "cubic")
    throw AttributeError(kOp + ": attribute 'mode' = '" + mode_in + "' (expected linear / bilinear, nearest or cubic / bicubic)");
  if (padding != "zeros" && padding != "border" && padding != "reflection")
    throw AttributeError(kOp + ": attribute 'padding_mode' = '" + padding + "' (expected zeros, border or reflection)");
  int R = x.ndim() - 2;
  if (R < 1) throw ShapeError(kOp + ": input '" + x.name() + "' " + shape_str(x.shape()) + " needs rank >= 3");
  const Shape &xs = x.shape(), &gs = grid.shape();
  if (grid.ndim() != R + 2 || gs[0] != xs[0] || gs[R + 1] != R)
    throw ShapeError(kOp + ": grid '" + grid.name() + "' " + shape_str(gs) + " must be [N, O1..O" + std::to_string(R) + ", " +
                     std::to_string(R) + "] for input " + shape_str(xs));
  std::vector<Axis> axes(R);
  for (int d = 0; d < R; d++) {
    int64_t L = xs[2 + d];
    axes[d] = align ? Axis{L, 0.0, static_cast<double>(L - 1)} : Axis{L, -0.5, static_cast<double>(L) - 0.5};
  }
  Shape out = {xs[0], xs[1]};
  for (int d = 0; d < R; d++) out.push_back(gs[1 + d]);
  DType dt = x.dtype();
  Tensor t = compute(
      out,
      [&](const std::vector<Var> &i) {
        std::vector<Expr> coord(R);
        Expr any_nan;
        for (int d = 0; d < R; d++) {
          std::vector<Expr> gi = {i[0]};
          for (int e = 0; e < R; e++) gi.push_back(i[2 + e]);
          gi.push_back(make_int(R - 1 - d));  // grid's last axis lists the spatial axes innermost first
          Expr g = cast(float64(), grid(gi));
          Expr nan = is_nan(g);
          any_nan = any_nan.defined() ? (any_nan || nan) : nan;
          // a NaN coordinate gives NaN below; a defined coordinate keeps the index arithmetic defined
          coord[d] = pixel_coord(select(nan, f64(0), g), axes[d], align, padding);
        }
        std::vector<Expr> at = {i[0], i[1]};
        at.resize(R + 2);
        Expr val;
        if (mode == "nearest") {
          Expr inside;
          for (int d = 0; d < R; d++) {
            Expr c = clamp(tetune::round(coord[d]), f64(-2), f64(static_cast<double>(axes[d].len + 1)));
            Tap tp = tap(cast(int32(), c), axes[d], padding);
            at[2 + d] = tp.index;
            if (tp.inside.defined()) inside = inside.defined() ? (inside && tp.inside) : tp.inside;
          }
          Expr v = cast(float64(), x(at));
          val = inside.defined() ? select(inside, v, f64(0)) : v;
        } else {
          std::vector<std::vector<Tap>> taps(R);
          std::vector<std::vector<Expr>> weights(R);
          for (int d = 0; d < R; d++) {
            // clamped so the integer cast stays in range; every tap beyond the image reads as beyond it
            Expr c = clamp(coord[d], f64(-4), f64(static_cast<double>(axes[d].len + 3)));
            Expr f = tetune::floor(c), tf = c - f;
            Expr i0 = cast(int32(), f);
            std::vector<int> offs = mode == "linear" ? std::vector<int>{0, 1} : std::vector<int>{-1, 0, 1, 2};
            weights[d] = mode == "linear" ? std::vector<Expr>{f64(1) - tf, tf} : cubic_weights(tf);
            for (int o : offs) taps[d].push_back(tap(i0 + make_int(o), axes[d], padding));
          }
          // sum over every combination of taps of the product of their weights
          std::function<Expr(int, const Expr &, const Expr &)> blend = [&](int d, const Expr &w, const Expr &inside) -> Expr {
            if (d == R) {
              Expr v = cast(float64(), x(at));
              if (inside.defined()) v = select(inside, v, f64(0));
              return w * v;
            }
            Expr acc;
            for (size_t k = 0; k < taps[d].size(); k++) {
              at[2 + d] = taps[d][k].index;
              Expr in = taps[d][k].inside;
              Expr term = blend(d + 1, w.defined() ? w * weights[d][k] : weights[d][k],
                                !in.defined() ? inside : inside.defined() ? (inside && in) : in);
              acc = acc.defined() ? acc + term : term;
            }
            return acc;
          };
          val = blend(0, Expr(), Expr());
        }
        return cast(dt, select(any_nan, f64(std::numeric_limits<double>::quiet_NaN()), val));
      },
      name, "", default_axis_names(R + 2));
  return annotate(t, "grid_sample",
                  {{"op", kOp}, {"mode", mode}, {"padding_mode", padding}, {"align_corners", align ? "1" : "0"}});
}

}  // namespace ops
}  // namespace tetune
