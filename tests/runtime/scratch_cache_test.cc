// ScratchCache: a freed block of at least kMinCachedBytes is handed out again
// for the same size, aligned; smaller blocks and blocks beyond the cap go
// back to the system.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "runtime/scratch_cache.h"

namespace tetune {
namespace rt {
namespace {

bool aligned(const void *p) { return reinterpret_cast<uintptr_t>(p) % ScratchCache::kAlignment == 0; }

TEST(ScratchCache, AFreedBlockServesTheNextRequestOfItsSize) {
  const size_t bytes = ScratchCache::kMinCachedBytes * 3 + 5;
  void *a = ScratchCache::allocate(nullptr, bytes);
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(aligned(a));
  std::memset(a, 1, bytes);
  const uint64_t from_system = ScratchCache::system_allocations();
  const size_t cached = ScratchCache::cached_bytes();
  ScratchCache::release(nullptr, a);
  EXPECT_EQ(ScratchCache::cached_bytes(), cached + bytes);
  void *b = ScratchCache::allocate(nullptr, bytes);
  EXPECT_EQ(b, a);
  EXPECT_EQ(ScratchCache::system_allocations(), from_system) << "served from the cache";
  EXPECT_EQ(ScratchCache::cached_bytes(), cached);
  void *c = ScratchCache::allocate(nullptr, bytes + 1);  // another size: a new block
  EXPECT_NE(c, b);
  EXPECT_EQ(ScratchCache::system_allocations(), from_system + 1);
  ScratchCache::release(nullptr, b);
  ScratchCache::release(nullptr, c);
  ScratchCache::release(nullptr, nullptr);  // ignored, as free(nullptr)
}

TEST(ScratchCache, SmallBlocksAreNotKept) {
  const size_t cached = ScratchCache::cached_bytes();
  void *a = ScratchCache::allocate(nullptr, 100);
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(aligned(a));
  ScratchCache::release(nullptr, a);
  EXPECT_EQ(ScratchCache::cached_bytes(), cached);
}

TEST(ScratchCache, BlocksBeyondTheCapGoBack) {
  // Untouched, so only address space is used.
  void *big = ScratchCache::allocate(nullptr, ScratchCache::kMaxCachedBytes - ScratchCache::cached_bytes());
  void *more = ScratchCache::allocate(nullptr, ScratchCache::kMinCachedBytes);
  ASSERT_NE(big, nullptr);
  ASSERT_NE(more, nullptr);
  ScratchCache::release(nullptr, big);
  EXPECT_EQ(ScratchCache::cached_bytes(), ScratchCache::kMaxCachedBytes);
  ScratchCache::release(nullptr, more);
  EXPECT_EQ(ScratchCache::cached_bytes(), ScratchCache::kMaxCachedBytes) << "over the cap: freed";
}

}  // namespace
}  // namespace rt
}  // namespace tetune
