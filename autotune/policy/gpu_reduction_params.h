// The parameters of GpuSpace's reduction sketch (gpu_space.cc, sketch 2):
// tile sizes of gpu_reduction_schedule (codegen/gpu_reduction_schedule.h),
// named after the reduction's axes:
//   "<spatial axis>.vthread", "<spatial axis>.thread", "<spatial axis>.inner"
//   "<reduce axis>.mid", "<reduce axis>.inner"
// (the block / outer levels are what remains of each extent). Every level of
// an axis is a divisor of what the inner levels leave of its extent, as in
// Ansor's split-factor sampling, so sampled, mutated and crossed points always
// tile exactly; the GPU limits are checked afterwards, on the schedule.
//
// Sampling draws each axis's levels innermost first from the divisors that
// fit what the axes drawn before (in random order) left of these budgets
// (heuristics to keep most points within the limits, not limits themselves):
// 1024 threads per block, 4096 accumulator elements per block, vthread <= 8
// (TVM's max virtual threads), inner <= 16 per spatial axis, mid and inner
// <= 16 and 128 reduce iterations per step over all reduce axes.
#pragma once

#include <random>

#include "autotune/policy/space.h"
#include "schedules/gpu_reduction_schedule.h"

namespace tetune {
namespace autotune {
namespace policy {

/** A random point (sketch 2) for the reduction. */
Candidate sample_reduction_point(const GpuReductionNest &nest, std::mt19937_64 &rng);

/** p with the levels of one axis (chosen at random) drawn again, within what the other axes leave of the budgets. */
Candidate mutate_reduction_point(const GpuReductionNest &nest, const Candidate &p, std::mt19937_64 &rng);

/** Each axis's levels taken whole from a or from b (so that they still divide the extent). */
Candidate crossover_reduction_points(const GpuReductionNest &nest, const Candidate &a, const Candidate &b, std::mt19937_64 &rng);

/** The tile sizes of a point; raises ScheduleError naming a missing parameter. */
GpuReductionTiles reduction_tiles(const GpuReductionNest &nest, const Candidate &p);

}  // namespace policy
}  // namespace autotune
}  // namespace tetune
