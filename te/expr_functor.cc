#include "te/expr_functor.h"

#include <vector>

#include "base/errors.h"
#include "te/tensor.h"

namespace tetune {

void post_order_visit(const Expr &e, const std::function<void(const Expr &)> &f) {
  if (!e.defined()) return;
  for (const auto &a : e->args) post_order_visit(a, f);
  f(e);
}

void pre_order_visit(const Expr &e, const std::function<bool(const Expr &)> &f) {
  if (!e.defined() || !f(e)) return;
  for (const auto &a : e->args) pre_order_visit(a, f);
}

bool any_of(const Expr &e, const std::function<bool(const Expr &)> &pred) {
  if (!e.defined()) return false;
  if (pred(e)) return true;
  for (const auto &a : e->args)
    if (any_of(a, pred)) return true;
  return false;
}

namespace {
// The mutated children of e, and whether any of them is a new node.
bool mutate_args(ExprMutator &m, const Expr &e, std::vector<Expr> &out) {
  bool changed = false;
  out.reserve(e->args.size());
  for (const auto &a : e->args) {
    out.push_back(m.mutate(a));
    changed |= out.back().get() != a.get();
  }
  return changed;
}
}  // namespace

Expr ExprMutator::mutate(const Expr &e) {
  if (!e.defined()) return e;
  switch (e->kind) {
    case ExprKind::IntImm: return mutate_int_imm(e);
    case ExprKind::FloatImm: return mutate_float_imm(e);
    case ExprKind::Var: return mutate_var(e);
    case ExprKind::Access: return mutate_access(e);
    case ExprKind::Unary: return mutate_unary(e);
    case ExprKind::Binary: return mutate_binary(e);
    case ExprKind::Select: return mutate_select(e);
    case ExprKind::Cast: return mutate_cast(e);
    case ExprKind::Reduce: return mutate_reduce(e);
  }
  throw Error("ExprMutator: unknown expression kind " + std::to_string(static_cast<int>(e->kind)));
}

Expr ExprMutator::mutate_access(const Expr &e) {
  std::vector<Expr> a;
  if (!mutate_args(*this, e, a)) return e;
  return Tensor(e->tensor)(a);
}

Expr ExprMutator::mutate_unary(const Expr &e) {
  std::vector<Expr> a;
  if (!mutate_args(*this, e, a)) return e;
  return unary(static_cast<UnaryOp>(e->op), a[0]);
}

Expr ExprMutator::mutate_binary(const Expr &e) {
  std::vector<Expr> a;
  if (!mutate_args(*this, e, a)) return e;
  return binary(static_cast<BinaryOp>(e->op), a[0], a[1]);
}

Expr ExprMutator::mutate_select(const Expr &e) {
  std::vector<Expr> a;
  if (!mutate_args(*this, e, a)) return e;
  return select(a[0], a[1], a[2]);
}

Expr ExprMutator::mutate_cast(const Expr &e) {
  std::vector<Expr> a;
  if (!mutate_args(*this, e, a)) return e;
  return cast(e->dtype, a[0]);
}

Expr ExprMutator::mutate_reduce(const Expr &e) {
  std::vector<Expr> a;
  if (!mutate_args(*this, e, a)) return e;
  return reduce(static_cast<ReduceOp>(e->op), a[0], e->reduce_axes);
}

namespace {
class Substituter : public ExprMutator {
 public:
  explicit Substituter(const std::map<const VarNode *, Expr> &vars) : vars_(vars) {}

 protected:
  Expr mutate_var(const Expr &e) override {
    auto it = vars_.find(e->var.get());
    return it == vars_.end() ? e : it->second;
  }

 private:
  const std::map<const VarNode *, Expr> &vars_;
};
}  // namespace

Expr substitute(const Expr &e, const std::map<const VarNode *, Expr> &vars) {
  Substituter s(vars);
  return s.mutate(e);
}

}  // namespace tetune
