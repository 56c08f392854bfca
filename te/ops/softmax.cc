#include "te/ops/softmax.h"

#include "base/errors.h"
#include "te/ops/common.h"

namespace tetune {
namespace ops {

namespace {
struct Parts {
  int ax;
  Shape red_shape;
  std::vector<std::string> names, red_names;
};
Parts parts(const Tensor &x, int64_t axis, const std::string &op) {
  check_float(x, op);
  Parts p;
  p.ax = normalize_axis(axis, x.ndim(), op);
  p.names = default_axis_names(x.ndim());
  for (int d = 0; d < x.ndim(); d++)
    if (d != p.ax) { p.red_shape.push_back(x.shape()[d]); p.red_names.push_back(p.names[d]); }
  return p;
}
// Index of the reduced (axis-less) tensor from full-rank indices.
std::vector<Expr> drop(const std::vector<Var> &i, int ax) {
  std::vector<Expr> r;
  for (int d = 0; d < static_cast<int>(i.size()); d++)
    if (d != ax) r.push_back(i[d]);
  return r;
}
// Full-rank index from reduced indices and the reduce var.
std::vector<Expr> insert(const std::vector<Var> &i, int ax, const Var &k) {
  std::vector<Expr> r(i.begin(), i.end());
  r.insert(r.begin() + ax, Expr(k));
  return r;
}
Tensor max_stage(const Tensor &x, const Parts &p, const std::string &name, const std::string &op) {
  Tensor m = compute(
      p.red_shape,
      [&](const std::vector<Var> &i) {
        IterVar k = reduce_axis(x.shape()[p.ax], "k");
        return tetune::max(x(insert(i, p.ax, k.var)), {k});
      },
      name + ".max", "", p.red_names);
  return annotate(m, "reduce", {{"op", op}, {"axis", std::to_string(p.ax)}});
}
}  // namespace

Tensor softmax(const Tensor &x, int64_t axis, const std::string &name) {
  Parts p = parts(x, axis, "Softmax");
  Tensor m = max_stage(x, p, name, "Softmax");
  Tensor e = compute(
      x.shape(),
      [&](const std::vector<Var> &i) { return tetune::exp(x(std::vector<Expr>(i.begin(), i.end())) - m(drop(i, p.ax))); },
      name + ".exp", "", p.names);
  annotate(e, "broadcast", {{"op", "Softmax"}, {"axis", std::to_string(p.ax)}});
  Tensor s = compute(
      p.red_shape,
      [&](const std::vector<Var> &i) {
        IterVar k = reduce_axis(x.shape()[p.ax], "k");
        return tetune::sum(e(insert(i, p.ax, k.var)), {k});
      },
      name + ".sum", "", p.red_names);
  annotate(s, "reduce", {{"op", "Softmax"}, {"axis", std::to_string(p.ax)}});
  // One division a row, not one an element (as MLAS does): s is in [1, n] or NaN (the row's
  // largest term is exp(0)), so 1 / s is finite and e * (1 / s) within an ulp of e / s.
  Tensor out = compute(
      x.shape(),
      [&](const std::vector<Var> &i) {
        return e(std::vector<Expr>(i.begin(), i.end())) * (make_float(1.0, x.dtype()) / s(drop(i, p.ax)));
      },
      name, "", p.names);
  return annotate(out, "softmax", {{"op", "Softmax"}, {"axis", std::to_string(p.ax)}});
}

Tensor log_softmax(const Tensor &x, int64_t axis, const std::string &name) {
  Parts p = parts(x, axis, "LogSoftmax");
  Tensor m = max_stage(x, p, name, "LogSoftmax");
  Tensor s = compute(
      p.red_shape,
      [&](const std::vector<Var> &i) {
        IterVar k = reduce_axis(x.shape()[p.ax], "k");
        std::vector<Expr> mi(i.begin(), i.end());
        return tetune::sum(tetune::exp(x(insert(i, p.ax, k.var)) - m(mi)), {k});
      },
      name + ".sum", "", p.red_names);
  annotate(s, "reduce", {{"op", "LogSoftmax"}, {"axis", std::to_string(p.ax)}});
  Tensor out = compute(
      x.shape(),
      [&](const std::vector<Var> &i) {
        auto r = drop(i, p.ax);
        return x(std::vector<Expr>(i.begin(), i.end())) - m(r) - tetune::log(s(r));
      },
      name, "", p.names);
  return annotate(out, "softmax", {{"op", "LogSoftmax"}, {"axis", std::to_string(p.ax)}});
}

}  // namespace ops
}  // namespace tetune
