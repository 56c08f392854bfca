// BasicSpace: a small built-in space of multi-level tiled schedules for one
// compute (a reduction such as GEMM / conv2d, or an elementwise stage), used
// when the rule-based SearchSpace (autotune/search_space/) is not linked.
//
// Sketch 0 (reductions): inline non-reduction intermediates; cache_write the
// output; tile every spatial axis (param t<i>: inner factor, a divisor),
// fuse the outer p (param p, 0 = serial) outer tiles and parallelise them,
// compute the local stage at the last outer tile, split reduce axes
// (param k<j>), order [k_o.., spatial.., k_i.., last_o, last_i], vectorize
// last_i by v (param v, clamped to divide the tile), unroll k_i (param u).
// Sketch 1: the same without cache_write (tiles and reduction on one stage).
// Registered as "basic".
#pragma once

#include "autotune/policy/space.h"

namespace tetune {
namespace autotune {
namespace policy {

std::unique_ptr<Space> make_basic_space(const Task &task);

}  // namespace policy
}  // namespace autotune
}  // namespace tetune
