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

// Whether select s is keep_nan's test of its true value: as keep_nan builds
// it, or as Halide's simplifier leaves it in a lowered pipeline.
bool is_nan_test(const Halide::Internal::Select *s) {
  using Halide::Internal::equal;
  const Expr test = is_nan_bits(s->true_value);
  return equal(s->condition, test) || equal(s->condition, Halide::Internal::simplify(test));
}

// True when v can be NaN only where x is: x under a chain of
// affine_or_clamp_operand's operations (-x, HardSigmoid(x): Halide writes it
// max(min(x * 1/6, 0.5), -0.5) + 0.5), or a NaN test of such a value whose
// other branch is one too (what this pass and keep_nan make of them).
bool nan_only_where(const Expr &v, const Expr &x) {
  for (Expr c = v; c.defined(); c = affine_or_clamp_operand(c)) {
    if (Halide::Internal::equal(c, x)) return true;
    const auto *s = c.as<Halide::Internal::Select>();
    if (s && is_nan_test(s)) return nan_only_where(s->true_value, x) && nan_only_where(s->false_value, x);
  }
  return false;
}

}  // namespace

Expr drop_nan_tests_of(const Expr &f, const Expr &x) {
  // keep_nan never tests a constant: a product by one (the commonest) needs no walk of f.
  if (!x.type().is_float() || Halide::Internal::is_const(x)) return f;
  struct Drop : Halide::Internal::IRMutator {
    Expr x;
    using IRMutator::visit;
    Expr visit(const Halide::Internal::Select *op) override {
      // The value first: is_nan_test builds and simplifies a test for every select it sees.
      if (nan_only_where(op->true_value, x) && is_nan_test(op)) return mutate(op->false_value);
      return IRMutator::visit(op);
    }
  } drop;
  drop.x = x;
  return drop.mutate(f);
}

namespace {

class NanPropagatingMinMax : public Halide::Internal::IRMutator {
  using IRMutator::visit;

  // x * f is NaN wherever x is, whatever f gives there: f's NaN tests of
  // values that are NaN only where x is only cost time (the swish x *
  // sigmoid(x): exp(-x)'s test; HardSwish, x * HardSigmoid(x): its clamp's
  // max and min). Both operands are rewritten first, so that the tests this
  // pass adds are dropped as keep_nan's are.
  Expr visit(const Halide::Internal::Mul *op) override {
    if (!op->type.is_float()) return IRMutator::visit(op);
    Expr a = mutate(op->a), b = mutate(op->b);
    return Halide::Internal::Mul::make(drop_nan_tests_of(a, b), drop_nan_tests_of(b, a));
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
