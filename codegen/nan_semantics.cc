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

class NanPropagatingMinMax : public Halide::Internal::IRMutator {
  using IRMutator::visit;

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

}  // namespace codegen
}  // namespace tetune
