// Hand-written schedules for the benchmark kernels ("tetune-hand" rows):
// what an expert writes with tetune's schedule primitives, no search.
#pragma once

#include "schedule/schedule.h"

namespace tetune {
namespace schedules {

/** Register-tiling parameters of the GEMM schedule (AVX-512: 16 fp32 lanes). */
struct GemmTiling {
  int tile_i = 64, tile_j = 96;  // output tile per parallel task (rows, columns)
  int reg_i = 6, reg_j = 32;     // accumulator block kept in registers (rows, columns; reg_j % 16 == 0)
  int unroll_k = 1;              // reduce-loop unrolling
};

/**
 * GEMM C[M,N] = sum_k A[M,K] B[K,N] built by ops::matmul (stage "matmul"):
 * cache_write accumulator computed at each register block, output tiles
 * fused and parallel, innermost columns vectorized, register block unrolled.
 */
Schedule hand_gemm_schedule(const std::vector<Tensor> &outputs, const GemmTiling &t = GemmTiling{});

/**
 * GEMM with B packed into column panels: Bp[jo, k, ji] = B[k, jo*panel + ji]
 * (a compute stage, timed with the kernel), then C[i, j] = sum_k A[i, k] *
 * Bp[j / panel, k, j % panel]. The panel keeps the reduce loop's B reads on
 * contiguous memory (the array-packing step of TVM's CPU GEMM tutorial).
 * Returns the outputs {C}; inputs are A[M,K] and B[K,N]. N % panel must be 0.
 */
std::vector<Tensor> packed_gemm(const Tensor &A, const Tensor &B, int panel);
/** Schedule for packed_gemm: as hand_gemm_schedule, with the pack stage parallel at root. */
Schedule hand_packed_gemm_schedule(const std::vector<Tensor> &outputs, const GemmTiling &t = GemmTiling{});

/** conv2d NCHW from ops::conv2d (stages "conv2d.pad" and "conv2d"): same structure over (c, h, w): output [n, c, h, w]. */
Schedule hand_conv_schedule(const std::vector<Tensor> &outputs);

}  // namespace schedules
}  // namespace tetune
