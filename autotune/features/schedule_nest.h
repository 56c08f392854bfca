// The loop nest of a schedule, built from the schedule state alone (no Halide
// lowering), for cost-model features during search.
//
// Why: lowering a candidate with Halide (lower_loop_nest) costs 20-50 ms, and
// an evolutionary search scores a few hundred candidates per batch, so the
// search took longer than measuring the batch. Ansor computes its features
// on its own loop state for the same reason (Zheng et al., OSDI 2020,
// section 5.2: features are extracted from the program after bound
// inference, not from generated code). This builds that loop state in
// microseconds.
//
// What it models, per non-inlined stage (producers first; a stage computed
// at a consumer's loop sits inside that loop):
//   - one Loop per leaf axis (kind "parallel", "unrolled" or "serial"); a
//     vectorized leaf becomes the lanes of the accesses inside it, as Halide
//     flattens it;
//   - a stage computed at a loop covers only the region one iteration of
//     that loop reads: each root axis spans 1 + sum |coef| * (span - 1) over
//     the affine index the consumer uses, where span is the product of the
//     consumer's leaf extents inside the loop (bound inference, simplified);
//     its outermost leaf of that axis is shortened accordingly and an
//     Allocation of the region's bytes sits at the attach loop;
//   - one store per stage and one load per tensor access of its body, with
//     the bodies of inlined stages substituted; an access is a vector access
//     when its indices use the vectorized axis, dense when only its last
//     index does, with coefficient 1.
// A constant input's root packed copy that the model packs once
// (codegen/prepack.h, task.constant_inputs) has no loops: the kernel reads
// the packed array. Initial values of reductions, boundary guards and bounds
// of non-affine indices (full extent) are not modelled.
#pragma once

#include "workload/task.h"
#include "codegen/loop_nest.h"
#include "schedule/schedule.h"

namespace tetune {
namespace autotune {
namespace features {

/** The loop nest of s as described above. Never raises for a schedule that replayed. */
LoopNest schedule_loop_nest(const Schedule &s, const Task &task);

}  // namespace features
}  // namespace autotune
}  // namespace tetune
