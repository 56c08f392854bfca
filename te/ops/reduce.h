// Reductions over a set of axes (ONNX ReduceSum / ReduceMean / ReduceMax /
// ReduceMin / ReduceProd, axes given as an attribute).
//
// axes: any subset of [-r, r) (negative counts from the end; repeats are
// ignored); empty = all axes (ONNX noop_with_empty_axes = 0). keepdims keeps
// the reduced axes with extent 1 (ONNX default 1); reducing every axis without
// keepdims gives a rank-0 tensor. Reduce axes are named "k0", "k1", ...
// Dtype: the input dtype (sum / prod accumulate in it); mean of an integer
// tensor is a floor division. Tags: "reduce"; reduce_mean is a "<name>.sum"
// stage (tag "reduce") followed by an "elemwise" scaling stage.
// attrs: op, axes (normalised), keepdims. AttributeError for an axis out of range.
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace tetune {
namespace ops {

Tensor reduce(const Tensor &x, ReduceOp op, const std::vector<int64_t> &axes = {}, bool keepdims = true,
              const std::string &name = "reduce");
Tensor reduce_sum(const Tensor &x, const std::vector<int64_t> &axes = {}, bool keepdims = true,
                  const std::string &name = "reduce_sum");
Tensor reduce_mean(const Tensor &x, const std::vector<int64_t> &axes = {}, bool keepdims = true,
                   const std::string &name = "reduce_mean");
Tensor reduce_max(const Tensor &x, const std::vector<int64_t> &axes = {}, bool keepdims = true,
                  const std::string &name = "reduce_max");
Tensor reduce_min(const Tensor &x, const std::vector<int64_t> &axes = {}, bool keepdims = true,
                  const std::string &name = "reduce_min");
Tensor reduce_prod(const Tensor &x, const std::vector<int64_t> &axes = {}, bool keepdims = true,
                   const std::string &name = "reduce_prod");

/**
 * ONNX ArgMax / ArgMin: the int64 position of the largest (is_max) or smallest element along
 * axis, the first one (or the last with select_last_index) among equals. A NaN counts as the
 * extreme, as numpy.argmax and onnxruntime's float kernels (its first / last position wins).
 * Two TE reductions, so both stay schedulable: "<name>.val" (tag "reduce") takes the max / min
 * over the axis, then "<name>" (tag "reduce") the min / max position holding that value.
 * keepdims keeps the axis with extent 1. attrs: op, axes. AttributeError for an axis out of range.
 */
Tensor arg_reduce(const Tensor &x, int64_t axis, bool is_max, bool select_last_index = false, bool keepdims = true,
                  const std::string &name = "arg_reduce");

}  // namespace ops
}  // namespace tetune
