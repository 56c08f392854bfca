// ONNX lowerings: unary math, bitwise ops (see lowering_internal.h).
#include "relay_import/lowering_internal.h"

#include <cmath>
#include <limits>

#include "te/ops/common.h"
#include "te/ops/elementwise.h"

namespace tetune {
namespace relay {
namespace lowering {

Tensor broadcast_binary(LowerContext &c, const std::function<Expr(const Expr &, const Expr &)> &f, const std::string &onnx) {
  Tensor a = c.in(0), b = c.in(1);
  Shape out = ops::broadcast_shapes(a.shape(), b.shape());
  Tensor t = compute(
      out, [&](const std::vector<Var> &i) { return f(a(ops::broadcast_index(a, out, i)), b(ops::broadcast_index(b, out, i))); },
      c.name(), "", ops::default_axis_names(static_cast<int>(out.size())));
  bool same = a.shape() == out && b.shape() == out;
  return ops::annotate(t, same ? "elemwise" : "broadcast", {{"op", onnx}});
}

namespace {

// Binary elementwise f(a, b) with NumPy broadcasting; both inputs of one dtype.
Tensor bin_expr(LowerContext &c, const std::function<Expr(const Expr &, const Expr &)> &f, const std::string &onnx) {
  if (c.in(0).dtype() != c.in(1).dtype())
    c.fail("input dtypes differ: " + c.in(0).dtype().str() + " and " + c.in(1).dtype().str());
  return broadcast_binary(c, f, onnx);
}

LOWER(l_sin) { return {unop(c, [](const Expr &x) { return sin(x); }, "Sin")}; }
LOWER(l_cos) { return {unop(c, [](const Expr &x) { return cos(x); }, "Cos")}; }
LOWER(l_tan) { return {unop(c, [](const Expr &x) { return tan(x); }, "Tan")}; }
LOWER(l_sinh) { return {unop(c, [](const Expr &x) { return sinh(x); }, "Sinh")}; }
LOWER(l_cosh) { return {unop(c, [](const Expr &x) { return cosh(x); }, "Cosh")}; }
LOWER(l_asin) { return {unop(c, [](const Expr &x) { return asin(x); }, "Asin")}; }
LOWER(l_acos) { return {unop(c, [](const Expr &x) { return acos(x); }, "Acos")}; }
LOWER(l_atan) { return {unop(c, [](const Expr &x) { return atan(x); }, "Atan")}; }
LOWER(l_asinh) { return {unop(c, [](const Expr &x) { return asinh(x); }, "Asinh")}; }
LOWER(l_acosh) { return {unop(c, [](const Expr &x) { return acosh(x); }, "Acosh")}; }
LOWER(l_atanh) { return {unop(c, [](const Expr &x) { return atanh(x); }, "Atanh")}; }

LOWER(l_isnan) { return {unop(c, [](const Expr &x) { return is_nan(x); }, "IsNaN")}; }
LOWER(l_isinf) {
  bool pos = c.node().attr_i("detect_positive", 1) != 0, neg = c.node().attr_i("detect_negative", 1) != 0;
  return {unop(c, [&](const Expr &x) {
    Expr z = imm(0, x.dtype());
    if (pos && neg) return is_inf(x);
    if (pos) return is_inf(x) && x > z;
    if (neg) return is_inf(x) && x < z;
    return imm(0, boolean());  // neither sign detected: all false
  }, "IsInf")};
}

// Sign: -1, 0 or 1 (NaN stays NaN: neither comparison holds).
LOWER(l_sign) {
  return {unop(c, [](const Expr &x) {
    DType t = x.dtype();
    if (t.is_bool()) return x;
    Expr z = imm(0, t);
    Expr neg = t.is_uint() ? z : imm(-1, t);
    return select(x > z, imm(1, t), select(x < z, neg, x));
  }, "Sign", false)};
}

LOWER(l_shrink) {
  double lambd = c.node().attr_f("lambd", 0.5), bias = c.node().attr_f("bias", 0.0);
  return {unop(c, [&](const Expr &x) {
    DType t = x.dtype();
    return select(x < imm(-lambd, t), x + imm(bias, t), select(x > imm(lambd, t), x - imm(bias, t), imm(0, t)));
  }, "Shrink", false)};
}

// Celu: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
LOWER(l_celu) {
  double alpha = c.node().attr_f("alpha", 1.0);
  if (alpha == 0) c.attr_fail("attribute 'alpha' must be non-zero");
  return {unop(c, [&](const Expr &x) {
    DType t = x.dtype();
    return max(x, imm(0, t)) + min(imm(0, t), imm(alpha, t) * (exp(x / imm(alpha, t)) - imm(1, t)));
  }, "Celu")};
}

// Mish: x * tanh(softplus(x)).
LOWER(l_mish) {
  return {unop(c, [](const Expr &x) { return x * tanh(log(exp(x) + imm(1, x.dtype()))); }, "Mish")};
}

LOWER(l_cast_like) { return {ops::cast(c.in(0), c.in(1).dtype(), c.name())}; }

LOWER(l_xor) {
  if (!c.in(0).dtype().is_bool()) c.unsupported("input dtype " + c.in(0).dtype().str());
  return {bin_expr(c, [](const Expr &a, const Expr &b) { return a != b; }, "Xor")};
}

// Mod. fmod=0 (integers): the sign of the divisor, as Python's %; fmod=1: C fmod, the sign of the
// dividend. TE's integer % is Euclidean (never negative), its float % is x - y * floor(x / y).
LOWER(l_mod) {
  bool fmod = c.node().attr_i("fmod", 0) != 0;
  DType t = c.in(0).dtype();
  if (t.is_float() && !fmod) c.attr_fail("fmod=0 with float inputs (ONNX requires fmod=1)");
  if (t.is_bool()) c.unsupported("input dtype " + t.str());
  return {bin_expr(c, [&](const Expr &a, const Expr &b) {
    Expr z = imm(0, t);
    Expr r = a % b;
    if (t.is_uint()) return r;
    if (t.is_float()) {
      // floor mod has the divisor's sign; fmod wants the dividend's.
      return select(r != z && (r < z) != (a < z), r - b, r);
    }
    Expr absb = select(b < z, z - b, b);
    if (fmod) return select(a < z && r != z, r - absb, r);
    return select(b < z && r != z, r + b, r);
  }, "Mod")};
}

}  // namespace

const OpTable &math_ops() {
  static const OpTable r = {
      {"Sin", {l_sin, OpPattern::Elemwise}},
      {"Cos", {l_cos, OpPattern::Elemwise}},
      {"Tan", {l_tan, OpPattern::Elemwise}},
      {"Sinh", {l_sinh, OpPattern::Elemwise}},
      {"Cosh", {l_cosh, OpPattern::Elemwise}},
      {"Asin", {l_asin, OpPattern::Elemwise}},
      {"Acos", {l_acos, OpPattern::Elemwise}},
      {"Atan", {l_atan, OpPattern::Elemwise}},
      {"Asinh", {l_asinh, OpPattern::Elemwise}},
      {"Acosh", {l_acosh, OpPattern::Elemwise}},
      {"Atanh", {l_atanh, OpPattern::Elemwise}},
      {"IsNaN", {l_isnan, OpPattern::Elemwise}},
      {"IsInf", {l_isinf, OpPattern::Elemwise}},
      {"Sign", {l_sign, OpPattern::Elemwise}},
      {"Shrink", {l_shrink, OpPattern::Elemwise}},
      {"Celu", {l_celu, OpPattern::Elemwise}},
      {"Mish", {l_mish, OpPattern::Elemwise}},
      {"CastLike", {l_cast_like, OpPattern::Elemwise}},
      {"Xor", {l_xor, OpPattern::Elemwise}},
      {"Mod", {l_mod, OpPattern::Elemwise}},
  };
  return r;
}

}  // namespace lowering
}  // namespace relay
}  // namespace tetune
