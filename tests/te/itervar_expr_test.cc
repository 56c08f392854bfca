// An IterVar converts to the Expr of its variable, so an access reads
// A(i, k) rather than A(i, k.var), and builds the same expression.
#include <gtest/gtest.h>

#include "te/structural_hash.h"
#include "te/tensor.h"

namespace tetune {
namespace {

TEST(IterVarExpr, IsItsVariable) {
  IterVar k = reduce_axis(12, "k");
  Expr e = k;
  ASSERT_EQ(e->kind, ExprKind::Var);
  EXPECT_EQ(e->var.get(), k.var.get());
  EXPECT_EQ(e.dtype(), int32());
}

TEST(IterVarExpr, AccessesAndArithmeticMatchTheVarForm) {
  Tensor A = placeholder({16, 12}, float32(), "A"), B = placeholder({12, 24}, float32(), "B");
  auto gemm = [&](bool itervar) {
    IterVar k = reduce_axis(12, "k");
    return compute({16, 24}, [&](const std::vector<Var> &i) {
      if (itervar) return sum(A(i[0], k) * B(k * 1 + 0, i[1]), {k});
      return sum(A(i[0], k.var) * B(Expr(k.var) * 1 + 0, i[1]), {k});
    }, "C", "matmul", {"i", "j"});
  };
  EXPECT_EQ(canonical_form({gemm(true)}), canonical_form({gemm(false)}));
  EXPECT_EQ(workload_key({gemm(true)}), workload_key({gemm(false)}));
}

// With the conversion, a braced axis list still means a reduction: max(x, {k})
// is the reduction over k, not the binary max of x and k.
TEST(IterVarExpr, BracedAxesStillReduce) {
  Tensor X = placeholder({4, 8}, float32(), "X");
  IterVar k = reduce_axis(8, "k");
  Expr m = max(X(0, k), {k}), n = min(X(0, k), {k});
  EXPECT_EQ(m->kind, ExprKind::Reduce);
  EXPECT_EQ(static_cast<ReduceOp>(m->op), ReduceOp::Max);
  EXPECT_EQ(static_cast<ReduceOp>(n->op), ReduceOp::Min);
  ASSERT_EQ(m->reduce_axes.size(), 1u);
  EXPECT_EQ(m->reduce_axes[0].var.get(), k.var.get());
  Expr b = max(k, Expr(k) + 1);  // the binary max of two index expressions
  EXPECT_EQ(b->kind, ExprKind::Binary);
}

}  // namespace
}  // namespace tetune
