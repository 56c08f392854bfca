// Tanh and Exp lower to vector arithmetic (codegen/vector_math.h): tanh, not a libm call per lane;
// exp, a shorter polynomial than Halide's. Each is checked against its float64 std function in
// ulp over a dense range and at the special values, in a kernel vectorized by 16 (the lanes an
// AVX-512 register holds) and in a scalar one.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "codegen/kernel.h"
#include "schedule/schedule.h"
#include "te/ops/elementwise.h"
#include "te/tensor.h"

namespace tetune {
namespace {

const float kInf = std::numeric_limits<float>::infinity(), kNaN = std::numeric_limits<float>::quiet_NaN();

// |got - want| in units of the last place of float32 want (want as float64).
double ulps(float got, double want) {
  const float w = static_cast<float>(want);
  const double ulp = std::nextafter(std::fabs(w), std::numeric_limits<float>::infinity()) - std::fabs(w);
  return std::fabs(static_cast<double>(got) - want) / ulp;
}

using UnaryOp = std::function<Tensor(const Tensor &)>;

// op over xs, one kernel (vectorized by 16 or scalar).
std::vector<float> run(const UnaryOp &op, std::vector<float> xs, bool vectorize) {
  const size_t count = xs.size();
  while (xs.size() % 16) xs.push_back(0.f);
  const int64_t n = static_cast<int64_t>(xs.size());
  Tensor x = placeholder({n}, float32(), "x");
  Tensor y = op(x);
  Schedule s({y});
  if (vectorize) {
    auto [o, i] = s.split(y.name(), s.stages().back().spatial_axes[0], 16);
    s.vectorize(y.name(), i);
  }
  NDArray in({n}, float32());
  for (int64_t i = 0; i < n; i++) in.set(i, xs[static_cast<size_t>(i)]);
  NDArray out = Kernel::build(s).run({in})[0];
  std::vector<float> r(count);
  for (size_t i = 0; i < count; i++) r[i] = static_cast<float>(out.get(static_cast<int64_t>(i)));
  return r;
}

// The largest error of op over xs in ulp of float64 ref, and where.
std::pair<double, float> worst_ulps(const UnaryOp &op, double (*ref)(double), const std::vector<float> &xs, bool vectorize) {
  std::vector<float> got = run(op, xs, vectorize);
  std::pair<double, float> worst{0, 0};
  for (size_t i = 0; i < xs.size(); i++) {
    double e = ulps(got[i], ref(static_cast<double>(xs[i])));
    if (e > worst.first) worst = {e, xs[i]};
  }
  return worst;
}

double tanh64(double v) { return std::tanh(v); }
double exp64(double v) { return std::exp(v); }
Tensor tanh_op(const Tensor &x) { return ops::tanh(x); }
Tensor exp_op(const Tensor &x) { return ops::exp(x); }

class VectorMath : public ::testing::TestWithParam<bool> {};

TEST_P(VectorMath, TanhWithinTwoUlpOverTheWholeRange) {
  std::vector<float> xs;
  for (int i = -240000; i < 240000; i++) xs.push_back(static_cast<float>(i) * 5e-5f);  // [-12, 12), both branches
  for (float m = 1e-30f; m < 20.f; m *= 1.001f) xs.push_back(m), xs.push_back(-m);    // tiny to saturated
  auto [worst, at] = worst_ulps(tanh_op, tanh64, xs, GetParam());
  EXPECT_LE(worst, 2.0) << "worst at x = " << at;
}

TEST_P(VectorMath, TanhSpecialValues) {
  std::vector<float> xs = {0.f, -0.f, kInf, -kInf, kNaN, 1e-45f, -1e-45f, 0.625f, -0.625f, 9.f, 100.f, -100.f, 1.f, -1.f, 3.f, -3.f};
  std::vector<float> got = run(tanh_op, xs, GetParam());
  EXPECT_EQ(got[0], 0.f);
  EXPECT_EQ(got[1], 0.f);  // its sign is not kept (LLVM's no-signed-zeros flag)
  EXPECT_EQ(got[2], 1.f);
  EXPECT_EQ(got[3], -1.f);
  EXPECT_TRUE(std::isnan(got[4])) << "tanh(NaN) is NaN";
  EXPECT_EQ(got[5], 1e-45f);
  EXPECT_EQ(got[6], -1e-45f);
  for (size_t i = 7; i < xs.size(); i++) EXPECT_LE(ulps(got[i], std::tanh(static_cast<double>(xs[i]))), 2.0) << "x = " << xs[i];
}

TEST_P(VectorMath, ExpWithinFiveUlpOverTheNormalRange) {
  std::vector<float> xs;
  for (int i = -873000; i <= 887000; i++) xs.push_back(static_cast<float>(i) * 1e-4f);  // e^x normal, [-87.3, 88.7]
  for (float m = 1e-30f; m < 80.f; m *= 1.001f) xs.push_back(m), xs.push_back(-m);     // tiny to large |x|
  auto [worst, at] = worst_ulps(exp_op, exp64, xs, GetParam());
  EXPECT_LE(worst, 5.0) << "worst at x = " << at;
}

TEST_P(VectorMath, ExpSpecialValues) {
  std::vector<float> xs = {0.f, -0.f, kInf, -kInf, kNaN, -kNaN, 88.8f, 1000.f, -87.4f, -1000.f, 1.f, -1.f, 0.5f, 10.f};
  std::vector<float> got = run(exp_op, xs, GetParam());
  EXPECT_EQ(got[0], 1.f);
  EXPECT_EQ(got[1], 1.f);
  EXPECT_EQ(got[2], kInf) << "exp(+inf) is +inf (Halide 14's exp gives 0)";
  EXPECT_EQ(got[3], 0.f);
  EXPECT_TRUE(std::isnan(got[4])) << "exp(NaN) is NaN";
  EXPECT_TRUE(std::isnan(got[5])) << "exp(-NaN) is NaN";
  EXPECT_EQ(got[6], kInf) << "overflow";
  EXPECT_EQ(got[7], kInf) << "overflow";
  EXPECT_EQ(got[8], 0.f) << "below the smallest normal float";
  EXPECT_EQ(got[9], 0.f);
  EXPECT_EQ(got[10], static_cast<float>(std::exp(1.0)));
  for (size_t i = 11; i < xs.size(); i++) EXPECT_LE(ulps(got[i], std::exp(static_cast<double>(xs[i]))), 1.0) << "x = " << xs[i];
}

INSTANTIATE_TEST_SUITE_P(Lanes, VectorMath, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool> &p) { return p.param ? "vector16" : "scalar"; });

}  // namespace
}  // namespace tetune
