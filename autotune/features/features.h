// Cost-model features of a schedule candidate, from its lowered loop nest, in
// the spirit of Ansor's per-store features (Zheng et al., OSDI 2020, 5.2).
//
// Loop nests: schedule_features() builds the nest from the schedule state
// (schedule_nest.h, microseconds; what search and training use).
// lowered_schedule_features() lowers the schedule to Halide IR with
// codegen::lower + Pipeline::compile_to_module (no LLVM code generation, no
// JIT; 20-50 ms for a convolution) and reads the LoopNest Halide made;
// features of a built Kernel (Kernel::loop_nest()) equal those.
//
// Per access (every load and store of the lowered code) we compute the
// kAccessFeatures values below; the fixed-length row is then
//
//   [ global (kGlobalFeatures)
//   | mean over all accesses | max over all accesses
//   | mean over stores       | max over stores
//   | top-kTopStores stores by bytes touched (zero padded) ]
//
// so every candidate of every task gives a row of kNumFeatures floats.
// Deterministic: equal loop nests give bit-identical rows.
//
// Per-access features ("acc.*"; log2p(x) = log2(1 + max(x, 0))):
//   | #  | name           | meaning                                                    |
//   |----|----------------|------------------------------------------------------------|
//   | 0  | trip           | log2p(product of enclosing loop extents)                   |
//   | 1  | is_store       | 1 for a store, 0 for a load                                |
//   | 2  | lanes          | log2(vector lanes of the access)                           |
//   | 3  | dense_vec      | 1 when a dense (stride 1) vector access                    |
//   | 4  | bytes          | log2p(trip * lanes * bytes per lane): bytes touched        |
//   | 5  | depth          | number of enclosing loops                                  |
//   | 6  | inner_extent   | log2p(extent of the innermost enclosing loop)              |
//   | 7  | inner_unrolled | innermost enclosing loop is unrolled                       |
//   | 8  | n_parallel     | enclosing parallel loops                                   |
//   | 9  | par_extent     | log2p(product of enclosing parallel extents)               |
//   | 10 | n_unrolled     | enclosing unrolled loops                                   |
//   | 11 | unroll_extent  | log2p(product of enclosing unrolled extents)               |
//   | 12 | n_vectorized   | enclosing (not yet flattened) vectorized loops             |
//   | 13 | footprint      | log2p(bytes of the whole buffer: tensor or allocation)     |
//   | 14 | reuse          | log2p(bytes touched / footprint): times each byte is used  |
//   | 15 | outer_trip     | log2p(trip / innermost extent): trips of the enclosing body |
//   | 16 | is_local       | buffer is an allocation inside some loop (a cache / tile)  |
//   | 17 | alloc_depth    | depth of the loop allocating the buffer (0 = root / input) |
//
// Global features ("g.*"):
//   | #  | name           | meaning                                                    |
//   |----|----------------|------------------------------------------------------------|
//   | 0  | n_loops        | loops in the nest                                          |
//   | 1  | n_parallel     | parallel loops                                             |
//   | 2  | par_outer      | log2p(product of outermost parallel loop extents)          |
//   | 3  | par_per_thread | log2p(par_outer / threads): work items per thread          |
//   | 4  | n_unrolled     | unrolled loops                                             |
//   | 5  | n_vectorized   | vector (lanes > 1) accesses / all accesses                 |
//   | 6  | n_alloc        | allocations                                                |
//   | 7  | alloc_total    | log2p(total constant allocation bytes)                     |
//   | 8  | alloc_max      | log2p(largest constant allocation bytes)                   |
//   | 9  | n_access       | log2p(number of accesses)                                  |
//   | 10 | float_ops      | log2p(static float op count, lanes included)               |
//   | 11 | int_ops        | log2p(static int op count)                                 |
//   | 12 | max_depth      | deepest access                                             |
//   | 13 | dyn_bytes      | log2p(sum over accesses of bytes touched)                  |
//
// Schedule features ("s.*", last; zeros when no Schedule is given): Halide
// 14 moves parallel loop bodies into closures while lowering, so the loop
// nest alone under-reports parallelism; these come from the schedule state:
//   | 0 n_parallel | parallel leaf axes      | 1 par_extent  | log2p(product of parallel extents)  |
//   | 2 par_per_thread | log2p(par_extent/threads) | 3 vec_extent | log2p(largest vectorized extent) |
//   | 4 unroll_extent | log2p(product of unrolled extents) | 5 n_compute_at | stages computed at a loop |
//   | 6 n_inline | inlined stages          | 7 inner_extent | log2p(innermost leaf extent, output) |
//
// feature_names() lists all kNumFeatures names in row order, e.g.
// "g.n_loops", "all.mean.trip", "store.max.reuse", "top0.bytes".
#pragma once

#include <string>
#include <vector>

#include "workload/task.h"
#include "codegen/loop_nest.h"
#include "schedule/schedule.h"

namespace tetune {
namespace autotune {
namespace features {

constexpr int kAccessFeatures = 18;
constexpr int kGlobalFeatures = 14;
constexpr int kTopStores = 3;
constexpr int kScheduleFeatures = 8;
constexpr int kNumFeatures = kGlobalFeatures + 4 * kAccessFeatures + kTopStores * kAccessFeatures + kScheduleFeatures;

/** Names of the kNumFeatures entries, in row order. */
const std::vector<std::string> &feature_names();

/** Features of a lowered loop nest; task gives tensor sizes and thread count; s (optional) the "s.*" features. */
std::vector<float> loop_nest_features(const LoopNest &nest, const Task &task, const Schedule *s = nullptr);

/** loop_nest_features of the nest built from the schedule state (schedule_nest.h). */
std::vector<float> schedule_features(const Schedule &s, const Task &task);

/** Lowers s without JIT and returns loop_nest_features. Raises CodegenError when Halide rejects s. */
std::vector<float> lowered_schedule_features(const Schedule &s, const Task &task);

/** The lowered loop nest alone (no JIT). Raises CodegenError. */
LoopNest lower_loop_nest(const Schedule &s, const Task &task);

}  // namespace features
}  // namespace autotune
}  // namespace tetune
