// ONNX CumSum (Operators.md CumSum, opsets 11 and 14) as one reduction stage,
// so it is scheduled and tuned like any other reduction.
#pragma once

#include <string>

#include "te/tensor.h"

namespace tetune {
namespace ops {

/**
 * Cumulative sum of x along axis (in [-rank, rank)):
 *   y[.., i, ..] = sum over j of x[.., j, ..] for j <= i
 * (j < i when exclusive; j >= i when reverse; j > i when both). The sum runs
 * over the whole axis with the other terms masked out by a select, O(n^2) in
 * the axis extent n: a scan is not a TE reduction, and n is small in models.
 * Masked terms are not added at all, so a NaN or inf reaches only the outputs
 * whose range includes it. Accumulates in x's dtype; same shape and dtype out.
 * Errors: AttributeError for an axis out of range. Tag "reduce"; attrs: op,
 * axis, exclusive, reverse.
 */
Tensor cumsum(const Tensor &x, int64_t axis, bool exclusive = false, bool reverse = false,
              const std::string &name = "cumsum");

}  // namespace ops
}  // namespace tetune
