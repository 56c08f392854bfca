// GPU (CUDA) resource limits of a schedule and their static check.
//
// A schedule targets the GPU when it binds loops to blockIdx.* / threadIdx.*.
// Halide maps a bound loop to a GPU block / thread loop and assigns the
// hardware dimension by nesting: the innermost bound loop becomes .x. A stage
// computed inside block loops but outside thread loops ("block level") is
// stored in shared memory; one computed inside thread loops is per thread.
#pragma once

#include <cstdint>
#include <string>

#include "schedule/schedule.h"

namespace tetune {

/** Per-block limits of the CUDA device (defaults: any sm_50+ device, 48 KiB static shared memory). */
struct GpuLimits {
  int max_threads_per_block = 1024;
  int max_block_dim[3] = {1024, 1024, 64};  // threadIdx.x, .y, .z
  int64_t max_shared_bytes = 48 * 1024;
  int warp = 32;
};

/** Whether any stage of s binds a loop to a GPU index. */
bool uses_gpu(const Schedule &s);

/** Where a loop sits: inside GPU block loops and/or GPU thread loops (following compute_at chains). */
struct GpuLevel {
  bool in_block = false;
  bool in_thread = false;
  /** Block level: inside a block loop, outside every thread loop (stages computed here live in shared memory). */
  bool block_level() const { return in_block && !in_thread; }
};
/** The level of the body of loop `axis` of `stage` (raises ScheduleError when unknown). */
GpuLevel gpu_level(const Schedule &s, const std::string &stage, const std::string &axis);

/**
 * Estimated bytes of shared memory that `stage` (computed at a block-level
 * loop) needs: the region of it that its consumer reads inside that loop (from
 * the nominal extents of the consumer's inner loops and its index expressions),
 * times its dtype's bytes. 0 when the stage is not computed at a block-level loop.
 */
int64_t shared_bytes(const Schedule &s, const std::string &stage);

/**
 * Raises ScheduleError (naming the stage, the axis, the limit and the value) when:
 * threads per block (product of threadIdx-bound extents) exceed max_threads_per_block,
 * a threadIdx extent exceeds max_block_dim, shared memory of the stages computed at
 * block level under one root stage exceeds max_shared_bytes, a stage computed at root
 * (an output) has no blockIdx binding, threadIdx is bound outside any blockIdx loop,
 * blockIdx is bound inside a thread loop or inside another block loop, or the bound
 * dimensions are not nested z, y, x (outermost to innermost) within a stage.
 */
void check_gpu_schedule(const Schedule &s, const GpuLimits &limits = GpuLimits{});

}  // namespace tetune
