// ONNX lowerings: losses and normalization extras (see lowering_internal.h).
#include "relay_import/lowering_internal.h"

#include <algorithm>
#include <cmath>

#include "te/ops/common.h"
#include "te/ops/norm.h"
#include "te/ops/softmax.h"

namespace tetune {
namespace relay {
namespace lowering {

namespace {

bool wants_output(LowerContext &c, size_t i) { return c.node().outputs.size() > i && c.node().outputs[i] >= 0; }

// ---- losses ---------------------------------------------------------------------
// ONNX NegativeLogLikelihoodLoss over log-probabilities x [N, C, d1..dk] and
// labels t [N, d1..dk]: loss = -x[n, t, d] * w[t], 0 where t == ignore_index.
// reduction "none" keeps [N, d1..dk]; "sum" and "mean" are TE reduces over every
// axis to a scalar, "mean" divided by the summed weights of the counted elements.
Tensor nll_loss(LowerContext &c, const Tensor &x, const Tensor &labels, const Tensor &weight, const std::string &name) {
  if (x.ndim() < 2) c.shape_fail("input 0 has rank " + std::to_string(x.ndim()) + ", expected rank >= 2 ([N, C, ...])");
  if (!x.dtype().is_float()) c.unsupported("input dtype " + x.dtype().str());
  if (labels.dtype() != int32() && labels.dtype() != int64())
    c.fail("labels must be int32 or int64, got " + labels.dtype().str());
  Shape out(x.shape());
  out.erase(out.begin() + 1);
  if (labels.shape() != out)
    c.shape_fail("labels shape " + shape_str(labels.shape()) + " does not match input " + shape_str(x.shape()) + " without its class axis");
  int64_t classes = x.shape()[1];
  if (weight.defined() && weight.shape() != Shape{classes})
    c.shape_fail("weight shape " + shape_str(weight.shape()) + ", expected [" + std::to_string(classes) + "]");
  if (weight.defined() && weight.dtype() != x.dtype())
    c.fail("weight dtype " + weight.dtype().str() + " differs from input dtype " + x.dtype().str());
  std::string reduction = c.node().attr_s("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") c.attr_fail("reduction '" + reduction + "' is not none, sum or mean");
  bool has_ii = c.node().has_attr("ignore_index");
  int64_t ii = c.node().attr_i("ignore_index", 0);
  DType dt = x.dtype();
  int r = static_cast<int>(out.size());
  auto names = ops::default_axis_names(r);
  // The class of label element i, clamped into [0, C) so that an ignored label never reads out of bounds.
  auto cls = [&](const std::vector<Expr> &i) {
    return clamp(cast(int32(), labels(i)), make_int(0), make_int(static_cast<int64_t>(classes - 1)));
  };
  // The weight of label element i: weight[class] (1 without weights), 0 where ignored.
  auto w_of = [&](const std::vector<Expr> &i) {
    Expr w = weight.defined() ? weight({cls(i)}) : imm(1, dt);
    return has_ii ? select(labels(i) != imm(ii, labels.dtype()), w, imm(0, dt)) : w;
  };
  Tensor loss = compute(
      out,
      [&](const std::vector<Var> &v) {
        std::vector<Expr> i = idx_of(v);
        std::vector<Expr> xi = i;
        xi.insert(xi.begin() + 1, cls(i));
        return -(x(xi) * w_of(i));
      },
      name + (reduction == "none" ? "" : ".loss"), "", names);
  ops::annotate(loss, "injective", {{"op", c.node().op}});
  if (reduction == "none") return loss;
  auto raxes = [&]() {
    std::vector<IterVar> k;
    for (int d = 0; d < r; d++) k.push_back(reduce_axis(out[d], "k" + std::to_string(d)));
    return k;
  };
  auto kidx = [](const std::vector<IterVar> &k) {
    std::vector<Expr> i;
    for (const auto &a : k) i.push_back(a.var);
    return i;
  };
  Tensor total = compute(
      {},
      [&](const std::vector<Var> &) {
        auto k = raxes();
        return tetune::sum(loss(kidx(k)), k);
      },
      name + (reduction == "sum" ? "" : ".sum"), "", {});
  ops::annotate(total, "reduce", {{"op", c.node().op}});
  if (reduction == "sum") return total;
  if (!weight.defined() && !has_ii) {
    // Every element counts with weight 1: the denominator is the element count.
    int64_t count = 1;
    for (auto d : out) count *= d;
    Tensor mean = compute({}, [&](const std::vector<Var> &) { return total({}) / imm(static_cast<double>(count), dt); }, name, "", {});
    return ops::annotate(mean, "elemwise", {{"op", c.node().op}});
  }
  Tensor wsum = compute(
      {},
      [&](const std::vector<Var> &) {
        auto k = raxes();
        return tetune::sum(w_of(kidx(k)), k);
      },
      name + ".weight_sum", "", {});
  ops::annotate(wsum, "reduce", {{"op", c.node().op}});
  Tensor mean = compute({}, [&](const std::vector<Var> &) { return total({}) / wsum({}); }, name, "", {});
  return ops::annotate(mean, "elemwise", {{"op", c.node().op}});
}

LOWER(l_nll_loss) {
  Tensor w = c.has(2) ? c.in(2) : Tensor();
  return {nll_loss(c, c.in(0), c.in(1), w, c.name())};
}

// SoftmaxCrossEntropyLoss = NegativeLogLikelihoodLoss of LogSoftmax over the class axis 1;
// the optional second output is that log-probability tensor.
LOWER(l_softmax_cross_entropy) {
  Tensor x = c.in(0);
  if (x.ndim() < 2) c.shape_fail("input 0 has rank " + std::to_string(x.ndim()) + ", expected rank >= 2 ([N, C, ...])");
  Tensor logp = ops::log_softmax(x, 1, c.name() + ".log_prob");
  Tensor w = c.has(2) ? c.in(2) : Tensor();
  Tensor loss = nll_loss(c, logp, c.in(1), w, c.name());
  if (wants_output(c, 1)) return {loss, logp};
  return {loss};
}

// ---- normalization ------------------------------------------------------------------
LOWER(l_layer_norm) {
  Tensor b = c.has(2) ? c.in(2) : Tensor();
  if (c.node().attr_i("stash_type", 1) != 1) c.unsupported("stash_type " + std::to_string(c.node().attr_i("stash_type", 1)));
  auto r = ops::layer_norm_with_stats(c.in(0), c.in(1), b, c.node().attr_i("axis", -1), c.node().attr_f("epsilon", 1e-5),
                                      c.name());
  if (!wants_output(c, 1) && !wants_output(c, 2)) return {r.y};
  if (r.y.dtype() != float32()) c.unsupported("Mean / InvStdDev outputs of a " + r.y.dtype().str() + " input (stashed as float)");
  return {r.y, r.mean, r.inv_std_dev};
}

// (x - mean) / f(var) over `axes` (kept with extent 1), then per-element epilogue.
// Stages "<name>.sum" and "<name>.var_sum" are TE reduces over the axes.
Tensor normalize_over(LowerContext &c, const Tensor &x, const std::vector<int> &axes,
                      const std::function<Expr(const Expr &centered, const Expr &var, const std::vector<Expr> &i)> &f,
                      const std::string &tag) {
  if (!x.dtype().is_float()) c.unsupported("input dtype " + x.dtype().str());
  int r = x.ndim();
  std::vector<bool> red(r, false);
  for (int a : axes) red[a] = true;
  Shape stat_shape = x.shape();
  int64_t n = 1;
  for (int a = 0; a < r; a++)
    if (red[a]) n *= x.shape()[a], stat_shape[a] = 1;
  DType dt = x.dtype();
  Expr inv_n = imm(1.0 / static_cast<double>(n), dt);
  auto names = ops::default_axis_names(r);
  // Full index of x from a statistics index and the reduce axes (in axis order).
  auto full = [&](const std::vector<Var> &i, const std::vector<IterVar> &k) {
    std::vector<Expr> idx;
    size_t kk = 0;
    for (int a = 0; a < r; a++) idx.push_back(red[a] ? Expr(k[kk++].var) : Expr(i[a]));
    return idx;
  };
  auto raxes = [&]() {
    std::vector<IterVar> k;
    for (int a = 0; a < r; a++)
      if (red[a]) k.push_back(reduce_axis(x.shape()[a], "k" + std::to_string(k.size())));
    return k;
  };
  auto stat_idx = [&](const std::vector<Var> &i) {
    std::vector<Expr> s;
    for (int a = 0; a < r; a++) s.push_back(red[a] ? make_int(0) : Expr(i[a]));
    return s;
  };
  Tensor s = compute(
      stat_shape,
      [&](const std::vector<Var> &i) {
        auto k = raxes();
        return tetune::sum(x(full(i, k)), k);
      },
      c.name() + ".sum", "", names);
  ops::annotate(s, "reduce", {{"op", c.node().op}});
  Tensor v = compute(
      stat_shape,
      [&](const std::vector<Var> &i) {
        auto k = raxes();
        Expr d = x(full(i, k)) - s(idx_of(i)) * inv_n;
        return tetune::sum(d * d, k);
      },
      c.name() + ".var_sum", "", names);
  ops::annotate(v, "reduce", {{"op", c.node().op}});
  Tensor out = compute(
      x.shape(),
      [&](const std::vector<Var> &i) {
        std::vector<Expr> si = stat_idx(i);
        return f(x(idx_of(i)) - s(si) * inv_n, v(si) * inv_n, idx_of(i));
      },
      c.name(), "", names);
  return ops::annotate(out, tag, {{"op", c.node().op}});
}

LOWER(l_instance_norm) {
  Tensor x = c.in_min_rank(0, 3, "input");
  int64_t ch = x.shape()[1];
  Tensor scale = c.in_rank(1, 1, "scale"), bias = c.in_rank(2, 1, "B");
  for (const Tensor *p : {&scale, &bias}) {
    if (p->shape() != Shape{ch}) c.shape_fail("parameter '" + p->name() + "' has shape " + shape_str(p->shape()) + ", expected [" + std::to_string(ch) + "]");
    if (p->dtype() != x.dtype()) c.fail("parameter '" + p->name() + "' dtype " + p->dtype().str() + " differs from input dtype " + x.dtype().str());
  }
  double eps = c.node().attr_f("epsilon", 1e-5);
  std::vector<int> axes;
  for (int a = 2; a < x.ndim(); a++) axes.push_back(a);
  DType dt = x.dtype();
  return {normalize_over(
      c, x, axes,
      [&](const Expr &d, const Expr &var, const std::vector<Expr> &i) {
        return d / tetune::sqrt(var + imm(eps, dt)) * scale({i[1]}) + bias({i[1]});
      },
      "norm")};
}

// ONNX's function body: (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9).
LOWER(l_mvn) {
  Tensor x = c.in(0);
  std::vector<int64_t> axes64 = c.node().attr_ints("axes", {0, 2, 3});
  std::vector<int> axes;
  for (auto a : axes64) axes.push_back(ops::normalize_axis(a, x.ndim(), "MeanVarianceNormalization", "axes"));
  DType dt = x.dtype();
  return {normalize_over(
      c, x, axes, [&](const Expr &d, const Expr &var, const std::vector<Expr> &) { return d / (tetune::sqrt(var) + imm(1e-9, dt)); },
      "norm")};
}

// ---- dropout ----------------------------------------------------------------------
// Inference dropout is the identity; its mask (output 1) is all true (opset >= 10: bool,
// earlier: the input's dtype, all ones). So is training dropout with ratio 0: the spec
// makes its output "a simple copy of the input" (torchvision's Swin exports its attention
// dropout so). Random (training, ratio > 0) dropout is unsupported.
LOWER(l_dropout) {
  if (c.has(2)) {
    const NDArray *tm = c.cdata(2);
    if (!tm || tm->size() != 1) c.unsupported("training_mode that is not a constant scalar");
    const NDArray *ratio = c.has(1) ? c.cdata(1) : nullptr;  // absent: the default ratio, 0.5
    const bool copies = ratio && ratio->size() == 1 && ratio->get(0) == 0;
    if (tm->get(0) != 0 && !copies) c.unsupported("training_mode with a ratio that is not a constant 0 (random dropout)");
  }
  if (c.node().attr_i("is_test", 1) == 0 && c.opset() < 7) c.unsupported("training dropout");
  Tensor x = c.in(0);
  if (!wants_output(c, 1)) return {x};  // a view (op_pattern): the executor aliases the input
  Tensor y = compute(x.shape(), [&](const std::vector<Var> &i) { return x(idx_of(i)); }, c.name(), "",
                     ops::default_axis_names(x.ndim()));
  ops::annotate(y, "injective", {{"op", "Dropout"}});
  DType mt = c.opset() < 10 ? x.dtype() : boolean();
  Tensor mask = compute(x.shape(), [&](const std::vector<Var> &) { return imm(1, mt); }, c.name() + ".mask", "",
                        ops::default_axis_names(x.ndim()));
  return {y, ops::annotate(mask, "injective", {{"op", "Dropout"}})};
}

}  // namespace

const OpTable &loss_ops() {
  static const OpTable r = {
      {"NegativeLogLikelihoodLoss", {l_nll_loss, OpPattern::Reduce}},
      {"SoftmaxCrossEntropyLoss", {l_softmax_cross_entropy, OpPattern::Reduce}},
      {"LayerNormalization", {l_layer_norm, OpPattern::Reduce}},
      {"InstanceNormalization", {l_instance_norm, OpPattern::Reduce}},
      {"MeanVarianceNormalization", {l_mvn, OpPattern::Reduce}},
      {"Dropout", {l_dropout, OpPattern::View}},  // Injective where the mask is wanted (op_pattern)
  };
  return r;
}

}  // namespace lowering
}  // namespace relay
}  // namespace tetune
