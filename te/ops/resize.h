// ONNX Resize (opset 13+) on the spatial axes of NCHW tensors.
//
// mode: "nearest" or "linear" (bilinear over H and W; ONNX "linear").
// coordinate_transformation_mode, with scale = output / input extent (given or derived):
//   "half_pixel":           x_in = (x_out + 0.5) / scale - 0.5
//   "pytorch_half_pixel":   same, but 0 when the output extent is 1
//   "align_corners":        x_in = x_out * (in - 1) / (out - 1)  (0 when out == 1)
//   "asymmetric":           x_in = x_out / scale
//   "tf_half_pixel_for_nn": x_in = (x_out + 0.5) / scale
// nearest_mode (mode "nearest"): "round_prefer_floor", "round_prefer_ceil",
// "floor", "ceil"; the index is then clamped into [0, in - 1].
// linear: i0 = floor(x_in), f = x_in - i0, blend x[clamp(i0)] and
// x[clamp(i0 + 1)] with weights 1 - f and f (equal to ONNX's edge handling).
// Coordinates are computed in float32; float16 / bfloat16 inputs are
// interpolated in float32 and rounded back. Output dtype = input dtype (float
// only, DTypeError). One stage, tag "injective" (nearest) or "resize" (linear);
// axes n, c, h, w. attrs: op, mode, coordinate_transformation_mode, nearest_mode, scales.
// AttributeError naming the attribute for an unknown mode, a size < 1 or a scale <= 0.
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace tetune {
namespace ops {

/** Resize to sizes {OH, OW}; scale = OH / H, OW / W. */
Tensor resize(const Tensor &x, const std::vector<int64_t> &sizes, const std::string &mode = "nearest",
              const std::string &coordinate_transformation_mode = "half_pixel",
              const std::string &nearest_mode = "round_prefer_floor", const std::string &name = "resize");

/** Resize by scales {sh, sw}: OH = floor(H * sh), OW = floor(W * sw); the given scales enter the coordinate formulas. */
Tensor resize_scales(const Tensor &x, const std::vector<double> &scales, const std::string &mode = "nearest",
                     const std::string &coordinate_transformation_mode = "half_pixel",
                     const std::string &nearest_mode = "round_prefer_floor", const std::string &name = "resize");

}  // namespace ops
}  // namespace tetune
