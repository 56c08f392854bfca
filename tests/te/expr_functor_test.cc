// te/expr_functor.h: visiting order, per-occurrence counts, pruning, any_of,
// ExprMutator's identity and rebuild rules, substitute.
#include "te/expr_functor.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/errors.h"
#include "te/tensor.h"

namespace tetune {
namespace {

std::vector<std::string> post_order_strings(const Expr &e) {
  std::vector<std::string> out;
  post_order_visit(e, [&](const Expr &n) { out.push_back(to_string(n)); });
  return out;
}

TEST(ExprFunctor, PostOrderVisitsChildrenBeforeParentLeftToRight) {
  Tensor A = placeholder({8, 8}, float32(), "A");
  Var i("i"), j("j");
  Expr e = A(i, j + 1) * 2.0f;
  std::vector<std::string> want = {"i", "j", "1", "(j + 1)", "A[i, (j + 1)]", "2f", "(A[i, (j + 1)] * 2f)"};
  EXPECT_EQ(post_order_strings(e), want);
}

TEST(ExprFunctor, PreOrderVisitsParentFirstAndPrunesSubtrees) {
  Tensor A = placeholder({8}, float32(), "A");
  Var i("i");
  Expr e = exp(A(i + 1)) + A(i);
  std::vector<std::string> all, pruned;
  pre_order_visit(e, [&](const Expr &n) {
    all.push_back(to_string(n));
    return true;
  });
  pre_order_visit(e, [&](const Expr &n) {
    pruned.push_back(to_string(n));
    return n->kind != ExprKind::Access;  // index arithmetic below an access is skipped
  });
  std::vector<std::string> want_all = {"(exp(A[(i + 1)]) + A[i])", "exp(A[(i + 1)])", "A[(i + 1)]", "(i + 1)",
                                       "i", "1", "A[i]", "i"};
  std::vector<std::string> want_pruned = {"(exp(A[(i + 1)]) + A[i])", "exp(A[(i + 1)])", "A[(i + 1)]", "A[i]"};
  EXPECT_EQ(all, want_all);
  EXPECT_EQ(pruned, want_pruned);
}

TEST(ExprFunctor, SharedNodeIsVisitedOncePerOccurrence) {
  Var x("x");
  Expr xe = x;
  Expr sq = xe * xe;  // one Var node, two occurrences
  Expr e = sq + sq;   // one product node, two occurrences
  int vars = 0, muls = 0, nodes = 0;
  post_order_visit(e, [&](const Expr &n) {
    nodes++;
    vars += n->kind == ExprKind::Var;
    muls += n->kind == ExprKind::Binary && static_cast<BinaryOp>(n->op) == BinaryOp::Mul;
  });
  EXPECT_EQ(nodes, 7);
  EXPECT_EQ(vars, 4);
  EXPECT_EQ(muls, 2);
}

TEST(ExprFunctor, UndefinedExprVisitsNothing) {
  int calls = 0;
  post_order_visit(Expr(), [&](const Expr &) { calls++; });
  pre_order_visit(Expr(), [&](const Expr &) { return ++calls > 0; });
  EXPECT_EQ(calls, 0);
  EXPECT_FALSE(any_of(Expr(), [](const Expr &) { return true; }));
}

TEST(ExprFunctor, AnyOfFindsANodeAndStopsAtTheFirst) {
  Tensor A = placeholder({8}, float32(), "A");
  Var i("i");
  Expr e = select(i < 4, A(i), A(i + 1));
  int calls = 0;
  auto is_access = [&](const Expr &n) {
    calls++;
    return n->kind == ExprKind::Access;
  };
  EXPECT_TRUE(any_of(e, is_access));
  // select, (i < 4), i, 4, A[i]: the second access is never tested.
  EXPECT_EQ(calls, 5);
  EXPECT_FALSE(any_of(e, [](const Expr &n) { return n->kind == ExprKind::Reduce; }));
}

TEST(ExprMutator, IdentityReturnsTheSameNodes) {
  Tensor A = placeholder({8, 4}, float32(), "A");
  Var i("i");
  IterVar k = reduce_axis(4, "k");
  Expr e = sum(select(A(i, k.var) > 0.0f, exp(A(i, k.var)), cast(float32(), Expr(i))), {k});
  ExprMutator m;
  Expr out = m.mutate(e);
  EXPECT_EQ(out.get(), e.get());
  EXPECT_FALSE(m.mutate(Expr()).defined());
}

TEST(SubstituteExpr, ReplacesVariablesAndKeepsUntouchedSubtrees) {
  Tensor A = placeholder({8, 8}, float32(), "A"), B = placeholder({8}, float32(), "B");
  Var i("i"), j("j");
  Expr untouched = B(j);
  Expr e = A(i, j) + untouched;
  Expr out = substitute(e, {{i.get(), Expr(i) + 1}});
  EXPECT_EQ(to_string(out), "(A[(i + 1), j] + B[j])");
  EXPECT_EQ(to_string(e), "(A[i, j] + B[j])");  // the input is not changed
  EXPECT_NE(out.get(), e.get());
  EXPECT_EQ(out->args[1].get(), untouched.get());
}

TEST(SubstituteExpr, IsSimultaneousAndKeepsReduceAxes) {
  Tensor A = placeholder({8, 8}, float32(), "A");
  Var i("i"), j("j");
  IterVar k = reduce_axis(8, "k");
  Expr e = sum(A(i, k.var) * A(j, k.var), {k});
  Expr out = substitute(e, {{i.get(), Expr(j)}, {j.get(), Expr(i)}});
  EXPECT_EQ(to_string(out), "sum((A[j, k] * A[i, k]), axes=[k:8])");
  ASSERT_EQ(out->reduce_axes.size(), 1u);
  EXPECT_TRUE(out->reduce_axes[0].var.same_as(k.var));
}

TEST(SubstituteExpr, IllTypedReplacementRaisesDTypeError) {
  Tensor A = placeholder({8}, float32(), "A");
  Var i("i");
  EXPECT_THROW(substitute(A(i), {{i.get(), Expr(1.5f)}}), DTypeError);
}

// Rewrites a + b into a - b, after rewriting the operands.
class AddToSub : public ExprMutator {
 protected:
  Expr mutate_binary(const Expr &e) override {
    Expr r = ExprMutator::mutate_binary(e);
    if (static_cast<BinaryOp>(r->op) == BinaryOp::Add) return r->args[0] - r->args[1];
    return r;
  }
};

TEST(ExprMutator, OverrideRewritesEveryOccurrenceBottomUp) {
  Var x("x"), y("y");
  Expr e = (Expr(x) + y) * (Expr(x) + (Expr(y) + 2));
  AddToSub m;
  EXPECT_EQ(to_string(m.mutate(e)), "((x - y) * (x - (y - 2)))");
}

}  // namespace
}  // namespace tetune
