// Exp lowers to codegen's vector_exp (codegen/vector_math.h): checked here against float64 std::exp
// in ulp over float32's whole normal range and at the special values, in a kernel vectorized by 16
// (the lanes an AVX-512 register holds) and in a scalar one.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "codegen/kernel.h"
#include "schedule/schedule.h"
#include "te/ops/elementwise.h"
#include "te/tensor.h"

namespace tetune {
namespace {

// |got - want| in units of the last place of float32 want (want as float64).
double ulps(float got, double want) {
  const float w = static_cast<float>(want);
  const double ulp = std::nextafter(std::fabs(w), std::numeric_limits<float>::infinity()) - std::fabs(w);
  return std::fabs(static_cast<double>(got) - want) / ulp;
}

std::vector<float> run_exp(std::vector<float> xs, bool vectorize) {
  const size_t count = xs.size();
  while (xs.size() % 16) xs.push_back(0.f);
  const int64_t n = static_cast<int64_t>(xs.size());
  Tensor x = placeholder({n}, float32(), "x");
  Tensor y = ops::exp(x);
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

class VectorExp : public ::testing::TestWithParam<bool> {};

TEST_P(VectorExp, WithinFiveUlpOverTheNormalRange) {
  std::vector<float> xs;
  for (int i = -873000; i <= 887000; i++) xs.push_back(static_cast<float>(i) * 1e-4f);  // e^x normal, [-87.3, 88.7]
  for (float m = 1e-30f; m < 80.f; m *= 1.001f) xs.push_back(m), xs.push_back(-m);     // tiny to large |x|
  std::vector<float> got = run_exp(xs, GetParam());
  double worst = 0;
  float at = 0;
  for (size_t i = 0; i < xs.size(); i++) {
    double e = ulps(got[i], std::exp(static_cast<double>(xs[i])));
    if (e > worst) worst = e, at = xs[i];
  }
  EXPECT_LE(worst, 5.0) << "worst at x = " << at;
}

TEST_P(VectorExp, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> xs = {0.f, -0.f, inf, -inf, nan, -nan, 88.8f, 1000.f, -87.4f, -1000.f, 1.f, -1.f, 0.5f, 10.f};
  std::vector<float> got = run_exp(xs, GetParam());
  EXPECT_EQ(got[0], 1.f);
  EXPECT_EQ(got[1], 1.f);
  EXPECT_EQ(got[2], inf) << "exp(+inf) is +inf (Halide 14's exp gives 0)";
  EXPECT_EQ(got[3], 0.f);
  EXPECT_TRUE(std::isnan(got[4])) << "exp(NaN) is NaN";
  EXPECT_TRUE(std::isnan(got[5])) << "exp(-NaN) is NaN";
  EXPECT_EQ(got[6], inf) << "overflow";
  EXPECT_EQ(got[7], inf) << "overflow";
  EXPECT_EQ(got[8], 0.f) << "below the smallest normal float";
  EXPECT_EQ(got[9], 0.f);
  EXPECT_EQ(got[10], static_cast<float>(std::exp(1.0)));
  EXPECT_LE(ulps(got[11], std::exp(-1.0)), 1.0);
  EXPECT_LE(ulps(got[12], std::exp(0.5)), 1.0);
  EXPECT_LE(ulps(got[13], std::exp(10.0)), 1.0);
}

INSTANTIATE_TEST_SUITE_P(Lanes, VectorExp, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool> &p) { return p.param ? "vector16" : "scalar"; });

}  // namespace
}  // namespace tetune
