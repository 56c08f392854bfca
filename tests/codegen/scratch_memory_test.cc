// A JIT kernel's scratch memory comes from rt::ScratchCache (codegen/kernel.cc):
// the root buffer of an intermediate stage is allocated from the system on the
// first run only, as in an exported model.
#include <gtest/gtest.h>

#include "codegen/kernel.h"
#include "runtime/scratch_cache.h"

namespace tetune {
namespace {

TEST(ScratchMemory, RootStageBufferIsReusedAcrossRuns) {
  const int64_t n = 256;  // 256 KB of float32: above ScratchCache::kMinCachedBytes
  Tensor A = placeholder({n, n}, float32(), "A");
  Tensor B = compute({n, n}, [&](const std::vector<Var> &i) { return A(i[0], i[1]) * Expr(2.0f); }, "B");
  Tensor C = compute({n, n}, [&](const std::vector<Var> &i) { return B(i[1], i[0]) + Expr(1.0f); }, "C");
  Schedule s({C});
  Kernel k = Kernel::build(s);
  NDArray a = NDArray::random({n, n}, float32(), 3);
  const uint64_t before = rt::ScratchCache::system_allocations();
  std::vector<NDArray> first = k.run({a});
  const uint64_t after_first = rt::ScratchCache::system_allocations();
  EXPECT_GT(after_first, before) << "B's buffer, at root";
  std::vector<NDArray> second = k.run({a});
  EXPECT_EQ(rt::ScratchCache::system_allocations(), after_first) << "the second run reuses it";
  EXPECT_NEAR(second[0].get(1), 2 * a.get(n) + 1, 1e-6);
}

}  // namespace
}  // namespace tetune
