// Host memory for arrays that kernels stream: aligned, and on transparent
// huge pages where they span one.
#pragma once

#include <cstddef>

namespace tetune {

/** Bytes of an x86-64 huge page (2 MiB); arrays of at least this size start on one. */
constexpr size_t kHugePageBytes = size_t{2} << 20;

/**
 * Uninitialized memory of at least `bytes` bytes (one when `bytes` is 0),
 * released with free_host_memory. Arrays under kHugePageBytes are 64-byte
 * aligned (a cache line, what AVX-512 aligned loads want); larger ones start
 * on a huge page and ask for transparent huge pages (madvise MADV_HUGEPAGE,
 * honoured where /sys/kernel/mm/transparent_hugepage/enabled is "madvise" or
 * "always"; a hint, never an error). Why: a GEMM walking a weight's rows
 * touches a page per row, and with 4 KiB pages a model's weights miss the
 * TLB; the exported runtime and the tuner's measurements must page alike, or
 * a kernel timed alone runs slower than it does in the model.
 * Raises std::bad_alloc when the memory is not there.
 */
void *allocate_host_memory(size_t bytes);
/** Releases what allocate_host_memory returned (nullptr: nothing). */
void free_host_memory(void *p);

}  // namespace tetune
