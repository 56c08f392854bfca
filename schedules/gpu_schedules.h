// Hand-written CUDA schedules (starting points for GPU tuning and tests).
#pragma once

#include <string>
#include <vector>

#include "schedule/schedule.h"

namespace tetune {

/** Tile sizes of gpu_gemm_schedule. Defaults: 64x64 block tile, 16x16 threads, 4x4 per thread, k step 16. */
struct GpuGemmTiles {
  int64_t block = 64;   // block tile (square) over i and j
  int64_t thread = 4;   // per-thread register tile (square); threads per block = (block/thread)^2
  int64_t k_step = 16;  // k tile staged through shared memory
};

/**
 * GEMM C[i,j] = sum_k A[i,k] * B[k,j] (a matmul compute over two placeholders):
 * C tiled block x block bound to blockIdx.y / blockIdx.x, the tile split into
 * (block/thread)^2 threads (threadIdx.y / .x) with a thread x thread register
 * tile unrolled; the accumulation stage C.local is computed at the block loop
 * (its loops bound to the same threads) with k split by k_step outermost; the
 * A and B tiles of each k step are cache_read stages computed there (block
 * level: shared memory), loaded cooperatively by the same threads.
 */
Schedule gpu_gemm_schedule(const Tensor &C, const GpuGemmTiles &tiles = GpuGemmTiles{});

/**
 * Tile sizes of gpu_gemm_register_schedule. Defaults: 4 x 4 outputs per
 * thread, 4 x 16 threads, k unrolled by 4, A and B staged in registers (the
 * best of a 112-point sweep of this structure on an H100 at 4096^3; see
 * bench/RESULTS.md).
 */
struct GpuGemmRegisterTiles {
  int64_t tile_i = 4;      // rows of C per thread (unrolled)
  int64_t tile_j = 4;      // columns of C per thread (contiguous, vectorized: one float4 load of B per k)
  int64_t threads_i = 4;   // threadIdx.y extent
  int64_t threads_j = 16;  // threadIdx.x extent
  int64_t k_unroll = 4;    // k loop unrolled by this factor
  bool stage = true;       // copy each unrolled k group of A (tile_i x k_unroll) and B (k_unroll x tile_j) into registers first
};

/**
 * GEMM with the accumulator in registers and no shared memory: each thread
 * computes a tile_i x tile_j block of C (rows unrolled, columns vectorized)
 * whose accumulation stage C.local is computed at the thread loop, so its
 * tile_i * tile_j values stay in registers over the whole k loop; A and B are
 * read through the L1 cache (threads of a warp read adjacent columns of B).
 * With `stage`, each unrolled group of k_unroll steps first loads its
 * tile_i x k_unroll block of A (rows vectorized along k) and k_unroll x
 * tile_j block of B into registers (cache_read stages at the k loop), so the
 * loads are wide and issued together before the FMAs, as Halide's
 * apps/cuda_mat_mul stages A.in() and B.in() at its unrolled reduction loop.
 * Blocks of threads_i x threads_j threads (blockIdx.y / .x over the tiles).
 * Raises ScheduleError when C is not a 2-d matmul of two inputs.
 */
Schedule gpu_gemm_register_schedule(const Tensor &C, const GpuGemmRegisterTiles &tiles = GpuGemmRegisterTiles{});

/**
 * A generic CUDA schedule for any DAG: inlines every non-output elementwise
 * stage, computes non-output reductions per thread at their consumer, and maps
 * each remaining root stage's fused spatial loops to blockIdx.x x threadIdx.x
 * (threads per block).
 */
Schedule gpu_simple_schedule(const std::vector<Tensor> &outputs, int64_t threads = 256);

}  // namespace tetune
