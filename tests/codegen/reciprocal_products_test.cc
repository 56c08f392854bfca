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

// 16-lane float vectors whose lanes differ: x and d of the products below.
Halide::Expr lanes(float scale, float offset) {
  return Halide::cast(Halide::Float(32, 16), Halide::Internal::Ramp::make(0, 1, 16)) * scale + offset;
}

TEST(ReciprocalProducts, ProductsByAReciprocalBecomeQuotients) {
  using Halide::Internal::Div;
  Halide::Expr x = lanes(0.25f, 0.f), d = lanes(1.f, 1.5f), one = Halide::Internal::make_one(x.type());
  for (const Halide::Expr &e : {x * (one / d), (one / d) * x}) {
    Halide::Expr q = codegen::quotients_for_reciprocal_products(e);
    const auto *div = q.as<Div>();
    ASSERT_NE(div, nullptr) << q;
    EXPECT_TRUE(Halide::Internal::equal(div->a, x)) << q;
    EXPECT_TRUE(Halide::Internal::equal(div->b, d)) << q;
  }
  // Nested: the swish of a swish.
  Halide::Expr inner = x * (one / d);
  Halide::Expr q = codegen::quotients_for_reciprocal_products(inner * (one / (inner + one)));
  ASSERT_NE(q.as<Div>(), nullptr) << q;
  EXPECT_NE(q.as<Div>()->a.as<Div>(), nullptr) << q;
  // Through a let that holds a lane-varying divisor.
  Halide::Expr let = Halide::Internal::Let::make("t", d, x * (one / Halide::Internal::Variable::make(d.type(), "t")));
  EXPECT_NE(codegen::quotients_for_reciprocal_products(let).as<Halide::Internal::Let>()->body.as<Div>(), nullptr);
}

TEST(ReciprocalProducts, OtherProductsAreKept) {
  using Halide::Internal::Broadcast;
  using Halide::Internal::Mul;
  Halide::Var i("i"), j("j");
  Halide::Expr x = lanes(0.25f, 0.f), d = lanes(1.f, 1.5f), one = Halide::Internal::make_one(x.type());
  EXPECT_NE(codegen::quotients_for_reciprocal_products(x * (lanes(0.f, 2.f) / d)).as<Mul>(), nullptr) << "2 / d";
  EXPECT_NE(codegen::quotients_for_reciprocal_products(x * d).as<Mul>(), nullptr);
  // One reciprocal for all lanes (softmax's 1 / row sum): a division a lane would cost more.
  Halide::Expr row_sum = Broadcast::make(Halide::cast<float>(j) + 1.f, 16);
  EXPECT_NE(codegen::quotients_for_reciprocal_products(x * (one / row_sum)).as<Mul>(), nullptr) << "broadcast d";
  Halide::Expr let = Halide::Internal::Let::make("s", row_sum, x * (one / Halide::Internal::Variable::make(d.type(), "s")));
  EXPECT_NE(codegen::quotients_for_reciprocal_products(let).as<Halide::Internal::Let>()->body.as<Mul>(), nullptr)
      << "a let of a broadcast";
  Halide::Expr sx = Halide::cast<float>(i) * 0.25f, sd = Halide::cast<float>(j) + 1.5f;
  EXPECT_NE(codegen::quotients_for_reciprocal_products(sx * (1.0f / sd)).as<Mul>(), nullptr) << "scalars";
  // Integer 1 / d is a floor division: x * (1 / d) is not x / d.
  Halide::Expr n = Halide::Internal::Ramp::make(3, 1, 16), m = Halide::Internal::Ramp::make(2, 2, 16);
  Halide::Expr ione = Halide::Internal::make_one(n.type());
  EXPECT_NE(codegen::quotients_for_reciprocal_products(n * (ione / m)).as<Mul>(), nullptr) << "integers";
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
