#include "te/ops/roi_align.h"

#include <algorithm>
#include <cmath>

#include "base/errors.h"
#include "te/ops/common.h"

namespace tetune {
namespace ops {

namespace {
const std::string kOp = "RoiAlign";

// One roi's sampling geometry along one axis, as expressions of the roi index.
struct RoiAxis {
  Expr start, bin, grid;  // grid: samples per bin, int32
};
}  // namespace

Tensor roi_align(const Tensor &x, const Tensor &rois, const Tensor &bi, const std::string &mode, int64_t OH, int64_t OW,
                 int64_t sampling_ratio, double spatial_scale, const std::string &ctm, const std::string &name) {
  check_rank(x, 4, kOp, "X");
  check_rank(rois, 2, kOp, "rois");
  check_rank(bi, 1, kOp, "batch_indices");
  check_float(x, kOp);
  check_same_dtype(x, rois, kOp);
  if (bi.dtype().is_float() || bi.dtype().is_bool())
    throw DTypeError(kOp + ": batch_indices '" + bi.name() + "' must be an integer tensor");
  int64_t R = rois.shape()[0];
  if (rois.shape()[1] != 4 || bi.shape()[0] != R)
    throw ShapeError(kOp + ": rois " + shape_str(rois.shape()) + " must be [R, 4] and batch_indices " + shape_str(bi.shape()) + " [R]");
  if (mode != "avg" && mode != "max") throw AttributeError(kOp + ": attribute 'mode' '" + mode + "' must be avg or max");
  if (ctm != "half_pixel" && ctm != "output_half_pixel")
    throw AttributeError(kOp + ": attribute 'coordinate_transformation_mode' '" + ctm + "' must be half_pixel or output_half_pixel");
  if (OH < 1 || OW < 1) throw AttributeError(kOp + ": output_height / output_width must be >= 1");
  if (sampling_ratio < 0) throw AttributeError(kOp + ": attribute 'sampling_ratio' must be >= 0");
  const Shape &xs = x.shape();
  int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3];
  bool avg = mode == "avg";
  DType dt = x.dtype(), acc = dt.bits == 64 ? float64() : float32();
  auto F = [&](double v) { return make_float(v, acc); };
  double off = ctm == "half_pixel" ? 0.5 : 0.0;
  // the adaptive grid has ceil(bin) samples, data-dependent; bounded so the reduction is static,
  // by a roi twice the feature map's size (rois crossing its border stay exact)
  int64_t GH = sampling_ratio > 0 ? sampling_ratio : std::max<int64_t>(1, (2 * H + 2 + OH - 1) / OH);
  int64_t GW = sampling_ratio > 0 ? sampling_ratio : std::max<int64_t>(1, (2 * W + 2 + OW - 1) / OW);
  auto axis = [&](const Expr &r, int lo_col, int64_t out, int64_t gmax) {
    Expr start = cast(acc, rois(r, make_int(lo_col))) * F(spatial_scale) - F(off);
    Expr size = cast(acc, rois(r, make_int(lo_col + 2))) * F(spatial_scale) - F(off) - start;
    if (off == 0) size = max(size, F(1));
    Expr bin = size / F(static_cast<double>(out));
    Expr grid = sampling_ratio > 0 ? make_int(sampling_ratio)
                                   : cast(int32(), clamp(ceil(bin), F(0), F(static_cast<double>(gmax))));
    return RoiAxis{start, bin, grid};
  };
  std::map<std::string, std::string> attrs = {{"op", kOp}, {"mode", mode}, {"coordinate_transformation_mode", ctm},
                                               {"sampling_ratio", std::to_string(sampling_ratio)}};
  Tensor accum = compute(
      {R, C, OH, OW},
      [&](const std::vector<Var> &i) {
        IterVar iy = reduce_axis(GH, "iy"), ix = reduce_axis(GW, "ix");
        RoiAxis ay = axis(i[0], 1, OH, GH), ax = axis(i[0], 0, OW, GW);
        Expr n = clamp(cast(int32(), bi(i[0])), make_int(0), make_int(N - 1));
        auto coord = [&](const RoiAxis &a, const Var &p, const IterVar &g) {
          return a.start + cast(acc, Expr(p)) * a.bin + (cast(acc, Expr(g.var)) + F(0.5)) * a.bin / cast(acc, max(a.grid, make_int(1)));
        };
        Expr y = coord(ay, i[2], iy), xx = coord(ax, i[3], ix);
        Expr outside = y < F(-1) || y > F(static_cast<double>(H)) || xx < F(-1) || xx > F(static_cast<double>(W));
        // clamped to [0, extent] (beyond it the sample is outside anyway) so the integer cast stays in range
        auto taps = [&](Expr v, int64_t L, Expr &lo, Expr &hi, Expr &frac) {
          v = clamp(v, F(0), F(static_cast<double>(L)));
          Expr f = floor(v), last = F(static_cast<double>(L - 1));
          Expr at_end = f >= last;
          lo = cast(int32(), select(at_end, last, f));
          hi = cast(int32(), select(at_end, last, f + F(1)));
          frac = select(at_end, F(0), v - f);
        };
        Expr yl, yh, ly, xl, xh, lx;
        taps(y, H, yl, yh, ly);
        taps(xx, W, xl, xh, lx);
        Expr hy = F(1) - ly, hx = F(1) - lx;
        auto v = [&](const Expr &h, const Expr &w) { return cast(acc, x(n, i[1], h, w)); };
        Expr t1 = hy * hx * v(yl, xl), t2 = hy * lx * v(yl, xh), t3 = ly * hx * v(yh, xl), t4 = ly * lx * v(yh, xh);
        Expr val = select(outside, F(0), avg ? t1 + t2 + t3 + t4 : max(max(max(t1, t2), t3), t4));
        Expr in_grid = Expr(iy.var) < ay.grid && Expr(ix.var) < ax.grid;
        if (avg) return tetune::sum(select(in_grid, val, F(0)), {iy, ix});
        return tetune::max(select(in_grid, val, min_value(acc)), {iy, ix});
      },
      name + ".acc", "", {"r", "c", "h", "w"});
  annotate(accum, "roi_align", attrs);
  Tensor y = compute(
      {R, C, OH, OW},
      [&](const std::vector<Var> &i) {
        Expr count = axis(i[0], 1, OH, GH).grid * axis(i[0], 0, OW, GW).grid;
        Expr a = accum(i[0], i[1], i[2], i[3]);
        Expr r = avg ? a / cast(acc, max(count, make_int(1))) : select(count > make_int(0), a, F(0));
        return cast(dt, r);
      },
      name, "", {"r", "c", "h", "w"});
  return annotate(y, "injective", attrs);
}

}  // namespace ops
}  // namespace tetune
