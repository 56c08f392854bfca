#include "te/ops/elementwise.h"

#include <cmath>

#include "base/errors.h"
#include "te/ops/common.h"

namespace tetune {
namespace ops {

Shape broadcast_shapes(const Shape &a, const Shape &b) {
  size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (size_t i = 0; i < r; i++) {
    int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1)
      throw ShapeError("broadcast: shapes " + shape_str(a) + " and " + shape_str(b) + " are incompatible at axis " +
                       std::to_string(i) + " (" + std::to_string(da) + " vs " + std::to_string(db) + ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::vector<Expr> broadcast_index(const Tensor &t, const Shape &out_shape, const std::vector<Var> &idx) {
  std::vector<Expr> res;
  size_t off = out_shape.size() - t.shape().size();
  for (size_t d = 0; d < t.shape().size(); d++) {
    if (t.shape()[d] == 1 && out_shape[d + off] != 1) res.push_back(Expr(0));
    else res.push_back(idx[d + off]);
  }
  return res;
}

namespace {

using BinFn = std::function<Expr(const Expr &, const Expr &)>;
using UnFn = std::function<Expr(const Expr &)>;

Tensor binary_op(const Tensor &a, const Tensor &b, const BinFn &f, const std::string &name, const std::string &onnx) {
  check_same_dtype(a, b, onnx);
  Shape out = broadcast_shapes(a.shape(), b.shape());
  bool same = a.shape() == out && b.shape() == out;
  Tensor t = compute(
      out, [&](const std::vector<Var> &i) { return f(a(broadcast_index(a, out, i)), b(broadcast_index(b, out, i))); },
      name, "", default_axis_names(static_cast<int>(out.size())));
  return annotate(t, same ? "elemwise" : "broadcast", {{"op", onnx}});
}

Tensor unary_op(const Tensor &x, const UnFn &f, const std::string &name, const std::string &onnx,
                const std::map<std::string, std::string> &attrs = {}) {
  Tensor t = compute(
      x.shape(), [&](const std::vector<Var> &i) { return f(x(std::vector<Expr>(i.begin(), i.end()))); }, name, "",
      default_axis_names(x.ndim()));
  annotate(t, "elemwise", attrs);
  t.node()->attrs["op"] = onnx;
  return t;
}

}  // namespace

Tensor add(const Tensor &a, const Tensor &b, const std::string &name) {
  return binary_op(a, b, [](const Expr &x, const Expr &y) { return x + y; }, name, "Add");
}
Tensor sub(const Tensor &a, const Tensor &b, const std::string &name) {
  return binary_op(a, b, [](const Expr &x, const Expr &y) { return x - y; }, name, "Sub");
}
Tensor mul(const Tensor &a, const Tensor &b, const std::string &name) {
  return binary_op(a, b, [](const Expr &x, const Expr &y) { return x * y; }, name, "Mul");
}
Tensor div(const Tensor &a, const Tensor &b, const std::string &name) {
  return binary_op(a, b, [](const Expr &x, const Expr &y) { return x / y; }, name, "Div");
}
Tensor pow(const Tensor &a, const Tensor &b, const std::string &name) {
  check_float(a, "Pow");
  return binary_op(a, b, [](const Expr &x, const Expr &y) { return tetune::pow(x, y); }, name, "Pow");
}
Tensor maximum(const Tensor &a, const Tensor &b, const std::string &name) {
  return binary_op(a, b, [](const Expr &x, const Expr &y) { return tetune::max(x, y); }, name, "Max");
}
Tensor minimum(const Tensor &a, const Tensor &b, const std::string &name) {
  return binary_op(a, b, [](const Expr &x, const Expr &y) { return tetune::min(x, y); }, name, "Min");
}
Tensor equal(const Tensor &a, const Tensor &b, const std::string &name) {
  return binary_op(a, b, [](const Expr &x, const Expr &y) { return x == y; }, name, "Equal");
}
Tensor less(const Tensor &a, const Tensor &b, const std::string &name) {
  return binary_op(a, b, [](const Expr &x, const Expr &y) { return x < y; }, name, "Less");
}
Tensor greater(const Tensor &a, const Tensor &b, const std::string &name) {
  return binary_op(a, b, [](const Expr &x, const Expr &y) { return x > y; }, name, "Greater");
}

Tensor neg(const Tensor &x, const std::string &name) { return unary_op(x, [](const Expr &v) { return -v; }, name, "Neg"); }
Tensor abs(const Tensor &x, const std::string &name) {
  return unary_op(x, [](const Expr &v) { return tetune::abs(v); }, name, "Abs");
}
Tensor exp(const Tensor &x, const std::string &name) {
  check_float(x, "Exp");
  return unary_op(x, [](const Expr &v) { return tetune::exp(v); }, name, "Exp");
}
Tensor log(const Tensor &x, const std::string &name) {
  check_float(x, "Log");
  return unary_op(x, [](const Expr &v) { return tetune::log(v); }, name, "Log");
}
Tensor sqrt(const Tensor &x, const std::string &name) {
  check_float(x, "Sqrt");
  return unary_op(x, [](const Expr &v) { return tetune::sqrt(v); }, name, "Sqrt");
}
Tensor tanh(const Tensor &x, const std::string &name) {
  check_float(x, "Tanh");
  return unary_op(x, [](const Expr &v) { return tetune::tanh(v); }, name, "Tanh");
}
Tensor erf(const Tensor &x, const std::string &name) {
  check_float(x, "Erf");
  return unary_op(x, [](const Expr &v) { return tetune::erf(v); }, name, "Erf");
}
Tensor sigmoid(const Tensor &x, const std::string &name) {
  check_float(x, "Sigmoid");
  return unary_op(x, [](const Expr &v) { return tetune::sigmoid(v); }, name, "Sigmoid");
}
Tensor floor(const Tensor &x, const std::string &name) {
  check_float(x, "Floor");
  return unary_op(x, [](const Expr &v) { return tetune::floor(v); }, name, "Floor");
}
Tensor ceil(const Tensor &x, const std::string &name) {
  check_float(x, "Ceil");
  return unary_op(x, [](const Expr &v) { return tetune::ceil(v); }, name, "Ceil");
}
Tensor round(const Tensor &x, const std::string &name) {
  check_float(x, "Round");
  return unary_op(x, [](const Expr &v) { return tetune::round(v); }, name, "Round");
}
Tensor reciprocal(const Tensor &x, const std::string &name) {
  check_float(x, "Reciprocal");
  return unary_op(x, [](const Expr &v) { return 1.0f / v; }, name, "Reciprocal");
}

Tensor relu(const Tensor &x, const std::string &name) {
  return unary_op(x, [](const Expr &v) { return tetune::max(v, 0); }, name, "Relu");
}
Tensor leaky_relu(const Tensor &x, double alpha, const std::string &name) {
  check_float(x, "LeakyRelu");
  return unary_op(
      x, [&](const Expr &v) { return select(v >= 0.0f, v, v * make_float(alpha, x.dtype())); }, name, "LeakyRelu",
      {{"alpha", num_str(alpha)}});
}
Tensor clip(const Tensor &x, double lo, double hi, const std::string &name) {
  if (lo > hi) throw AttributeError("Clip: attribute 'min' = " + num_str(lo) + " exceeds 'max' = " + num_str(hi));
  DType t = x.dtype();
  auto imm = [&](double v) {
    if (t.is_float()) return make_float(v, t);
    // Integer tensors: clamp the bounds to the dtype's range, rounding inward.
    double lo_t = static_cast<double>(min_value(t)->int_value), hi_t = static_cast<double>(max_value(t)->int_value);
    return make_int(static_cast<int64_t>(std::max(lo_t, std::min(hi_t, v))), t);
  };
  Expr elo = t.is_float() ? imm(lo) : imm(std::ceil(lo)), ehi = t.is_float() ? imm(hi) : imm(std::floor(hi));
  return unary_op(
      x, [&](const Expr &v) { return tetune::min(tetune::max(v, elo), ehi); }, name, "Clip",
      {{"min", num_str(lo)}, {"max", num_str(hi)}});
}
Tensor hard_sigmoid(const Tensor &x, double alpha, double beta, const std::string &name) {
  check_float(x, "HardSigmoid");
  DType t = x.dtype();
  return unary_op(
      x,
      [&](const Expr &v) {
        return tetune::max(make_float(0, t), tetune::min(make_float(1, t), v * make_float(alpha, t) + make_float(beta, t)));
      },
      name, "HardSigmoid", {{"alpha", num_str(alpha)}, {"beta", num_str(beta)}});
}
Tensor hard_swish(const Tensor &x, const std::string &name) {
  check_float(x, "HardSwish");
  DType t = x.dtype();
  return unary_op(
      x,
      [&](const Expr &v) {
        return v * tetune::max(make_float(0, t),
                               tetune::min(make_float(1, t), v * make_float(1.0 / 6.0, t) + make_float(0.5, t)));
      },
      name, "HardSwish");
}
Tensor gelu(const Tensor &x, const std::string &name) {
  check_float(x, "Gelu");
  DType t = x.dtype();
  return unary_op(
      x,
      [&](const Expr &v) {
        return make_float(0.5, t) * v * (make_float(1, t) + tetune::erf(v * make_float(M_SQRT1_2, t)));
      },
      name, "Gelu");
}

Tensor cast(const Tensor &x, DType dtype, const std::string &name) {
  return unary_op(x, [&](const Expr &v) { return tetune::cast(dtype, v); }, name, "Cast", {{"to", dtype.str()}});
}

Tensor where(const Tensor &cond, const Tensor &a, const Tensor &b, const std::string &name) {
  if (!cond.dtype().is_bool())
    throw DTypeError("Where: condition '" + cond.name() + "' must be bool, got " + cond.dtype().str());
  check_same_dtype(a, b, "Where");
  Shape out = broadcast_shapes(broadcast_shapes(cond.shape(), a.shape()), b.shape());
  bool same = cond.shape() == out && a.shape() == out && b.shape() == out;
  Tensor t = compute(
      out,
      [&](const std::vector<Var> &i) {
        return select(cond(broadcast_index(cond, out, i)), a(broadcast_index(a, out, i)), b(broadcast_index(b, out, i)));
      },
      name, "", default_axis_names(static_cast<int>(out.size())));
  return annotate(t, same ? "elemwise" : "broadcast", {{"op", "Where"}});
}

}  // namespace ops
}  // namespace tetune
