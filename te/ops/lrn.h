// ONNX LRN (Operators.md LRN): local response normalization across channels.
//
//   square_sum[n, c, ...] = sum of x[n, c', ...]^2 over c' in
//                           [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)] within [0, C)
//   y = x / (bias + alpha / size * square_sum) ^ beta
//
// x: [N, C, D1, ...] (rank >= 3), float dtypes (float16 / bfloat16 computed in
// float32). Two stages: "lrn_square_sum" (a reduction over the size-window)
// and the elementwise "lrn" stage. Errors: DTypeError for non-float input,
// ShapeError for rank < 3, AttributeError for size < 1.
#pragma once

#include <string>

#include "te/tensor.h"

namespace tetune {
namespace ops {

Tensor lrn(const Tensor &x, int64_t size, double alpha, double beta, double bias, const std::string &name = "lrn");

}  // namespace ops
}  // namespace tetune
