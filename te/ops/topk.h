// ONNX TopK (Operators.md TopK, opsets 1-11+): the k largest (or smallest)
// elements along an axis, as a three-stage compute that stays tunable.
//
//   rank[..., i, ...]   = number of elements along the axis ordered before x[i]   (int32, "topk_rank")
//   index[..., j, ...]  = the i whose rank is j, as int64                       (j < k)
//   value[..., j, ...]  = x[..., index, ...]
//
// Order: descending for largest (ascending otherwise); equal values by lower
// index first, as ONNX requires. NaN is ordered above every number (NumPy's
// sort order): first when largest, last when smallest; NaNs by index. The
// order is total, so ranks are a permutation and every j < k has one index.
// Cost: O(n^2) comparisons per row of n elements along the axis (the rank
// stage is a reduction), O(n k) for the index stage.
// Shapes: x any rank >= 1, any numeric dtype; outputs have x's shape with the
// axis extent replaced by k; values keep x's dtype, indices are int64.
// Errors: AttributeError for an axis out of range; ShapeError for k < 1 or
// k > the axis extent.
#pragma once

#include <string>
#include <utility>

#include "te/tensor.h"

namespace tetune {
namespace ops {

/** {values, indices} of the k largest (largest=true) or smallest elements along axis. */
std::pair<Tensor, Tensor> topk(const Tensor &x, int64_t k, int64_t axis, bool largest, const std::string &name = "topk");

}  // namespace ops
}  // namespace tetune
