// codegen writes a float product by a reciprocal, x * (1 / d), as the quotient x / d
// (codegen/reciprocal_products.h): one vdivps for the swish x * sigmoid(x) instead of a vdivps
// and a vmulps. Checked on the rewritten expressions, and on a kernel at IEEE's special values.
#include <gtest/gtest.h>

#include <Halide.h>

#include <cmath>
#include <limits>

#include "codegen/kernel.h"
#include "codegen/reciprocal_products.h"
#include "schedule/schedule.h"
#include "te/ops/elementwise.h"
#include "te/tensor.h"

namespace tetune {
namespace {

const float kInf = std::numeric_limits<float>::infinity(), kNaN = std::numeric_limits<float>::quiet_NaN();

using HExpr = Halide::Expr;
using Halide::Internal::Stmt;

// 16-lane float vectors whose lanes differ: x and d of the products below.
HExpr lanes(float scale, float offset) {
  return Halide::cast(Halide::Float(32, 16), Halide::Internal::Ramp::make(0, 1, 16)) * scale + offset;
}

// Float products and quotients in s.
std::pair<int, int> products_and_quotients(const Stmt &s) {
  struct Count : Halide::Internal::IRVisitor {
    int mul = 0, div = 0;
    using IRVisitor::visit;
    void visit(const Halide::Internal::Mul *op) override {
      mul += op->type.is_float();
      IRVisitor::visit(op);
    }
    void visit(const Halide::Internal::Div *op) override {
      div += op->type.is_float();
      IRVisitor::visit(op);
    }
  } c;
  s.accept(&c);
  return {c.mul, c.div};
}

// for (i = 0; i < 64; i++) { body }
Stmt loop(const std::string &var, const Stmt &body) {
  return Halide::Internal::For::make(var, 0, 64, Halide::Internal::ForType::Serial, Halide::DeviceAPI::None, body);
}

TEST(ReciprocalProducts, ProductsByAReciprocalBecomeQuotients) {
  using Halide::Internal::Div;
  HExpr x = lanes(0.25f, 0.f), d = lanes(1.f, 1.5f), one = Halide::Internal::make_one(x.type());
  for (const HExpr &e : {x * (one / d), (one / d) * x}) {
    HExpr q = codegen::quotients_for_reciprocal_products(e);
    const auto *div = q.as<Div>();
    ASSERT_NE(div, nullptr) << q;
    EXPECT_TRUE(Halide::Internal::equal(div->a, x)) << q;
    EXPECT_TRUE(Halide::Internal::equal(div->b, d)) << q;
  }
  // Nested: the swish of a swish.
  HExpr inner = x * (one / d);
  HExpr q = codegen::quotients_for_reciprocal_products(inner * (one / (inner + one)));
  ASSERT_NE(q.as<Div>(), nullptr) << q;
  EXPECT_NE(q.as<Div>()->a.as<Div>(), nullptr) << q;
  Halide::Var i("i"), j("j");
  EXPECT_NE(codegen::quotients_for_reciprocal_products(Halide::cast<float>(i) * (1.0f / (Halide::cast<float>(j) + 1.5f))).as<Div>(),
            nullptr)
      << "scalars";
}

TEST(ReciprocalProducts, OtherProductsAreKept) {
  using Halide::Internal::Mul;
  HExpr x = lanes(0.25f, 0.f), d = lanes(1.f, 1.5f);
  EXPECT_NE(codegen::quotients_for_reciprocal_products(x * (lanes(0.f, 2.f) / d)).as<Mul>(), nullptr) << "2 / d";
  EXPECT_NE(codegen::quotients_for_reciprocal_products(x * d).as<Mul>(), nullptr);
  // Integer 1 / d is a floor division: x * (1 / d) is not x / d.
  HExpr n = Halide::Internal::Ramp::make(3, 1, 16), m = Halide::Internal::Ramp::make(2, 2, 16);
  EXPECT_NE(codegen::quotients_for_reciprocal_products(n * (Halide::Internal::make_one(n.type()) / m)).as<Mul>(), nullptr)
      << "integers";
}

// In a loop, only a 1 / d the loop changes is folded: one the loop does not change (softmax's
// 1 / row sum) is one division for all its products once LLVM hoists it.
TEST(ReciprocalProducts, OnlyWhereTheInnermostLoopChangesTheDivisor) {
  using Halide::Internal::Evaluate;
  using Halide::Internal::LetStmt;
  using Halide::Internal::Variable;
  HExpr i = Variable::make(Halide::Int(32), "i"), j = Variable::make(Halide::Int(32), "j");
  HExpr x = Halide::cast<float>(i) * 0.25f;
  HExpr varying = Halide::cast<float>(i) + 1.5f, row = Halide::cast<float>(j) + 1.5f;
  auto product = [&](const HExpr &d) { return Evaluate::make(x * (1.0f / d)); };
  EXPECT_EQ(products_and_quotients(codegen::quotients_for_reciprocal_products(loop("i", product(varying)))),
            std::make_pair(1, 1))
      << "x * 0.25f stays; x * (1 / d) becomes x / d";
  EXPECT_EQ(products_and_quotients(codegen::quotients_for_reciprocal_products(loop("j", loop("i", product(row))))),
            std::make_pair(2, 1))
      << "d changes with the outer loop only";
  // Through lets: one bound inside the loop to a value of i, one bound outside to a row's value.
  HExpr t = Variable::make(Halide::Float(32), "t");
  Stmt inner_let = loop("i", LetStmt::make("t", varying, product(t)));
  EXPECT_EQ(products_and_quotients(codegen::quotients_for_reciprocal_products(inner_let)), std::make_pair(1, 1));
  Stmt outer_let = loop("j", LetStmt::make("t", row, loop("i", product(t))));
  EXPECT_EQ(products_and_quotients(codegen::quotients_for_reciprocal_products(outer_let)), std::make_pair(2, 1));
}

// x * (1 / d) in a kernel vectorized by 16: equal to IEEE x / d, where two roundings differ (3 / 7),
// 1 / d overflows (d = 1e-39) and at zeros, infinities and NaN.
TEST(ReciprocalProducts, KernelGivesTheQuotientAtSpecialValues) {
  const std::vector<std::pair<float, float>> cases = {
      {3.f, 7.f},   {-5.f, 3.f},   {1e-30f, 1e-39f}, {2.f, 0.f},     {-2.f, 0.f},  {0.f, 0.f},  {2.f, kInf}, {-2.f, kInf},
      {kInf, kInf}, {kInf, 2.f},   {kNaN, 2.f},      {2.f, kNaN},    {-kInf, 1.f}, {10.f, -3.f}, {0.f, 4.f},  {6.f, 7.f}};
  const int64_t n = static_cast<int64_t>(cases.size());
  Tensor x = placeholder({n}, float32(), "x"), d = placeholder({n}, float32(), "d");
  Tensor y = compute({n}, [&](const std::vector<Var> &v) { return x(v[0]) * (Expr(1.0f) / d(v[0])); }, "y");
  Schedule s({y});
  auto [o, in] = s.split(y.name(), s.stages().back().spatial_axes[0], 16);
  s.vectorize(y.name(), in);
  NDArray xs({n}, float32()), ds({n}, float32());
  for (int64_t k = 0; k < n; k++) xs.set(k, cases[static_cast<size_t>(k)].first), ds.set(k, cases[static_cast<size_t>(k)].second);
  NDArray got = Kernel::build(s).run({xs, ds})[0];
  for (int64_t k = 0; k < n; k++) {
    const auto [a, b] = cases[static_cast<size_t>(k)];
    const float want = a / b, g = static_cast<float>(got.get(k));
    SCOPED_TRACE(std::to_string(a) + " * (1 / " + std::to_string(b) + ")");
    if (std::isnan(want)) EXPECT_TRUE(std::isnan(g)) << g;
    else EXPECT_EQ(g, want) << "one rounding, as x / d";
  }
}

// The swish x * sigmoid(x), its sigmoid inlined: one division, no product by the reciprocal.
// (LLVM folds a bare x * (1 / d) itself, but not here: exp's range selects stand between the two.)
TEST(ReciprocalProducts, SwishDividesOnce) {
  Tensor x = placeholder({64}, float32(), "x");
  Tensor g = ops::sigmoid(x, "sig"), y = ops::mul(x, g, "swish");
  Schedule s({y});
  s.compute_inline(s.stage_of(g));
  auto [o, in] = s.split(s.stage_of(y), s.stages().back().spatial_axes[0], 16);
  s.vectorize(s.stage_of(y), in);
  const std::string stmt = Kernel::build(s).lowered_stmt();
  EXPECT_EQ(stmt.find("1.000000f)/"), std::string::npos) << stmt;
  EXPECT_EQ(stmt.find("1.000000f/"), std::string::npos) << stmt;
  EXPECT_NE(stmt.find("/"), std::string::npos) << stmt;
}

}  // namespace
}  // namespace tetune
