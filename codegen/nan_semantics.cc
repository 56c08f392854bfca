#include "codegen/nan_semantics.h"

#include <cmath>
#include <cstdint>
#include <utility>

namespace tetune {
namespace codegen {

using Halide::Expr;

namespace {

// x's bits with the sign cleared, and the bits of +inf in the same unsigned
// type: NaN is above +inf, inf equal to it (IEEE 754 binary16/32/64, bfloat16).
std::pair<Expr, Expr> magnitude_and_inf(const Expr &x) {
  Halide::Type t = x.type();
  int bits = t.bits();
  Halide::Type u = Halide::UInt(bits, t.lanes());
  uint64_t abs_mask = bits == 64 ? 0x7fffffffffffffffULL : bits == 32 ? 0x7fffffffULL : 0x7fffULL;
  uint64_t inf = bits == 64 ? 0x7ff0000000000000ULL : bits == 32 ? 0x7f800000ULL : t.is_bfloat() ? 0x7f80ULL : 0x7c00ULL;
  return {Halide::reinterpret(u, x) & Halide::Internal::make_const(u, abs_mask), Halide::Internal::make_const(u, inf)};
}

}  // namespace

Expr is_nan_bits(const Expr &x) {
  auto [magnitude, inf] = magnitude_and_inf(x);
  return magnitude > inf;
}

Expr is_inf_bits(const Expr &x) {
  auto [magnitude, inf] = magnitude_and_inf(x);
  return magnitude == inf;
}

Expr keep_nan(const Expr &x, const Expr &e) { return Halide::select(is_nan_bits(x), x, e); }

Expr drop_nan_tests_of(const Expr &f, const Expr &x) {
  // keep_nan never tests a constant: a product by one (the commonest) needs no walk of f.
  if (!x.type().is_float() || Halide::Internal::is_const(x)) return f;
  struct Drop : Halide::Internal::IRMutator {
    Expr x, neg_x;
    using IRMutator::visit;
    Expr visit(const Halide::Internal::Select *op) override {
      const Expr &v = op->true_value;
      const bool tests_x = Halide::Internal::equal(v, x) || Halide::Internal::equal(v, neg_x);
      // keep_nan's test as built, or as Halide's simplifier leaves it in a lowered pipeline.
      if (tests_x && (Halide::Internal::equal(op->condition, is_nan_bits(v)) ||
                      Halide::Internal::equal(op->condition, Halide::Internal::simplify(is_nan_bits(v)))))
        return mutate(op->false_value);
      return IRMutator::visit(op);
    }
  } drop;
  drop.x = x;
  drop.neg_x = -x;
  return drop.mutate(f);
}

namespace {

using Halide::Internal::Broadcast;
using Halide::Internal::FloatImm;

// The value of a float constant (a scalar or a broadcast one); null otherwise.
const double *float_const(const Expr &e) {
  if (const auto *b = e.as<Broadcast>()) return float_const(b->value);
  const auto *f = e.as<FloatImm>();
  return f ? &f->value : nullptr;
}

bool finite_const(const Expr &e, bool nonzero) {
  const double *v = float_const(e);
  return v && std::isfinite(*v) && (!nonzero || *v != 0);
}

// The operand of e that is not a constant, when e is one of the float
// operations below with a finite constant as its other operand (a nonzero one
// to multiply or divide by): each gives NaN only where that operand is NaN
// (an infinite operand gives an infinite or clamped result, never NaN).
// Undefined otherwise.
Expr affine_or_clamp_operand(const Expr &e) {
  using namespace Halide::Internal;
  auto one_const = [](const Expr &a, const Expr &b, bool nonzero, bool either) -> Expr {
    if (finite_const(b, nonzero)) return a;
    if (either && finite_const(a, nonzero)) return b;
    return Expr();
  };
  if (const auto *o = e.as<Add>()) return one_const(o->a, o->b, false, true);
  if (const auto *o = e.as<Sub>()) return one_const(o->a, o->b, false, true);
  if (const auto *o = e.as<Mul>()) return one_const(o->a, o->b, true, true);
  if (const auto *o = e.as<Div>()) return one_const(o->a, o->b, true, false);
  if (const auto *o = e.as<Max>()) return one_const(o->a, o->b, false, true);
  if (const auto *o = e.as<Min>()) return one_const(o->a, o->b, false, true);
  return Expr();
}

// True when e is x under a chain of affine_or_clamp_operand's operations
// (Halide writes HardSigmoid(x) as max(min(x * 1/6, 0.5), -0.5) + 0.5).
bool affine_and_clamps_of(const Expr &e, const Expr &x) {
  for (Expr c = e; c.defined(); c = affine_or_clamp_operand(c))
    if (Halide::Internal::equal(c, x)) return true;
  return false;
}

class NanPropagatingMinMax : public Halide::Internal::IRMutator {
  using IRMutator::visit;

  // x * f(x), f built of affine_or_clamp_operand's operations (HardSwish;
  // ONNX graphs' Mul(x, HardSigmoid(x))), is NaN where x is whatever f gives,
  // so f's max / min need no NaN test of their own: x (f's one non-constant
  // leaf) is mutated once, and f's own max / min are left as they are.
  Expr visit(const Halide::Internal::Mul *op) override {
    using Halide::Internal::Mul;
    using Halide::Internal::substitute;
    if (op->type.is_float()) {
      // x * f(x) with keep_nan tests of x in f (the swish: x * sigmoid(x), exp(-x)'s test).
      Expr a = drop_nan_tests_of(op->a, op->b), b = drop_nan_tests_of(op->b, op->a);
      if (!a.same_as(op->a) || !b.same_as(op->b)) return mutate(Mul::make(a, b));
      if (affine_and_clamps_of(op->b, op->a)) {
        Expr x = mutate(op->a);
        return Mul::make(x, substitute(op->a, x, op->b));
      }
      if (affine_and_clamps_of(op->a, op->b)) {
        Expr x = mutate(op->b);
        return Mul::make(substitute(op->b, x, op->a), x);
      }
    }
    return IRMutator::visit(op);
  }

  template <typename Op>
  Expr propagate(const Op *op) {
    Expr a = mutate(op->a), b = mutate(op->b);
    Expr r = Op::make(a, b);
    if (!op->type.is_float()) return r;
    if (!Halide::Internal::is_const(b)) r = keep_nan(b, r);
    if (!Halide::Internal::is_const(a)) r = keep_nan(a, r);
    return r;
  }

  Expr visit(const Halide::Internal::Max *op) override { return propagate(op); }
  Expr visit(const Halide::Internal::Min *op) override { return propagate(op); }
  // A vectorized max / min reduce loop (a horizontal reduction of its lanes): NaN when any lane is.
  Expr visit(const Halide::Internal::VectorReduce *op) override {
    using Halide::Internal::VectorReduce;
    Expr v = mutate(op->value);
    Expr r = VectorReduce::make(op->op, v, op->type.lanes());
    if (!op->type.is_float() || (op->op != VectorReduce::Max && op->op != VectorReduce::Min)) return r;
    Expr any_nan = VectorReduce::make(VectorReduce::Or, is_nan_bits(v), op->type.lanes());
    return Halide::select(any_nan, Halide::Internal::make_const(op->type, std::nan("")), r);
  }
};

}  // namespace

void add_nan_propagating_min_max(Halide::Pipeline &p) { p.add_custom_lowering_pass(new NanPropagatingMinMax); }

Expr nan_propagating_min_max(const Expr &e) { return NanPropagatingMinMax().mutate(e); }

}  // namespace codegen
}  // namespace tetune
