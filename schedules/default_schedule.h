// A simple CPU schedule for a fused group, used until a tuned schedule exists:
// elementwise / injective intermediate stages are inlined, except a stage with
// a select (a padding) read by a reduction: inlined there, its bounds test
// would run once per tap of a convolution, so it is computed at root. Every
// remaining stage is computed at root with its outer spatial axes fused and
// run in parallel (at most 16 tasks per thread, see
// schedule/parallel_grain.h) and its innermost spatial axis split by
// `vector_width` (by 2 * vector_width when that axis is at least
// 4 * vector_width long) and vectorized (reduce axes moved outside the
// vector lanes).
#pragma once

#include <vector>

#include "schedule/schedule.h"
#include "te/tensor.h"

namespace tetune {
namespace schedules {

Schedule simple_cpu_schedule(const std::vector<Tensor> &outputs, int vector_width = 8, int threads = 1);

/**
 * The schedule of a fused group that has no tuned one: gpu_simple_schedule
 * (schedules/gpu_schedules.h) for a CUDA target, simple_cpu_schedule(outputs,
 * 8, threads) for a CPU.
 */
Schedule default_schedule(const std::vector<Tensor> &outputs, bool gpu, int threads);

}  // namespace schedules
}  // namespace tetune
