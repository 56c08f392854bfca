// ONNX lowerings: integer-only elementwise ops, BitShift, the bitwise ops and
// Pow with an integer base (see lowering_internal.h).
#include "relay_import/lowering_internal.h"

#include <cmath>
#include <functional>

#include "te/ops/common.h"
#include "te/ops/elementwise.h"

namespace tetune {
namespace relay {
namespace lowering {

namespace {

// ONNX BitShift (opset 11): unsigned x shifted by y bits. TE has no shift
// operator, so the shift is a multiply / divide by 2^y (exact for unsigned
// types; the multiply wraps modulo 2^bits as a left shift drops high bits).
// A shift by >= bits gives 0 (undefined in C; every bit shifted out).
LOWER(l_bit_shift) {
  Tensor x = c.in(0), y = c.in(1);
  if (!x.dtype().is_uint()) c.unsupported("input dtype " + x.dtype().str() + " (BitShift takes unsigned integers)");
  if (y.dtype() != x.dtype()) c.fail("input dtypes differ: " + x.dtype().str() + " and " + y.dtype().str());
  std::string dir = c.node().attr_s("direction", "");
  if (dir != "LEFT" && dir != "RIGHT") c.attr_fail("attribute 'direction' must be LEFT or RIGHT, got '" + dir + "'");
  DType t = x.dtype();
  bool left = dir == "LEFT";
  return {broadcast_binary(
      c,
      [&](const Expr &a, const Expr &n) {
        Expr p = cast(t, pow(make_float(2.0, float64()), cast(float64(), n)));
        Expr shifted = left ? a * p : a / p;
        return select(n >= imm(t.bits, t), imm(0, t), shifted);
      },
      "BitShift")};
}

}  // namespace

// Pow with an integer base: the result has the base's dtype (ONNX Pow-12+), computed
// as pow in float64 and truncated toward zero, as onnxruntime's integer Pow does;
// so a negative exponent gives 0 unless the base is +-1.
Tensor int_pow(LowerContext &c) {
  Tensor a = c.in(0), b = c.in(1);
  DType t = a.dtype();
  if (!t.is_int() && !t.is_uint()) c.unsupported("Pow base dtype " + t.str());
  if (!b.dtype().is_float() && !b.dtype().is_int() && !b.dtype().is_uint()) c.unsupported("Pow exponent dtype " + b.dtype().str());
  return broadcast_binary(
      c,
      [&](const Expr &x, const Expr &e) {
        Expr r = pow(cast(float64(), x), cast(float64(), e));
        // Clamp before the cast: an out-of-range float-to-int conversion is undefined.
        double lo = t.is_uint() ? 0.0 : -std::ldexp(1.0, t.bits - 1);
        double hi = t.is_uint() ? std::ldexp(1.0, t.bits) - 1 : std::ldexp(1.0, t.bits - 1) - 1;
        if (t.bits == 64) hi = t.is_uint() ? 1.8446744073709550e19 : 9.2233720368547748e18;
        return cast(t, clamp(r, make_float(lo, float64()), make_float(hi, float64())));
      },
      "Pow");
}

namespace {

// ONNX BitwiseAnd / Or / Xor / Not (opset 18): integer tensors of one dtype;
// a float or bool input is a DTypeError from the TE operator.
LOWER(l_bitwise_and) { return {binop(c, BinaryOp::BitAnd, "BitwiseAnd")}; }
LOWER(l_bitwise_or) { return {binop(c, BinaryOp::BitOr, "BitwiseOr")}; }
LOWER(l_bitwise_xor) { return {binop(c, BinaryOp::BitXor, "BitwiseXor")}; }
LOWER(l_bitwise_not) { return {unop(c, [](const Expr &x) { return ~x; }, "BitwiseNot", false)}; }

}  // namespace

const OpTable &integer_ops() {
  static const OpTable t = {
      {"BitShift", {l_bit_shift, OpPattern::Elemwise}},
      {"BitwiseAnd", {l_bitwise_and, OpPattern::Elemwise}},
      {"BitwiseOr", {l_bitwise_or, OpPattern::Elemwise}},
      {"BitwiseXor", {l_bitwise_xor, OpPattern::Elemwise}},
      {"BitwiseNot", {l_bitwise_not, OpPattern::Elemwise}},
  };
  return t;
}

}  // namespace lowering
}  // namespace relay
}  // namespace tetune
