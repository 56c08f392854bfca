// 2-D pooling over NCHW activations (ONNX MaxPool / AveragePool / GlobalAveragePool).
//
// Attributes (AttributeError naming the op and attribute when invalid):
//   kernel {kh, kw} >= 1; strides {sh, sw} >= 1; pads {top, left, bottom, right}
//   ({ph, pw} = symmetric), each >= 0 and < the (dilated) kernel; dilations {dh, dw} >= 1.
// Output extent (likewise for W), with the effective kernel ek = dh * (kh - 1) + 1:
//   floor mode: OH = floor((H + top + bottom - ek) / sh) + 1
//   ceil mode:  OH = ceil((H + top + bottom - ek) / sh) + 1, minus one when the
//               last window would start at or after H + top (in the bottom
//               padding), as PyTorch and ONNX (opset >= 19) do.
// max_pool2d and avg_pool2d also take a blocked x [N, C/b, H, W, b] (NCHW[b]c)
// and then return [N, C/b, OH, OW, b] (axes n, c, h, w, cb).
// Padding is done by a select inside the reduction (no separate pad stage).
// Dtype: the input dtype; avg pooling needs float (DTypeError).
// Axes: n, c, h, w; reduce axes "ry", "rx". Tag "pool". attrs: op, kernel,
// strides, pads, dilations, ceil_mode, count_include_pad.
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace tetune {
namespace ops {

/** Max over each window; padded positions are ignored (they hold -inf / the lowest value). */
Tensor max_pool2d(const Tensor &x, const std::vector<int64_t> &kernel, const std::vector<int64_t> &strides = {1, 1},
                  const std::vector<int64_t> &pads = {0, 0, 0, 0}, const std::vector<int64_t> &dilations = {1, 1},
                  bool ceil_mode = false, const std::string &name = "max_pool2d");

/**
 * Mean over each window: "<name>.sum" (tag "pool") then <name> = sum / count
 * (tag "pool"). count_include_pad: count = (min(start + k, H + bottom) - start)
 * per axis (the explicit padding counts, the ceil-mode overhang does not, as
 * PyTorch); otherwise only positions inside the input count.
 */
Tensor avg_pool2d(const Tensor &x, const std::vector<int64_t> &kernel, const std::vector<int64_t> &strides = {1, 1},
                  const std::vector<int64_t> &pads = {0, 0, 0, 0}, bool ceil_mode = false,
                  bool count_include_pad = false, const std::string &name = "avg_pool2d");

/**
 * Mean over H and W: [N, C, H, W] -> [N, C, 1, 1]; "<name>.sum" then <name>. Float only.
 * Where 16, 8 or 4 divides W (lanes: the largest) or W is 5-7 (lanes = W), "<name>.lanes"
 * [N, C, lanes] first sums the columns w = l mod lanes, and "<name>.sum" adds the lanes (an
 * rfactor whose lanes vectorize).
 */
Tensor global_avg_pool2d(const Tensor &x, const std::string &name = "global_avg_pool2d");

}  // namespace ops
}  // namespace tetune
