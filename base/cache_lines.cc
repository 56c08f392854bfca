#include "base/cache_lines.h"

#include <immintrin.h>

namespace tetune {

void flush_lines(const void *p, int64_t bytes) {
  const char *c = static_cast<const char *>(p);
  for (int64_t off = 0; off < bytes; off += kCacheLineBytes) _mm_clflush(c + off);
}

unsigned read_lines(const void *p, int64_t bytes) {
  const volatile unsigned char *c = static_cast<const volatile unsigned char *>(p);
  unsigned sum = 0;
  for (int64_t off = 0; off < bytes; off += kCacheLineBytes) sum += c[off];
  return sum;
}

}  // namespace tetune
