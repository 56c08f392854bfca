// ONNX GridSample (Operators.md GridSample, opsets 16 and 20), following the
// ONNX reference implementation (onnx/reference/ops/op_grid_sample.py).
//
// x: [N, C, D1, ..., Dr] (r >= 1 spatial axes), float dtype.
// grid: [N, O1, ..., Or, r], float dtype; grid[..., 0] is the normalized
// coordinate of the LAST spatial axis (x / width), grid[..., 1] of the one
// before (y / height), and so on; -1 and 1 are the extreme pixels.
// Output: [N, C, O1, ..., Or] with x's dtype.
//
// Per spatial axis of extent L, a normalized g becomes the pixel coordinate
//   align_corners: (g + 1) / 2 * (L - 1)        (borders [0, L - 1])
//   otherwise:     ((g + 1) * L - 1) / 2        (borders [-0.5, L - 0.5])
// mode "nearest" rounds it half to even; a coordinate outside the borders is
// clamped into [0, L - 1] ("border") or reflected at the borders
// ("reflection") before interpolation. The taps of "bilinear" / "linear"
// (floor, floor + 1) and "bicubic" / "cubic" (floor - 1 .. floor + 2, Keys'
// kernel with a = -0.75) read pixels that, outside the image, are 0 ("zeros"),
// the clamped pixel ("border") or the reflected pixel ("reflection", truncated
// to an integer). Interpolation runs in float64. A NaN grid coordinate gives NaN.
// Errors: DTypeError for non-float x or grid; ShapeError for mismatched ranks,
// batch or last grid extent; AttributeError for an unknown mode or padding_mode.
// One stage, tag "grid_sample"; attrs: op, mode, padding_mode, align_corners.
#pragma once

#include <string>

#include "te/tensor.h"

namespace tetune {
namespace ops {

Tensor grid_sample(const Tensor &x, const Tensor &grid, const std::string &mode = "linear",
                   const std::string &padding_mode = "zeros", bool align_corners = false,
                   const std::string &name = "grid_sample");

}  // namespace ops
}  // namespace tetune
