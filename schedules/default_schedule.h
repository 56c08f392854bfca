// A simple CPU schedule for a fused group, the analytical default of a task
// without a search-space seed (autotune/default_schedule.h):
// elementwise / injective intermediate stages are inlined, except a stage with
// a select (a padding) read by a reduction: inlined there, its bounds test
// would run once per tap of a convolution, so it is computed at root, as is
// an integer stage read by a reduction (a quantized matmul's zero-point
// shift: Halide 14 miscompiles it inlined into a vectorized product). Every
// remaining stage is computed at root with its outer spatial axes fused and
// run in parallel (at most 16 tasks per thread, see
// schedule/parallel_grain.h; serial below 8192 points times reduce extent)
// and its innermost axis longer than 1 split by `vector_width` when it is
// longer than that (by 2 * vector_width when at least 4 * vector_width long)
// and vectorized (reduce axes moved outside the vector lanes); a reduction's
// shorter one (4 to vector_width) is vectorized whole. A reduction over a
// small window (every reduce axis at most
// kWholeWindow long, a 3x3 max pool) has its reduce axes unrolled, so that
// its accumulator stays in a register instead of a load and a store per tap.
#pragma once

#include <cstdint>
#include <vector>

#include "schedule/schedule.h"
#include "te/tensor.h"

namespace tetune {
namespace schedules {

/** A reduce axis this short (a kernel or pooling window) is unrolled whole. */
constexpr int64_t kWholeWindow = 7;

Schedule simple_cpu_schedule(const std::vector<Tensor> &outputs, int vector_width = 8, int threads = 1);

}  // namespace schedules
}  // namespace tetune
