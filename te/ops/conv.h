// 2-D convolutions, NCHW activations, ONNX Conv / ConvTranspose semantics,
// and conv2d_nchwc in blocked layouts (its own docstring below).
//
// Attributes (AttributeError naming the op and attribute when out of range):
//   strides   {sh, sw}, >= 1
//   pads      {top, left, bottom, right} (ONNX order; {ph, pw} means symmetric), >= 0
//   dilations {dh, dw}, >= 1
//   groups    >= 1, dividing C and O (groups == C == O is depthwise)
// Dtypes: x, w (and bias) share one dtype (DTypeError), accumulation in it.
// Stages: when any pad is non-zero, "<name>.pad" (tag "injective") zero-pads the
// input; the reduction (reduce axes "rc", "ry", "rx"; output axes n, c, h, w)
// is <name> (tag "conv2d" / "conv2d_transpose"), or "<name>.conv" when a bias
// is given, followed by <name> = conv + bias[c] (tag "broadcast").
// attrs: op, strides, pads, dilations, groups (and output_padding).
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace tetune {
namespace ops {

/**
 * x [N, C, H, W], w [O, C / groups, KH, KW], bias [O] or Tensor() -> y [N, O, OH, OW]:
 *   OH = floor((H + top + bottom - dh * (KH - 1) - 1) / sh) + 1   (likewise OW)
 *   y[n, o, h, w] = sum_{rc, ry, rx} xpad[n, g * C/groups + rc, h*sh + ry*dh, w*sw + rx*dw] * w[o, rc, ry, rx]
 *   with g = o / (O / groups). ShapeError when the channel counts disagree or OH < 1.
 */
Tensor conv2d(const Tensor &x, const Tensor &w, const Tensor &bias = Tensor(), const std::vector<int64_t> &strides = {1, 1},
              const std::vector<int64_t> &pads = {0, 0, 0, 0}, const std::vector<int64_t> &dilations = {1, 1},
              int64_t groups = 1, const std::string &name = "conv2d");

/**
 * Convolution in blocked layouts (TVM's conv2d_NCHWc; oneDNN's nChw16c /
 * OIhw16i16o for cb = ob = 16), for graphs that keep activations blocked:
 *   x [N, C/cb, H, W, cb], w [O/ob, C/cb, KH, KW, cb, ob] -> y [N, O/ob, OH, OW, ob]
 *   OH = floor((H + top + bottom - KH) / sh) + 1   (likewise OW)
 *   y[n, k, h, w, kb] = sum_{rco, ry, rci, rx} xpad[n, rco, h*sh + ry, w*sw + rx, rci]
 *                                              * w[k, rco, ry, rx, rci, kb]
 * i.e. the NCHW conv2d with channel c = rco * cb + rci and output channel
 * o = k * ob + kb. The block axes are innermost in memory: a vector of ob
 * output channels is one dense load of the weight, and the output keeps the
 * layout, so no transpose is needed (Georganas et al., SC 2018, section 3).
 * With groups G > 1 (groups of whole channel blocks: C/cb and O/ob are
 * multiples of G), output block k reads only the C/cb/G input blocks of its
 * group, k / (O/ob/G): rco runs over those, w is [O/ob, C/cb/G, KH, KW, cb, ob]
 * and x's block is k / (O/ob/G) * (C/cb/G) + rco. Groups narrower than a
 * block are the caller's to pack into blocks (zero weights between them).
 * No dilation. x and w share one dtype (DTypeError).
 * Stages: "<name>.pad" (tag "injective") when padded, then <name> (tag
 * "conv2d_nchwc"; output axes n, k, h, w, kb; reduce axes rco, ry, rci, rx,
 * in the loop order of TVM's x86 schedule).
 * ShapeError when x is not rank 5 or w not rank 6, when their channel blocks
 * disagree, or when the kernel exceeds the padded input; AttributeError for
 * strides < 1, pads < 0, or groups that do not divide both block counts.
 */
Tensor conv2d_nchwc(const Tensor &x, const Tensor &w, const std::vector<int64_t> &strides = {1, 1},
                    const std::vector<int64_t> &pads = {0, 0, 0, 0}, const std::string &name = "conv2d_nchwc",
                    int64_t groups = 1);

/**
 * Depthwise convolution (groups = channels, one filter per channel) in the
 * blocked layout of conv2d_nchwc:
 *   x [N, C/b, H, W, b], w [C/b, KH, KW, b] -> y [N, C/b, OH, OW, b]
 *   OH = floor((H + top + bottom - dh * (KH - 1) - 1) / sh) + 1   (likewise OW)
 *   y[n, c, h, w, cb] = sum_{ry, rx} xpad[n, c, h*sh + ry*dh, w*sw + rx*dw, cb] * w[c, ry, rx, cb]
 * i.e. the NCHW depthwise conv2d with channel c * b + cb and weight
 * [C, 1, KH, KW] re-laid out; a vector of b channels is one dense load of
 * input and weight alike. x and w share one dtype (DTypeError).
 * Stages: "<name>.pad" (tag "injective") when padded, then <name> (tag
 * "depthwise_conv2d_nchwc"; axes n, c, h, w, cb; reduce axes ry, rx).
 * ShapeError when x is not rank 5 or w not rank 4, when their blocks differ
 * or when the kernel exceeds the padded input; AttributeError for strides or
 * dilations < 1 and pads < 0.
 */
Tensor depthwise_conv2d_nchwc(const Tensor &x, const Tensor &w, const std::vector<int64_t> &strides = {1, 1},
                              const std::vector<int64_t> &pads = {0, 0, 0, 0}, const std::vector<int64_t> &dilations = {1, 1},
                              const std::string &name = "depthwise_conv2d_nchwc");

/**
 * ONNX ConvTranspose: x [N, C, H, W], w [C, O / groups, KH, KW], bias [O] or Tensor() -> [N, O, OH, OW]:
 *   OH = sh * (H - 1) + output_padding_h + dh * (KH - 1) + 1 - top - bottom
 *   y[n, o, oh, ow] = sum over c in o's group, ky, kx with oh + top = ih*sh + ky*dh (likewise w)
 *                     of x[n, c, ih, iw] * w[c, o % (O/groups), ky, kx]
 * Implemented as "<name>.pad" (the stride-dilated, padded input, tag
 * "injective") followed by a stride-1 correlation with the flipped kernel.
 * When the kernel equals the stride (KH = sh, KW = sw), dilation is 1 and
 * output_padding is 0 (the learned 2x upsampling of detection heads), every
 * output pixel takes exactly one tap, so the stage is computed directly:
 *   y[n, o, oh, ow] = sum over c of x[n, c, (oh + top) / sh, (ow + left) / sw]
 *                                  * w[c, o % (O/groups), (oh + top) % sh, (ow + left) % sw]
 * with no ".pad" stage (the general form multiplies sh * sw - 1 zeros per tap).
 * output_padding {oph, opw} must be < stride or < dilation (AttributeError).
 */
Tensor conv2d_transpose(const Tensor &x, const Tensor &w, const Tensor &bias = Tensor(),
                        const std::vector<int64_t> &strides = {1, 1}, const std::vector<int64_t> &pads = {0, 0, 0, 0},
                        const std::vector<int64_t> &dilations = {1, 1}, const std::vector<int64_t> &output_padding = {0, 0},
                        int64_t groups = 1, const std::string &name = "conv2d_transpose");

}  // namespace ops
}  // namespace tetune
