// ONNX RoiAlign (Operators.md RoiAlign, opsets 10 and 16), as onnxruntime's
// CPU kernel computes it (roialign.cc): bilinear samples on a regular grid in
// each output bin, averaged ("avg") or maxed ("max").
//
// x: [N, C, H, W] float dtype; rois: [R, 4] of x's dtype, (x1, y1, x2, y2) in
// input coordinates; batch_indices: [R] integer, the image of each roi
// (clamped into [0, N - 1]). Output [R, C, output_height, output_width], x's dtype.
//
// Per roi, with off = 0.5 for "half_pixel" and 0 for "output_half_pixel":
//   start = (x1, y1) * spatial_scale - off, size = (x2, y2) * spatial_scale - off - start,
//   size at least 1 for "output_half_pixel"; bin = size / (output extent);
//   grid per bin = sampling_ratio when > 0, else ceil(bin) (adaptive; at most
//   max(1, ceil((2H + 2) / output_height)) rows and likewise columns, so only a
//   roi more than twice the feature map's size samples fewer than onnxruntime).
// A sample at (y, x) outside [-1, H] x [-1, W] is 0; otherwise it is clamped to
// >= 0 and interpolated from its 4 neighbours (weights w1..w4). "avg" sums
// w1*v1 + .. + w4*v4 over the samples and divides by their count (at least 1);
// "max" takes max(w1*v1, .., w4*v4) per sample and the max over samples (0
// when the grid is empty). Arithmetic in float32 (float64 for float64 x).
// Stages: "<name>.acc" (tag "roi_align", reduce axes "iy", "ix") then <name>
// (tag "injective", the division / empty-grid select).
// Errors: DTypeError for a non-float x or rois of another dtype or non-integer
// batch_indices; ShapeError for mismatched shapes; AttributeError for an
// unknown mode or coordinate_transformation_mode, or output sizes < 1.
#pragma once

#include <string>

#include "te/tensor.h"

namespace tetune {
namespace ops {

Tensor roi_align(const Tensor &x, const Tensor &rois, const Tensor &batch_indices, const std::string &mode = "avg",
                 int64_t output_height = 1, int64_t output_width = 1, int64_t sampling_ratio = 0,
                 double spatial_scale = 1.0, const std::string &coordinate_transformation_mode = "half_pixel",
                 const std::string &name = "roi_align");

}  // namespace ops
}  // namespace tetune
