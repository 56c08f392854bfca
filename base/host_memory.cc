#include "base/host_memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <new>

namespace tetune {

void *allocate_host_memory(size_t bytes) {
  const size_t align = bytes >= kHugePageBytes ? kHugePageBytes : 64;
  const size_t n = (std::max<size_t>(bytes, 1) + align - 1) / align * align;  // aligned_alloc wants a multiple
  void *p = std::aligned_alloc(align, n);
  if (!p) throw std::bad_alloc();
  if (align == kHugePageBytes) madvise(p, n, MADV_HUGEPAGE);  // before the first touch, which picks the page size
  return p;
}

void free_host_memory(void *p) { std::free(p); }

}  // namespace tetune
