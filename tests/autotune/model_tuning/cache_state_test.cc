// How `tune` times a model's task (model_tuning.h, cache_state_in_model): with
// its weights flushed exactly when they come from memory on each inference
// (the task's weights above the L2, the model's not re-read from the caches), warm otherwise;
// the model's weight bytes it decides by; and the cache sizes it reads from sysfs.
#include <gtest/gtest.h>

#include <fstream>

#include "base/cache_sizes.h"
#include "model_tuning/model_tuning.h"
#include "te/ops/matmul.h"

using namespace tetune;
using namespace tetune::autotune;

namespace {

constexpr int64_t KiB = 1024, MiB = 1024 * 1024;

// [64, 256] x [256, N]: the B operand (256 x N floats, N KiB) a constant when `weighted`.
Task gemm(int64_t n, bool weighted) {
  Tensor a = placeholder({64, 256}, float32(), "a"), b = placeholder({256, n}, float32(), "b");
  Tensor c = ops::matmul(a, b);
  return weighted ? make_task("gemm", {c}, {b}, Target{}, 2) : make_task("gemm", {c}, Target{}, 2);
}

}  // namespace

TEST(CacheState, ParsesSysfsSizes) {
  EXPECT_EQ(parse_cache_size("1024K"), MiB);
  EXPECT_EQ(parse_cache_size("32M"), 32 * MiB);
  EXPECT_EQ(parse_cache_size("2G"), 2048 * MiB);
  EXPECT_EQ(parse_cache_size("512"), 512);
  EXPECT_EQ(parse_cache_size(""), 0);
  EXPECT_EQ(parse_cache_size("K"), 0);
  EXPECT_EQ(parse_cache_size("12X"), 0);
}

TEST(CacheState, HostSizesComeFromSysfs) {
  std::ifstream l2("/sys/devices/system/cpu/cpu0/cache/index2/size");
  if (!l2) GTEST_SKIP() << "no /sys/devices/system/cpu/cpu0/cache on this machine";
  const CacheSizes c = host_cache_sizes();
  EXPECT_GT(c.l2_bytes, 64 * KiB);
  EXPECT_LT(c.l2_bytes, 64 * MiB);
  if (c.l3_bytes) {
    EXPECT_GT(c.l3_bytes, c.l2_bytes);
  }
}

TEST(CacheState, WeightsFlushedOnlyWhereTheyComeFromMemory) {
  const int64_t l2 = 512 * KiB;
  const Task big = gemm(1024, true), small = gemm(256, true), none = gemm(1024, false);
  EXPECT_EQ(constant_bytes(big), 1024.0 * KiB);
  EXPECT_EQ(constant_bytes(small), 256.0 * KiB);
  EXPECT_EQ(constant_bytes(none), 0.0);
  EXPECT_EQ(cache_state_in_model(big, false, l2), CacheState::kModel);
  EXPECT_EQ(cache_state_in_model(big, true, l2), CacheState::kWarm) << "the model's weights stay cached";
  EXPECT_EQ(cache_state_in_model(small, false, l2), CacheState::kWarm) << "the task's weights fit the L2";
  EXPECT_EQ(cache_state_in_model(none, false, l2), CacheState::kWarm);
  EXPECT_EQ(cache_state_in_model(big, false, 0), CacheState::kWarm) << "unknown L2";
}

TEST(CacheState, ModelWeightsAboveTheReportedL3ComeFromMemory) {
  EXPECT_FALSE(model_weights_stay_cached(8.0 * MiB, CacheSizes{512 * KiB, 4 * MiB}));
}

TEST(CacheState, ModelWeightsWithinTheReportedL3AreMeasured) {
  // 256 KiB re-read from any machine's L2 (or L3) many times faster than from memory, whether or not
  // sysfs names an L3; a reported L3 is necessary, not sufficient.
  EXPECT_TRUE(model_weights_stay_cached(256.0 * KiB, CacheSizes{512 * KiB, 4 * MiB}));
  EXPECT_TRUE(model_weights_stay_cached(256.0 * KiB, CacheSizes{512 * KiB, 0}));
}

TEST(CacheState, TimingStatesFollowTheOptions) {
  ModelTask t;
  t.task = gemm(1024, true);
  t.task.weight = 1;
  const std::vector<ModelTask> tasks = {t};
  ModelTuneOptions o;
  o.cache_by_weights = false;
  o.measure.cache = CacheState::kCold;
  EXPECT_EQ(timing_states(tasks, o), std::vector<CacheState>{CacheState::kCold}) << "measure.cache for every task";
  o.cache_by_weights = true;
  // 1 MiB of weights in a 1 MiB model: re-read from the caches on any machine, so warm.
  EXPECT_EQ(timing_states(tasks, o), std::vector<CacheState>{CacheState::kWarm});
}

TEST(CacheState, ModelWeightBytesCountOccurrencesNotAlternatives) {
  ModelTask a, b, direct;
  a.task = gemm(1024, true);  // 1 MiB of weights, twice in the model
  a.task.weight = 2;
  b.task = gemm(256, false);
  direct.task = gemm(512, true);  // another form of a conv: it replaces kernels, it adds no weights
  direct.rivals = {0};
  EXPECT_EQ(model_weight_bytes({a, b, direct}), 2.0 * MiB);
}

TEST(CacheState, TasksAreSimilarOnlyInTheSameTimingState) {
  // Ansor's forward estimate takes the best throughput among similar tasks; one timed with its weights
  // flushed must not take a warm one's, which it may never reach.
  ModelTask a, b, unnamed;
  a.task = gemm(1024, true);
  b.task = gemm(256, true);
  a.similarity_key = b.similarity_key = "MatMul_Add";
  EXPECT_EQ(similarity_key(a, CacheState::kWarm), similarity_key(b, CacheState::kWarm));
  EXPECT_NE(similarity_key(a, CacheState::kModel), similarity_key(b, CacheState::kWarm));
  EXPECT_EQ(similarity_key(a, CacheState::kModel), similarity_key(b, CacheState::kModel));
  EXPECT_EQ(similarity_key(unnamed, CacheState::kModel), "") << "an empty op sequence is similar to nothing";
}
