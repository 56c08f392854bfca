// ONNX Resize (Operators.md Resize, opsets 10-18) and Upsample over any axes
// of an N-D tensor, following the ONNX reference implementation
// (onnx/reference/ops/op_resize.py): separable 1-D interpolation per axis.
//
// For output index x along an axis with input extent in, output extent out
// and scale s (given, or out / in when sizes were given), the input
// coordinate (float64, as the reference) is, by coordinate_transformation_mode,
// with L = in * s (unfloored; = out when sizes were given):
//   "half_pixel":           (x + 0.5) / s - 0.5
//   "pytorch_half_pixel":   same, but 0 when L <= 1
//   "align_corners":        x * (in - 1) / (L - 1)  (0 when L == 1)
//   "asymmetric":           x / s
//   "tf_half_pixel_for_nn": (x + 0.5) / s
//   "tf_crop_and_resize":   roi_start * (in - 1) + x * (roi_end - roi_start) * (in - 1) / (out - 1)
//                           ((roi_end - roi_start) * (in - 1) / 2 + roi_start * (in - 1) when out == 1);
//                           an element whose coordinate leaves [0, in - 1] on any axis is extrapolation_value.
// mode:
//   "nearest": the coordinate rounded by nearest_mode ("round_prefer_floor",
//              "round_prefer_ceil", "floor", "ceil"), clamped into [0, in - 1];
//   "linear":  taps floor(c), floor(c) + 1 with weights 1 - t, t (t = c - floor(c));
//   "cubic":   taps floor(c) - 1 .. floor(c) + 2 with Keys' cubic weights of
//              coefficient cubic_coeff_a (-0.75 by default).
// Taps outside the input read the edge element; with exclude_outside they
// get weight 0 and the rest are renormalized. An axis with out == in and
// s == 1 (and a full roi) is copied, not interpolated.
// Float dtypes only (DTypeError); float16 / bfloat16 interpolate in float32.
// One stage, tag "injective" (nearest) or "resize"; attrs: op, mode,
// coordinate_transformation_mode, nearest_mode, scales.
// AttributeError naming the attribute for an unknown mode, extents < 1, a
// scale <= 0 or a roi of the wrong length.
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace tetune {
namespace ops {

struct ResizeOptions {
  std::string mode = "nearest";
  std::string coordinate_transformation_mode = "half_pixel";
  std::string nearest_mode = "round_prefer_floor";
  double cubic_coeff_a = -0.75;
  bool exclude_outside = false;
  double extrapolation_value = 0.0;
  /** tf_crop_and_resize only: starts of every axis, then ends (2 * rank values, normalized to [0, 1]). */
  std::vector<double> roi;
};

/**
 * Resize x to out_shape (same rank). scales: one per axis, or empty to derive
 * them as out / in (the "sizes" input of ONNX Resize).
 */
Tensor resize_nd(const Tensor &x, const Shape &out_shape, const std::vector<double> &scales, const ResizeOptions &options,
                 const std::string &name = "resize");

/** NCHW shorthand: resize H, W to sizes {OH, OW}; scale = OH / H, OW / W. */
Tensor resize(const Tensor &x, const std::vector<int64_t> &sizes, const std::string &mode = "nearest",
              const std::string &coordinate_transformation_mode = "half_pixel",
              const std::string &nearest_mode = "round_prefer_floor", const std::string &name = "resize");

/** NCHW shorthand by scales {sh, sw}: OH = floor(H * sh), OW = floor(W * sw); the given scales enter the formulas. */
Tensor resize_scales(const Tensor &x, const std::vector<double> &scales, const std::string &mode = "nearest",
                     const std::string &coordinate_transformation_mode = "half_pixel",
                     const std::string &nearest_mode = "round_prefer_floor", const std::string &name = "resize");

}  // namespace ops
}  // namespace tetune
