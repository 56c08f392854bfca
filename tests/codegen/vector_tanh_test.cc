// Tanh lowers to vector arithmetic (codegen/vector_math.h), not to a libm call per lane: checked
// here against float64 std::tanh in ulp over a dense range and at the special values, in a kernel
// vectorized by 16 (the lanes an AVX-512 register holds) and in a scalar one.
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

std::vector<float> run_tanh(const std::vector<float> &xs, bool vectorize) {
  const int64_t n = static_cast<int64_t>(xs.size());
  Tensor x = placeholder({n}, float32(), "x");
  Tensor y = ops::tanh(x);
  Schedule s({y});
  if (vectorize) {
    auto [o, i] = s.split(y.name(), s.stages().back().spatial_axes[0], 16);
    s.vectorize(y.name(), i);
  }
  NDArray in({n}, float32());
  for (int64_t i = 0; i < n; i++) in.set(i, xs[static_cast<size_t>(i)]);
  NDArray out = Kernel::build(s).run({in})[0];
  std::vector<float> r(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; i++) r[static_cast<size_t>(i)] = static_cast<float>(out.get(i));
  return r;
}

class VectorTanh : public ::testing::TestWithParam<bool> {};

TEST_P(VectorTanh, WithinTwoUlpOverTheWholeRange) {
  std::vector<float> xs;
  for (int i = -240000; i < 240000; i++) xs.push_back(static_cast<float>(i) * 5e-5f);  // [-12, 12), both branches
  for (float m = 1e-30f; m < 20.f; m *= 1.001f) xs.push_back(m), xs.push_back(-m);    // tiny to saturated
  while (xs.size() % 16) xs.push_back(0.5f);
  std::vector<float> got = run_tanh(xs, GetParam());
  double worst = 0;
  float at = 0;
  for (size_t i = 0; i < xs.size(); i++) {
    double e = ulps(got[i], std::tanh(static_cast<double>(xs[i])));
    if (e > worst) worst = e, at = xs[i];
  }
  EXPECT_LE(worst, 2.0) << "worst at x = " << at;
}

TEST_P(VectorTanh, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> xs = {0.f, -0.f, inf, -inf, nan, 1e-45f, -1e-45f, 0.625f, -0.625f, 9.f, 100.f, -100.f, 1.f, -1.f, 3.f, -3.f};
  std::vector<float> got = run_tanh(xs, GetParam());
  EXPECT_EQ(got[0], 0.f);
  EXPECT_EQ(got[1], 0.f);  // its sign is not kept (LLVM's no-signed-zeros flag)
  EXPECT_EQ(got[2], 1.f);
  EXPECT_EQ(got[3], -1.f);
  EXPECT_TRUE(std::isnan(got[4])) << "tanh(NaN) is NaN";
  EXPECT_EQ(got[5], 1e-45f);
  EXPECT_EQ(got[6], -1e-45f);
  for (size_t i = 7; i < xs.size(); i++) EXPECT_LE(ulps(got[i], std::tanh(static_cast<double>(xs[i]))), 2.0) << "x = " << xs[i];
}

INSTANTIATE_TEST_SUITE_P(Lanes, VectorTanh, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool> &p) { return p.param ? "vector16" : "scalar"; });

}  // namespace
}  // namespace tetune
