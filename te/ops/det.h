// ONNX Det (Operators.md Det, opset 11) for matrices up to 3 x 3.
//
// x: [*, M, M] float, M in {1, 2, 3}; returns [*] (x's dtype): the determinant
// by cofactor expansion along the first row, computed in float64. Exact up to
// rounding and NaN-propagating; larger M needs LU with pivoting, which one TE
// stage cannot express (the pivot choice is data-dependent control flow).
// Errors: DTypeError for non-float x; ShapeError for rank < 2, non-square
// matrices or M > 3. One stage, tag "injective"; attrs: op.
#pragma once

#include <string>

#include "te/tensor.h"

namespace tetune {
namespace ops {

Tensor det_small(const Tensor &x, const std::string &name = "det");

}  // namespace ops
}  // namespace tetune
