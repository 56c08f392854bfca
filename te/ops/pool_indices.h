// The Indices output of ONNX MaxPool (Operators.md MaxPool, opsets 8+) for 2-D
// pooling over NCHW.
//
// x: [N, C, H, W]; y: max_pool2d(x, kernel, strides, pads, dilations, ...)
// ([N, C, OH, OW]); pads_begin {top, left}. Returns int64 [N, C, OH, OW]: the
// flat index into x of the first window element (scanning rows, then columns)
// equal to the window's max, as onnxruntime; storage_order 0 counts it
// row-major (((n*C + c)*H + h)*W + w), 1 column-major ((n*C + c)*H*W + w*H + h).
// A window whose max is NaN has no equal element: its index is -1.
// Stages "<name>.first" (tag "pool": a min reduction over the window) and, for
// <name> (tag "injective": the storage order, -1 for none). ShapeError for ranks or shapes that
// do not match; AttributeError for bad attribute lengths or storage_order.
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace tetune {
namespace ops {

Tensor max_pool2d_indices(const Tensor &x, const Tensor &y, const std::vector<int64_t> &kernel,
                          const std::vector<int64_t> &strides, const std::vector<int64_t> &pads_begin,
                          const std::vector<int64_t> &dilations, int64_t storage_order = 0,
                          const std::string &name = "max_pool2d_indices");

}  // namespace ops
}  // namespace tetune
