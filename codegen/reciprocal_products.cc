#include "codegen/reciprocal_products.h"

namespace tetune {
namespace codegen {

namespace {

using Halide::Expr;
using Halide::Internal::Scope;
using Halide::Internal::ScopedBinding;

class ReciprocalProducts : public Halide::Internal::IRMutator {
  using IRMutator::visit;

  std::string innermost_loop_;  // the variable of the innermost enclosing loop ("" outside loops)
  Scope<Expr> lets_;            // values of the enclosing lets, to see through a variable

  // The divisor d of a float 1 / d worth folding, else undefined: d must change from one
  // iteration of the innermost loop to the next. A 1 / d that does not is one division for many
  // products (softmax's 1 / row sum, a squeeze-excitation scale), which LLVM hoists out of the loop.
  Expr divisor(const Expr &e) const {
    const auto *d = e.as<Halide::Internal::Div>();
    if (!d || !d->type.is_float() || !Halide::Internal::is_const_one(d->a)) return Expr();
    if (!innermost_loop_.empty() && !Halide::Internal::expr_uses_var(d->b, innermost_loop_, lets_)) return Expr();
    return d->b;
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

  Halide::Internal::Stmt visit(const Halide::Internal::For *op) override {
    Halide::Internal::ScopedValue<std::string> inside(innermost_loop_, op->name);
    return IRMutator::visit(op);
  }
};

}  // namespace

Expr quotients_for_reciprocal_products(const Expr &e) { return ReciprocalProducts().mutate(e); }

Halide::Internal::Stmt quotients_for_reciprocal_products(const Halide::Internal::Stmt &s) {
  return ReciprocalProducts().mutate(s);
}

void add_quotients_for_reciprocal_products(Halide::Pipeline &p) { p.add_custom_lowering_pass(new ReciprocalProducts); }

}  // namespace codegen
}  // namespace tetune
