// Scratch memory for Halide kernels (halide_malloc / halide_free), kept for
// reuse instead of given back to the system.
//
// Why: a kernel whose schedule computes a stage at root (a padded copy of
// its input, a packed panel) allocates that buffer on every call. glibc
// serves such sizes (above 128 KB) with fresh pages once it has trimmed
// them, and in a model, where kernels of other sizes run in between, it
// trims often: a tuned Winograd input transform of DenseNet-121's 56x56
// convs took 280 page faults per run and 2.8x its measured time in the
// model (bench/RESULTS.md, eleventh session). Freed blocks of at least
// kMinCachedBytes wait here in exact-size lists (a model's kernels ask for
// the same sizes on every run), up to kMaxCachedBytes in all; beyond that a
// freed block goes back to the system.
//
// Installed with halide_set_custom_malloc / halide_set_custom_free in the
// Halide runtime of every library KernelLibrary::open loads (exported
// models, the measure runner) and as the JIT handlers of kernels built by
// Kernel::build, so that the tuner measures kernels with the allocator
// that serves them in a model.
// Blocks are aligned to kAlignment bytes (Halide 14 asks for 128 at most).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tetune {
namespace rt {

class ScratchCache {
 public:
  static constexpr size_t kAlignment = 128;
  /**
   * Smaller blocks go straight to the system allocator, which keeps them
   * itself (per thread, without a lock: a kernel may allocate small scratch
   * inside a parallel loop on every iteration).
   */
  static constexpr size_t kMinCachedBytes = size_t(64) << 10;
  /** Most bytes of freed blocks kept for reuse, process-wide. */
  static constexpr size_t kMaxCachedBytes = size_t(256) << 20;

  /** halide_malloc_t: a block of at least `bytes`, aligned to kAlignment; nullptr when the system has no memory. */
  static void *allocate(void *user_context, size_t bytes);
  /** halide_free_t: gives back a block from allocate() (nullptr is ignored). */
  static void release(void *user_context, void *block);

  /** Bytes of freed blocks held now, and blocks of at least kMinCachedBytes that allocate() got from the system so far (for tests). */
  static size_t cached_bytes();
  static uint64_t system_allocations();
};

}  // namespace rt
}  // namespace tetune
