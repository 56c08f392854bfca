// ONNX MaxUnpool (Operators.md MaxUnpool, opsets 9 and 11): the partial inverse
// of MaxPool, scattering each pooled value to the position its index names.
//
// x: [N, C, P1..Pr] (r >= 1), any numeric dtype; indices: x's shape, integer,
// flat positions into the output [N, C, O1..Or] (row-major over all axes, as
// MaxPool's Indices output with storage_order 0). kernel k and strides s
// (r values, >= 1), pads {begin1..beginr, end1..endr} >= 0 as the MaxPool had;
// out: the output's spatial extents, or empty for the ONNX default
// Oa = (Pa - 1) * sa + ka - begina - enda.
//   y[n, c, o] = x[n, c, p] for the pooled position p whose window
//                (pa*sa - begina .. + ka - 1 along each axis) holds o and whose
//                index equals o's flat position; 0 when there is none.
// Computed as a gather, not a scatter (so it stays a tunable TE stage): each
// output reads the prod ceil(ka / sa) windows that can cover it (at most 64),
// the last match winning. An index outside its own window (which MaxPool never
// produces) is therefore dropped, where onnxruntime would still scatter it.
// One stage <name>, tag "injective"; attrs: op, kernel_shape, strides, pads.
// Errors: DTypeError for non-integer indices; ShapeError for mismatched
// shapes or out extents; AttributeError for bad attribute lengths or values or
// more than 64 covering windows.
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace tetune {
namespace ops {

Tensor max_unpool(const Tensor &x, const Tensor &indices, const std::vector<int64_t> &kernel,
                  const std::vector<int64_t> &strides, const std::vector<int64_t> &pads, const std::vector<int64_t> &out = {},
                  const std::string &name = "max_unpool");

}  // namespace ops
}  // namespace tetune
