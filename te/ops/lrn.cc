#include "te/ops/lrn.h"

#include "base/errors.h"
#include "te/ops/common.h"

namespace tetune {
namespace ops {

Tensor lrn(const Tensor &x, int64_t size, double alpha, double beta, double bias, const std::string &name) {
  const std::string op = "LRN";
  check_float(x, op);
  if (x.ndim() < 3) throw ShapeError(op + ": input " + shape_str(x.shape()) + " must be [N, C, D1, ...] (rank >= 3)");
  if (size < 1) throw AttributeError(op + ": attribute 'size' " + std::to_string(size) + " must be >= 1");
  int64_t C = x.shape()[1], lo = (size - 1) / 2;
  auto names = default_axis_names(x.ndim());
  auto f32 = [](double v) { return make_float(v, float32()); };
  Tensor sq = compute(
      x.shape(),
      [&](const std::vector<Var> &i) {
        IterVar r = reduce_axis(size, "r");
        Expr c = i[1] + r.var - make_int(lo);
        std::vector<Expr> at(i.begin(), i.end());
        at[1] = clamp(c, make_int(0), make_int(C - 1));  // in-bounds read; out-of-window terms are zeroed
        Expr v = cast(float32(), x(at));
        return sum(select(c >= make_int(0) && c < make_int(C), v * v, f32(0)), {r});
      },
      name + ".square_sum", "", names);
  annotate(sq, "lrn_square_sum", {{"op", op}, {"size", std::to_string(size)}});
  Tensor y = compute(
      x.shape(),
      [&](const std::vector<Var> &i) {
        std::vector<Expr> at(i.begin(), i.end());
        Expr d = pow(f32(bias) + f32(alpha / static_cast<double>(size)) * sq(at), f32(beta));
        return cast(x.dtype(), cast(float32(), x(at)) / d);
      },
      name, "", names);
  return annotate(y, "lrn", {{"op", op}, {"alpha", num_str(alpha)}, {"beta", num_str(beta)}, {"bias", num_str(bias)}});
}

}  // namespace ops
}  // namespace tetune
