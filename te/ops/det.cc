#include "te/ops/det.h"

#include <functional>

#include "base/errors.h"
#include "te/ops/common.h"

namespace tetune {
namespace ops {

Tensor det_small(const Tensor &x, const std::string &name) {
  const std::string op = "Det";
  check_float(x, op);
  int R = x.ndim();
  if (R < 2 || x.shape()[R - 1] != x.shape()[R - 2] || x.shape()[R - 1] > 3)
    throw ShapeError(op + ": input '" + x.name() + "' " + shape_str(x.shape()) + " must be [*, M, M] with M <= 3");
  int M = static_cast<int>(x.shape()[R - 1]);
  Shape out(x.shape().begin(), x.shape().end() - 2);
  DType dt = x.dtype();
  Tensor t = compute(
      out,
      [&](const std::vector<Var> &i) {
        auto a = [&](int r, int c) {
          std::vector<Expr> at(i.begin(), i.end());
          at.push_back(make_int(r));
          at.push_back(make_int(c));
          return cast(float64(), x(at));
        };
        Expr d;
        if (M == 1) d = a(0, 0);
        else if (M == 2) d = a(0, 0) * a(1, 1) - a(0, 1) * a(1, 0);
        else
          d = a(0, 0) * (a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1)) - a(0, 1) * (a(1, 0) * a(2, 2) - a(1, 2) * a(2, 0)) +
              a(0, 2) * (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0));
        return cast(dt, d);
      },
      name, "", default_axis_names(static_cast<int>(out.size())));
  return annotate(t, "injective", {{"op", op}});
}

}  // namespace ops
}  // namespace tetune
