// Multi-level tiling of a single reduction for CUDA: the GPU sketch of Ansor
// (Zheng et al., "Ansor: Generating High-Performance Tensor Programs for Deep
// Learning", OSDI 2020, section 4.1: the "SSSRRSRS" tile structure with
// cache_write and shared-memory cache_read), for any reduction (conv2d,
// batched matmul, pooling, ...), not only the 2-d matmul of gpu_schedules.h.
//
// Applies to a DAG with one output that, once every non-output elementwise
// stage is inlined (a conv's pad stage, say), holds one reduction stage R
// with spatial axes S and reduce axes K, and at most one more stage: the
// output, elementwise over R's shape (bias + relu after a conv), into which R
// is fused. Each spatial axis s of extent E is split into four levels
//   block (E / (vthread * thread * inner)), vthread, thread, inner
// and each reduce axis k of extent F into three
//   outer (F / (mid * inner)), mid, inner.
// The output stage's loops become  [blocks][threads][vthreads][inners]  with
// the block loops fused and bound to blockIdx.x and the thread loops fused and
// bound to threadIdx.x. The accumulator (R.local from cache_write when R is
// the output, else R itself) is computed at the fused block loop with loops
//   [k outer][threads][k mid][vthreads][k inner][inners]
// (threads bound to threadIdx.x as for the output: each thread accumulates
// exactly the elements it later writes), and every tensor R reads (inputs, or
// inlined stages such as the pad) is copied by a cache_read stage computed at
// the innermost k-outer loop, i.e. once per reduction step, its loops fused
// and split by the thread count, loaded cooperatively by the block's threads
// (as gpu_gemm_schedule does). The inner loops of the output and of the
// accumulator are unrolled, innermost first, as far as Schedule's limit of 64
// unrolled iterations per stage allows.
//
// The "vthread" level is kept inside the thread level (each thread handles
// its vthread sub-tiles, thread * inner apart), which is what TVM's virtual
// threads lower to. Unlike TVM, whose C.local lives in registers, the
// accumulator here is a block-level stage, so Halide places it in shared
// memory next to the staged inputs: Halide allocates a stage computed inside
// the thread loops per thread, and a per-step shared copy must be computed
// outside them, at the k-outer loop, which therefore must enclose the thread
// loops of the accumulator (this code base has no store_in(Register)).
// gpu_limits.h counts the accumulator's shared bytes with the inputs'.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "schedule/schedule.h"

namespace tetune {

/** The reduction a GPU reduction schedule tiles, as found in a DAG. */
struct GpuReductionNest {
  std::string reduction;             ///< stage of the reduction R
  std::string output;                ///< the output stage: R itself or its fused elementwise consumer
  std::vector<std::string> inlined;  ///< the non-output elementwise stages, inlined, in stage order
  std::vector<std::pair<std::string, int64_t>> spatial;  ///< R's spatial axes and extents, outermost first
  std::vector<std::pair<std::string, int64_t>> reduce;   ///< R's reduce axes and extents
};

/** The reduction of a single-output DAG (see above), or nullopt when the DAG has another form. */
std::optional<GpuReductionNest> find_gpu_reduction(const std::vector<Tensor> &outputs);

/** Levels of a spatial axis of extent E; the block level is E / (vthread * thread * inner). */
struct GpuSpatialSplit {
  int64_t vthread = 1;
  int64_t thread = 1;
  int64_t inner = 1;
};

/** Levels of a reduce axis of extent F; the outer level is F / (mid * inner). */
struct GpuReduceSplit {
  int64_t mid = 1;
  int64_t inner = 1;
};

/** Tile sizes by axis name of the reduction (GpuReductionNest::spatial / reduce); an absent axis is all 1. */
struct GpuReductionTiles {
  std::map<std::string, GpuSpatialSplit> spatial;
  std::map<std::string, GpuReduceSplit> reduce;
};

/**
 * The schedule described above for outputs with the given tile sizes.
 * Raises ScheduleError when the DAG has no such reduction, when a tile names
 * an axis the reduction does not have, or when a level is < 1 or the product
 * of an axis's levels does not divide its extent. GPU resource limits are
 * not checked here (check_gpu_schedule in gpu_limits.h does, as Kernel::build
 * and compile_object do for a CUDA target).
 */
Schedule gpu_reduction_schedule(const std::vector<Tensor> &outputs, const GpuReductionTiles &tiles);

}  // namespace tetune
