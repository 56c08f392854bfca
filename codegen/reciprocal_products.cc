#include "codegen/reciprocal_products.h"

namespace tetune {
namespace codegen {

namespace {

using Halide::Expr;
using Halide::Internal::Scope;
using Halide::Internal::ScopedBinding;

class ReciprocalProducts : public Halide::Internal::IRMutator {
  using IRMutator::visit;

  // Values of the enclosing lets, to see through a variable to what it holds.
  Scope<Expr> lets_;

  // Whether vector e can differ between its lanes: a broadcast (or a let of one) cannot.
  bool lanes_differ(const Expr &e) const {
    if (e.as<Halide::Internal::Broadcast>()) return false;
    if (const auto *v = e.as<Halide::Internal::Variable>(); v && lets_.contains(v->name)) return lanes_differ(lets_.get(v->name));
    return true;
  }

  // The divisor d of a float 1 / d worth folding, else undefined. A scalar or a broadcast 1 / d
  // is one division for many products (softmax's 1 / row sum): LLVM hoists it out of the loop.
  Expr divisor(const Expr &e) const {
    const auto *d = e.as<Halide::Internal::Div>();
    if (d && d->type.is_float() && d->type.is_vector() && Halide::Internal::is_const_one(d->a) && lanes_differ(d->b))
      return d->b;
    return Expr();
  }

  Expr visit(const Halide::Internal::Mul *op) override {
    Expr a = mutate(op->a), b = mutate(op->b);
    if (Expr d = divisor(b); d.defined()) return Halide::Internal::Div::make(a, d);
    if (Expr d = divisor(a); d.defined()) return Halide::Internal::Div::make(b, d);
    return Halide::Internal::Mul::make(a, b);
  }

  Expr visit(const Halide::Internal::Let *op) override {
    Expr value = mutate(op->value);
    ScopedBinding<Expr> bind(lets_, op->name, value);
    return Halide::Internal::Let::make(op->name, value, mutate(op->body));
  }

  Halide::Internal::Stmt visit(const Halide::Internal::LetStmt *op) override {
    Expr value = mutate(op->value);
    ScopedBinding<Expr> bind(lets_, op->name, value);
    return Halide::Internal::LetStmt::make(op->name, value, mutate(op->body));
  }
};

}  // namespace

Expr quotients_for_reciprocal_products(const Expr &e) { return ReciprocalProducts().mutate(e); }

void add_quotients_for_reciprocal_products(Halide::Pipeline &p) { p.add_custom_lowering_pass(new ReciprocalProducts); }

}  // namespace codegen
}  // namespace tetune
