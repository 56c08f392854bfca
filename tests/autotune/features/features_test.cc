#include <gtest/gtest.h>

#include "tests/autotune/gemm_task.h"
#include "autotune/features/features.h"
#include "codegen/kernel.h"

namespace tetune {
namespace autotune {
namespace {

using testing::gemm_task;

TEST(Features, FixedLengthDeterministicAndDiscriminative) {
  Task t = gemm_task(64);
  ASSERT_EQ(features::feature_names().size(), static_cast<size_t>(features::kNumFeatures));
  Schedule s0(t.outputs);
  Schedule s1(t.outputs);
  s1.cache_write("C");
  auto tiles = s1.tile("C", "i", "j", 8, 16);
  s1.parallel("C", tiles[0]);
  s1.vectorize("C", tiles[3]);
  s1.compute_at("C.local", "C", tiles[1]);
  auto f0 = features::schedule_features(s0, t);
  auto f0b = features::schedule_features(s0, t);
  auto f1 = features::schedule_features(s1, t);
  EXPECT_EQ(f0.size(), static_cast<size_t>(features::kNumFeatures));
  EXPECT_EQ(f1.size(), static_cast<size_t>(features::kNumFeatures));
  EXPECT_EQ(f0, f0b);
  EXPECT_NE(f0, f1);
  // Same as the features of the JIT-built kernel's loop nest.
  EXPECT_EQ(features::loop_nest_features(Kernel::build(s1).loop_nest(), t, &s1), f1);
  // Parallel / vector features are visible.
  auto idx = [](const std::string &n) {
    const auto &v = features::feature_names();
    return std::find(v.begin(), v.end(), n) - v.begin();
  };
  EXPECT_EQ(f0[idx("s.n_parallel")], 0);
  EXPECT_GT(f1[idx("s.n_parallel")], 0);
  EXPECT_GT(f1[idx("all.max.lanes")], 0);
}

}  // namespace
}  // namespace autotune
}  // namespace tetune
