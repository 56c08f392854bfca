#include "runtime/scratch_cache.h"

#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace tetune {
namespace rt {

namespace {

// Each block starts with a header of kAlignment bytes that holds its size; the caller gets what follows.
struct Lists {
  std::mutex mu;
  std::unordered_map<size_t, std::vector<void *>> free_blocks;  // by requested size
  size_t cached = 0;
  uint64_t system_allocations = 0;
};

Lists &lists() {
  static Lists *l = new Lists;  // never destroyed: kernels may free scratch while the process exits
  return *l;
}

void *user_part(void *block) { return static_cast<char *>(block) + ScratchCache::kAlignment; }
void *whole_block(void *user) { return static_cast<char *>(user) - ScratchCache::kAlignment; }

}  // namespace

void *ScratchCache::allocate(void *, size_t bytes) {
  Lists &l = lists();
  if (bytes >= kMinCachedBytes) {
    std::lock_guard<std::mutex> lock(l.mu);
    auto it = l.free_blocks.find(bytes);
    if (it != l.free_blocks.end() && !it->second.empty()) {
      void *block = it->second.back();
      it->second.pop_back();
      l.cached -= bytes;
      return user_part(block);
    }
    l.system_allocations++;
  }
  void *block = nullptr;
  if (posix_memalign(&block, kAlignment, kAlignment + bytes) != 0) return nullptr;
  *static_cast<size_t *>(block) = bytes;
  return user_part(block);
}

void ScratchCache::release(void *, void *user) {
  if (!user) return;
  void *block = whole_block(user);
  const size_t bytes = *static_cast<size_t *>(block);
  Lists &l = lists();
  if (bytes >= kMinCachedBytes) {
    std::lock_guard<std::mutex> lock(l.mu);
    if (l.cached + bytes <= kMaxCachedBytes) {
      l.free_blocks[bytes].push_back(block);
      l.cached += bytes;
      return;
    }
  }
  std::free(block);
}

size_t ScratchCache::cached_bytes() {
  std::lock_guard<std::mutex> lock(lists().mu);
  return lists().cached;
}

uint64_t ScratchCache::system_allocations() {
  std::lock_guard<std::mutex> lock(lists().mu);
  return lists().system_allocations;
}

}  // namespace rt
}  // namespace tetune
