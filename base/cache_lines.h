// Whole cache lines of a byte range: evicted from every level, or read once.
// What the measurer does to put a kernel's arrays in a cache state
// (autotune/measure/measure.h, CacheState) and what base/reread_speedup
// times.
#pragma once

#include <cstdint>

namespace tetune {

/** The cache line size these helpers step by, in bytes (every x86-64 CPU). */
constexpr int64_t kCacheLineBytes = 64;

/** Evicts every line of [p, p + bytes) from every cache level (clflush); no fence: callers add _mm_mfence. */
void flush_lines(const void *p, int64_t bytes);

/** Reads one byte of every line of [p, p + bytes); returns their sum so that the reads are not optimized away. */
unsigned read_lines(const void *p, int64_t bytes);

}  // namespace tetune
