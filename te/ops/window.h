// ONNX window functions (Operators.md HannWindow, HammingWindow,
// BlackmanWindow, opset 17): a 1-D tensor of `size` samples,
//
//   hann:     0.5 - 0.5 cos(2 pi n / N)
//   hamming:  25/46 - 21/46 cos(2 pi n / N)
//   blackman: 0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N)
//
// with N = size when periodic, size - 1 when symmetric (periodic = false).
// Computed in float32 and cast to dtype (a float or integer type). One stage,
// tag "injective". Errors: AttributeError for an unknown kind, ShapeError for
// size < 1 (or size < 2 when symmetric: N would be 0).
#pragma once

#include <string>

#include "te/tensor.h"

namespace tetune {
namespace ops {

/** kind: "hann", "hamming" or "blackman". */
Tensor window(const std::string &kind, int64_t size, bool periodic, DType dtype, const std::string &name = "window");

}  // namespace ops
}  // namespace tetune
