#include "te/ops/pool_indices.h"

#include "base/errors.h"
#include "te/ops/common.h"

namespace tetune {
namespace ops {

Tensor max_pool2d_indices(const Tensor &x, const Tensor &y, const std::vector<int64_t> &k, const std::vector<int64_t> &s,
                          const std::vector<int64_t> &p, const std::vector<int64_t> &d, int64_t storage_order,
                          const std::string &name) {
  const std::string op = "MaxPool";
  check_rank(x, 4, op, "input");
  check_rank(y, 4, op, "pooled output");
  for (const auto *v : {&k, &s, &p, &d})
    if (v->size() != 2) throw AttributeError(op + ": kernel, strides, pads_begin and dilations need 2 values each, got " + list_str(*v));
  if (storage_order != 0 && storage_order != 1)
    throw AttributeError(op + ": attribute 'storage_order' = " + std::to_string(storage_order) + " (expected 0 or 1)");
  const Shape &xs = x.shape();
  if (y.shape()[0] != xs[0] || y.shape()[1] != xs[1])
    throw ShapeError(op + ": pooled '" + y.name() + "' " + shape_str(y.shape()) + " does not match input " + shape_str(xs));
  int64_t H = xs[2], W = xs[3];
  const int64_t kNone = int64_t(1) << 62;  // larger than every flat index
  Tensor first = compute(
      y.shape(),
      [&](const std::vector<Var> &i) {
        IterVar ry = reduce_axis(k[0], "ry"), rx = reduce_axis(k[1], "rx");
        Expr h = Expr(i[2]) * static_cast<int>(s[0]) + Expr(ry.var) * static_cast<int>(d[0]) - static_cast<int>(p[0]);
        Expr w = Expr(i[3]) * static_cast<int>(s[1]) + Expr(rx.var) * static_cast<int>(d[1]) - static_cast<int>(p[1]);
        Expr inside = h >= 0 && h < static_cast<int>(H) && w >= 0 && w < static_cast<int>(W);
        Expr hc = clamp(h, 0, static_cast<int>(H - 1)), wc = clamp(w, 0, static_cast<int>(W - 1));
        Expr hit = inside && x(i[0], i[1], hc, wc) == y(i[0], i[1], i[2], i[3]);
        // row-major flat index, which grows in scan order, so the min is the first hit
        Expr nc = cast(int64(), i[0]) * make_int(xs[1], int64()) + cast(int64(), i[1]);
        Expr flat = (nc * make_int(H, int64()) + cast(int64(), hc)) * make_int(W, int64()) + cast(int64(), wc);
        return tetune::min(select(hit, flat, make_int(kNone, int64())), {ry, rx});
      },
      name + ".first", "", {"n", "c", "h", "w"});
  annotate(first, "pool", {{"op", op}, {"kernel", list_str(k)}, {"strides", list_str(s)}});
  Tensor t = compute(
      y.shape(),
      [&](const std::vector<Var> &i) {
        Expr f = first(i[0], i[1], i[2], i[3]);
        Expr r = f;
        if (storage_order == 1) {
          Expr HW = make_int(H * W, int64()), Wi = make_int(W, int64()), Hi = make_int(H, int64());
          r = f / HW * HW + f % Wi * Hi + f / Wi % Hi;
        }
        return select(f == make_int(kNone, int64()), make_int(-1, int64()), r);
      },
      name, "", {"n", "c", "h", "w"});
  return annotate(t, "injective", {{"op", op}, {"storage_order", std::to_string(storage_order)}});
}

}  // namespace ops
}  // namespace tetune
