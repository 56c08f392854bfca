// ReferenceCache keeps tasks' reference outputs across Measurers; prefill_references
// computes them in parallel children. The cached outputs must be the ones a
// Measurer computes on its own, and the cache must stay within its byte bound.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>

#include "tests/autotune/gemm_task.h"
#include "autotune/measure/measure.h"
#include "autotune/measure/reference_cache.h"
#include "base/errors.h"
#include "codegen/kernel.h"
#include "te/ops/elementwise.h"
#include "te/ops/matmul.h"

namespace tetune {
namespace autotune {
namespace {

using testing::gemm_task;

ReferenceCache::Outputs floats(int64_t n) {
  return std::make_shared<const std::vector<NDArray>>(std::vector<NDArray>{NDArray({n}, float32())});
}

bool same_values(const std::vector<NDArray> &a, const std::vector<NDArray> &b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++)
    if (a[i].nbytes() != b[i].nbytes() || std::memcmp(a[i].raw(), b[i].raw(), a[i].nbytes()) != 0) return false;
  return true;
}

TEST(ReferenceCache, EvictsTheLeastRecentlyUsedToStayWithinItsBytes) {
  ReferenceCache c(3 * 400);  // room for three outputs of 100 floats
  c.insert("a", floats(100));
  c.insert("b", floats(100));
  c.insert("c", floats(100));
  EXPECT_EQ(c.bytes(), 1200);
  ASSERT_TRUE(c.find("a"));  // "a" is now the most recently used: "b" goes next
  c.insert("d", floats(100));
  EXPECT_EQ(c.size(), 3u);
  EXPECT_FALSE(c.find("b"));
  EXPECT_TRUE(c.find("a") && c.find("c") && c.find("d"));
  c.insert("huge", floats(1000));  // larger than the whole cache: not stored, nothing evicted
  EXPECT_FALSE(c.find("huge"));
  EXPECT_EQ(c.size(), 3u);
  c.insert("d", floats(50));  // replacing an entry counts its new size
  EXPECT_EQ(c.bytes(), 1000);
  EXPECT_THROW(ReferenceCache(0), Error);
}

TEST(ReferenceCache, KeyNamesTheWorkloadAndTheInputSeed) {
  Task t = gemm_task(16);
  EXPECT_NE(ReferenceCache::key(t, 1), ReferenceCache::key(t, 2));
  EXPECT_NE(ReferenceCache::key(t, 1), ReferenceCache::key(gemm_task(24), 1));
  EXPECT_EQ(ReferenceCache::key(t, 1), ReferenceCache::key(gemm_task(16), 1));
}

TEST(ReferenceCache, MeasurersOfOneTaskShareOneReference) {
  Task t = gemm_task(24);
  MeasureOptions o;
  ReferenceCache cache;
  Measurer first(t, o, &cache);
  const std::vector<NDArray> &ref = first.reference();
  Measurer second(t, o, &cache);
  EXPECT_EQ(&second.reference(), &ref);  // found, not computed again
  Measurer alone(t, o);                   // without the cache: its own computation, equal values
  EXPECT_NE(&alone.reference(), &ref);
  EXPECT_TRUE(same_values(alone.reference(), ref));
  o.seed += 1;  // other inputs: another reference
  Measurer reseeded(t, o, &cache);
  EXPECT_FALSE(same_values(reseeded.reference(), ref));
  EXPECT_EQ(cache.size(), 2u);
}

TEST(ReferenceCache, PrefillComputesEveryTaskOnceInParallel) {
  std::vector<Task> tasks = {gemm_task(8), gemm_task(12), gemm_task(16), gemm_task(20), gemm_task(12)};
  MeasureOptions o;
  o.parallel_builds = 2;
  ReferenceCache cache;
  prefill_references(tasks, o, cache);
  EXPECT_EQ(cache.size(), 4u);  // gemm12 twice: one workload
  for (const Task &t : tasks) {
    ReferenceCache::Outputs got = cache.find(ReferenceCache::key(t, o.seed));
    ASSERT_TRUE(got) << t.name;
    Measurer m(t, o, &cache);
    EXPECT_EQ(&m.reference(), got.get()) << t.name;
    EXPECT_TRUE(same_values(Measurer(t, o).reference(), *got)) << t.name;
  }
  ReferenceCache none;
  prefill_references(tasks, o, none, [] { return true; });  // stopped before the first
  EXPECT_EQ(none.size(), 0u);
}

// The reference inlines the float pointwise stages of a fused group (one loop nest to compile); its values
// are those of the group with every stage at root, the plainest schedule.
TEST(ReferenceCache, ReferenceWithPointwiseStagesInlinedEqualsEveryStageAtRoot) {
  Tensor A = placeholder({19, 23}, float32(), "A");
  Tensor B = placeholder({23, 17}, float32(), "B");
  Tensor bias = placeholder({17}, float32(), "bias");
  Tensor y = ops::add(ops::matmul(A, B), bias, "y");          // broadcast
  Tensor h = ops::mul(y, ops::clip(ops::add(y, y, "y2"), 0, 6), "h");  // y read three times
  Tensor out = ops::sigmoid(h, "out");
  Task t = make_task("epilogue", {out}, Target{}, 1);
  Measurer m(t);
  const std::vector<NDArray> &ref = m.reference();
  Kernel root = Kernel::build(Schedule(t.outputs), t.target);
  std::vector<NDArray> plain = root.run(m.inputs());
  ASSERT_EQ(plain.size(), ref.size());
  const float *a = plain[0].data<float>(), *b = ref[0].data<float>();
  for (int64_t i = 0; i < plain[0].size(); i++) ASSERT_NEAR(a[i], b[i], 1e-6f * (1 + std::fabs(a[i]))) << i;
}

}  // namespace
}  // namespace autotune
}  // namespace tetune
