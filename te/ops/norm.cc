#include "te/ops/norm.h"

#include "base/errors.h"
#include "te/ops/common.h"
#include "te/ops/elementwise.h"

namespace tetune {
namespace ops {

Tensor batch_norm_inference(const Tensor &x, const Tensor &scale, const Tensor &bias, const Tensor &mean,
                            const Tensor &var, double epsilon, const std::string &name) {
  const std::string op = "BatchNormalization";
  check_float(x, op);
  if (x.ndim() < 2) throw ShapeError(op + ": input '" + x.name() + "' must have rank >= 2, got " + shape_str(x.shape()));
  if (epsilon < 0) throw AttributeError(op + ": attribute 'epsilon' = " + num_str(epsilon) + " is negative");
  int64_t c = x.shape()[1];
  for (const Tensor *p : {&scale, &bias, &mean, &var}) {
    if (!p->defined()) throw ShapeError(op + ": a parameter tensor is undefined");
    if (p->shape() != Shape{c})
      throw ShapeError(op + ": parameter '" + p->name() + "' has shape " + shape_str(p->shape()) + ", expected " + std::to_string(c));
    check_same_dtype(x, *p, op);
  }
  DType dt = x.dtype();
  Tensor t = compute(
      x.shape(),
      [&](const std::vector<Var> &i) {
        Expr ch = i[1];
        return (x(std::vector<Expr>(i.begin(), i.end())) - mean(ch)) / tetune::sqrt(var(ch) + make_float(epsilon, dt)) *
                   scale(ch) + bias(ch);
      },
      name, "", default_axis_names(x.ndim()));
  return annotate(t, "broadcast", {{"op", op}, {"epsilon", num_str(epsilon)}});
}

Tensor layer_norm(const Tensor &x, const Tensor &scale, const Tensor &bias, int64_t axis, double epsilon,
                  const std::string &name) {
  return layer_norm_with_stats(x, scale, bias, axis, epsilon, name).y;
}

LayerNormOutputs layer_norm_with_stats(const Tensor &x, const Tensor &scale, const Tensor &bias, int64_t axis,
                                       double epsilon, const std::string &name) {
  const std::string op = "LayerNormalization";
  check_float(x, op);
  int r = x.ndim();
  int ax = normalize_axis(axis, r, op);
  if (epsilon < 0) throw AttributeError(op + ": attribute 'epsilon' = " + num_str(epsilon) + " is negative");
  Shape norm_shape(x.shape().begin() + ax, x.shape().end());
  Shape outer(x.shape().begin(), x.shape().begin() + ax);
  for (const Tensor *p : {&scale, &bias}) {
    if (!p->defined()) continue;
    check_same_dtype(x, *p, op);
    bool ok = p->ndim() <= static_cast<int>(norm_shape.size());
    if (ok) {
      try { ok = broadcast_shapes(p->shape(), norm_shape) == norm_shape; } catch (const ShapeError &) { ok = false; }
    }
    if (!ok)
      throw ShapeError(op + ": parameter '" + p->name() + "' of shape " + shape_str(p->shape()) +
                       " does not broadcast to the normalised shape " + shape_str(norm_shape));
  }
  if (!scale.defined()) throw ShapeError(op + ": scale is undefined");
  int64_t n = 1;
  for (auto d : norm_shape) n *= d;
  DType dt = x.dtype();
  auto names = default_axis_names(r);
  std::vector<std::string> outer_names(names.begin(), names.begin() + ax);
  auto full_index = [&](const std::vector<Var> &i, const std::vector<IterVar> &k) {
    std::vector<Expr> idx(i.begin(), i.end());
    for (const auto &a : k) idx.push_back(a.var);
    return idx;
  };
  auto make_raxes = [&]() {
    std::vector<IterVar> k;
    for (size_t d = 0; d < norm_shape.size(); d++) k.push_back(reduce_axis(norm_shape[d], "k" + std::to_string(d)));
    return k;
  };
  Expr inv_n = make_float(1.0 / static_cast<double>(n), dt);
  Tensor s = compute(
      outer,
      [&](const std::vector<Var> &i) {
        auto k = make_raxes();
        return tetune::sum(x(full_index(i, k)), k);
      },
      name + ".sum", "", outer_names);
  annotate(s, "reduce", {{"op", op}, {"axis", std::to_string(ax)}});
  Tensor v = compute(
      outer,
      [&](const std::vector<Var> &i) {
        auto k = make_raxes();
        Expr d = x(full_index(i, k)) - s(std::vector<Expr>(i.begin(), i.end())) * inv_n;
        return tetune::sum(d * d, k);
      },
      name + ".var_sum", "", outer_names);
  annotate(v, "reduce", {{"op", op}, {"axis", std::to_string(ax)}});
  Tensor out = compute(
      x.shape(),
      [&](const std::vector<Var> &i) {
        std::vector<Expr> o(i.begin(), i.begin() + ax);
        std::vector<Var> inner(i.begin() + ax, i.end());
        Expr y = (x(std::vector<Expr>(i.begin(), i.end())) - s(o) * inv_n) / tetune::sqrt(v(o) * inv_n + make_float(epsilon, dt));
        y = y * scale(broadcast_index(scale, norm_shape, inner));
        if (bias.defined()) y = y + bias(broadcast_index(bias, norm_shape, inner));
        return y;
      },
      name, "", names);
  annotate(out, "norm", {{"op", op}, {"axis", std::to_string(ax)}, {"epsilon", num_str(epsilon)}});
  // Statistics keep the normalised axes with extent 1 (ONNX Mean / InvStdDev shapes).
  Shape stat_shape = outer;
  stat_shape.resize(r, 1);
  Tensor mean = compute(
      stat_shape,
      [&](const std::vector<Var> &i) { return s(std::vector<Expr>(i.begin(), i.begin() + ax)) * inv_n; },
      name + ".mean", "", names);
  annotate(mean, "elemwise", {{"op", op}, {"axis", std::to_string(ax)}});
  Tensor inv_std = compute(
      stat_shape,
      [&](const std::vector<Var> &i) {
        std::vector<Expr> o(i.begin(), i.begin() + ax);
        return make_float(1.0, dt) / tetune::sqrt(v(o) * inv_n + make_float(epsilon, dt));
      },
      name + ".inv_std_dev", "", names);
  annotate(inv_std, "elemwise", {{"op", op}, {"axis", std::to_string(ax)}});
  return {out, mean, inv_std};
}

}  // namespace ops
}  // namespace tetune
