#include "te/ops/topk.h"

#include "base/errors.h"
#include "te/ops/common.h"

namespace tetune {
namespace ops {

namespace {

// True when a (at position ia) comes before b (at ib) in the output order.
Expr before(const Expr &a, const Expr &ia, const Expr &b, const Expr &ib, bool largest) {
  Expr tie = ia < ib;
  if (!a.dtype().is_float()) return (largest ? a > b : a < b) || (a == b && tie);
  Expr na = is_nan(a), nb = is_nan(b);
  // NaN sorts above every number; two NaNs are equal
  Expr num = largest ? a > b : a < b;
  Expr nan_first = largest ? (na && !nb) : (!na && nb);
  Expr both_num = !na && !nb;
  return nan_first || (both_num && num) || (((na && nb) || (both_num && a == b)) && tie);
}

std::vector<Expr> with_axis(const std::vector<Var> &i, int ax, const Expr &v) {
  std::vector<Expr> r(i.begin(), i.end());
  r[ax] = v;
  return r;
}

}  // namespace

std::pair<Tensor, Tensor> topk(const Tensor &x, int64_t k, int64_t axis, bool largest, const std::string &name) {
  const std::string op = "TopK";
  if (x.ndim() < 1) throw ShapeError(op + ": input must have rank >= 1");
  int ax = normalize_axis(axis, x.ndim(), op);
  int64_t n = x.shape()[ax];
  if (k < 1 || k > n)
    throw ShapeError(op + ": k = " + std::to_string(k) + " must lie in [1, " + std::to_string(n) + "] (the extent of axis " +
                     std::to_string(ax) + ")");
  auto names = default_axis_names(x.ndim());
  Tensor rank = compute(
      x.shape(),
      [&](const std::vector<Var> &i) {
        IterVar l = reduce_axis(n, "l");
        Expr me = x(std::vector<Expr>(i.begin(), i.end())), other = x(with_axis(i, ax, l.var));
        return sum(cast(int32(), before(other, l.var, me, i[ax], largest)), {l});
      },
      name + ".rank", "", names);
  annotate(rank, "topk_rank", {{"op", op}, {"axis", std::to_string(ax)}, {"largest", largest ? "1" : "0"}});
  Shape os = x.shape();
  os[ax] = k;
  Tensor index = compute(
      os,
      [&](const std::vector<Var> &i) {
        IterVar l = reduce_axis(n, "l");
        return sum(select(rank(with_axis(i, ax, l.var)) == i[ax], cast(int64(), l.var), make_int(0, int64())), {l});
      },
      name + ".indices", "", names);
  annotate(index, "topk_index", {{"op", op}, {"axis", std::to_string(ax)}, {"k", std::to_string(k)}});
  Tensor value = compute(
      os,
      [&](const std::vector<Var> &i) {
        // the clamp only bounds the read for codegen: every index lies in [0, n)
        Expr at = clamp(cast(int32(), index(std::vector<Expr>(i.begin(), i.end()))), make_int(0), make_int(static_cast<int>(n - 1)));
        return x(with_axis(i, ax, at));
      },
      name, "", names);
  annotate(value, "injective", {{"op", op}});
  return {value, index};
}

}  // namespace ops
}  // namespace tetune
