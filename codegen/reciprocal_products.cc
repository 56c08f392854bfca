#include "codegen/reciprocal_products.h"

namespace tetune {
namespace codegen {

namespace {

using Halide::Expr;

// The divisor d of a float 1 / d, else undefined.
Expr reciprocal_of(const Expr &e) {
  const auto *d = e.as<Halide::Internal::Div>();
  if (d && d->type.is_float() && Halide::Internal::is_const_one(d->a)) return d->b;
  return Expr();
}

class ReciprocalProducts : public Halide::Internal::IRMutator {
  using IRMutator::visit;

  Expr visit(const Halide::Internal::Mul *op) override {
    Expr a = mutate(op->a), b = mutate(op->b);
    if (op->type.is_float()) {
      if (Expr d = reciprocal_of(b); d.defined()) return Halide::Internal::Div::make(a, d);
      if (Expr d = reciprocal_of(a); d.defined()) return Halide::Internal::Div::make(b, d);
    }
    return Halide::Internal::Mul::make(a, b);
  }
};

}  // namespace

Expr quotients_for_reciprocal_products(const Expr &e) { return ReciprocalProducts().mutate(e); }

void add_quotients_for_reciprocal_products(Halide::Pipeline &p) { p.add_custom_lowering_pass(new ReciprocalProducts); }

}  // namespace codegen
}  // namespace tetune
