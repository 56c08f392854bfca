#include "te/ops/cumsum.h"

#include "te/ops/common.h"

namespace tetune {
namespace ops {

Tensor cumsum(const Tensor &x, int64_t axis, bool exclusive, bool reverse, const std::string &name) {
  int r = x.ndim();
  int ax = normalize_axis(axis, r, "CumSum", "axis");
  IterVar j = reduce_axis(x.shape()[ax], "k");  // not a default axis name ("i", "j", "n", "c", "h", "w", i0...)
  Tensor t = compute(
      x.shape(),
      [&](const std::vector<Var> &i) {
        std::vector<Expr> idx(i.begin(), i.end());
        idx[ax] = j.var;
        Expr in_range = reverse ? (exclusive ? Expr(j.var) > i[ax] : Expr(j.var) >= i[ax])
                                : (exclusive ? Expr(j.var) < i[ax] : Expr(j.var) <= i[ax]);
        return sum(select(in_range, x(idx), reduce_identity(ReduceOp::Sum, x.dtype())), {j});
      },
      name, "", default_axis_names(r));
  return annotate(t, "reduce",
                  {{"op", "CumSum"}, {"axis", std::to_string(ax)}, {"exclusive", exclusive ? "1" : "0"},
                   {"reverse", reverse ? "1" : "0"}});
}

}  // namespace ops
}  // namespace tetune
