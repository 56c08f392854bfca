#include "te/ops/max_unpool.h"

#include "base/errors.h"
#include "te/ops/common.h"

namespace tetune {
namespace ops {

namespace {
const std::string kOp = "MaxUnpool";
constexpr int64_t kMaxWindows = 64;

}  // namespace

Tensor max_unpool(const Tensor &x, const Tensor &ind, const std::vector<int64_t> &k, const std::vector<int64_t> &s,
                  const std::vector<int64_t> &pads, const std::vector<int64_t> &out_in, const std::string &name) {
  int R = x.ndim() - 2;
  if (R < 1) throw ShapeError(kOp + ": input '" + x.name() + "' " + shape_str(x.shape()) + " needs rank >= 3");
  if (ind.shape() != x.shape())
    throw ShapeError(kOp + ": indices '" + ind.name() + "' " + shape_str(ind.shape()) + " must have X's shape " + shape_str(x.shape()));
  if (!ind.dtype().is_int() && !ind.dtype().is_uint()) throw DTypeError(kOp + ": indices '" + ind.name() + "' must be integer");
  check_attr_list(k, R, 1, kOp, "kernel_shape");
  check_attr_list(s, R, 1, kOp, "strides");
  check_attr_list(pads, 2 * R, 0, kOp, "pads");
  const Shape &xs = x.shape();
  Shape out = {xs[0], xs[1]};
  std::vector<int64_t> windows(R);
  int64_t total_windows = 1;
  for (int a = 0; a < R; a++) {
    int64_t def = (xs[2 + a] - 1) * s[a] + k[a] - pads[a] - pads[a + R];
    int64_t o = out_in.empty() ? def : out_in.at(a);
    if (!out_in.empty() && static_cast<int>(out_in.size()) != R)
      throw ShapeError(kOp + ": output_shape " + list_str(out_in) + " must have " + std::to_string(R) + " spatial extents");
    if (o < 1 || o > (int64_t(1) << 24)) throw ShapeError(kOp + ": output extent " + std::to_string(o) + " of spatial axis " + std::to_string(a));
    out.push_back(o);
    windows[a] = (k[a] + s[a] - 1) / s[a];
    total_windows *= windows[a];
  }
  if (total_windows > kMaxWindows)
    throw AttributeError(kOp + ": kernel_shape " + list_str(k) + " over strides " + list_str(s) + " gives " + std::to_string(total_windows) +
                         " windows per output, more than " + std::to_string(kMaxWindows));
  Tensor y = compute(
      out,
      [&](const std::vector<Var> &i) {
        DType i64 = int64();
        Expr flat = cast(i64, Expr(i[0])) * make_int(xs[1], i64) + cast(i64, Expr(i[1]));
        for (int a = 0; a < R; a++) flat = flat * make_int(out[2 + a], i64) + cast(i64, Expr(i[2 + a]));
        Expr v = x.dtype().is_float() ? make_float(0, x.dtype()) : make_int(0, x.dtype());
        if (x.dtype().is_bool()) v = cast(x.dtype(), make_int(0));
        for (int64_t w = 0; w < total_windows; w++) {
          std::vector<Expr> at = {i[0], i[1]};
          Expr ok;
          int64_t rest = w;
          for (int a = R - 1; a >= 0; a--) {
            int64_t back = rest % windows[a];
            rest /= windows[a];
            // the window p starts at p*s - begin; o lies in it when 0 <= o + begin - p*s < k
            Expr q = Expr(i[2 + a]) + static_cast<int>(pads[a]);
            Expr p = q / static_cast<int>(s[a]) - static_cast<int>(back);
            Expr in = p >= 0 && p < static_cast<int>(xs[2 + a]) && q - p * static_cast<int>(s[a]) < static_cast<int>(k[a]);
            ok = ok.defined() ? (in && ok) : in;
            at.insert(at.begin() + 2, clamp(p, 0, static_cast<int>(xs[2 + a] - 1)));
          }
          v = select(ok && cast(i64, ind(at)) == flat, x(at), v);
        }
        return v;
      },
      name, "", default_axis_names(R + 2));
  return annotate(y, "injective", {{"op", kOp}, {"kernel_shape", list_str(k)}, {"strides", list_str(s)}, {"pads", list_str(pads)}});
}

}  // namespace ops
}  // namespace tetune
