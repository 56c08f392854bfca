// N-D transposed convolution (ONNX ConvTranspose over any number of spatial
// axes; conv2d_transpose in conv.h is the tuned 2-D form).
//
// x: [N, C, L1..Lr], w: [C, O/groups, K1..Kr], bias: [O] or undefined; float or
// integer dtype, all the same. strides s, dilations d >= 1 (r values); pads
// {begin1..beginr, end1..endr} (negative: the output extends past the full
// result, those positions take no taps); output_padding op (r values) each smaller
// than its stride or its dilation.
// Output [N, O, P1..Pr], Pa = sa*(La - 1) + opa + da*(Ka - 1) + 1 - begina - enda:
//   y[n, o, p] = sum over c in o's group and k of x[n, c, q] * w[c, o % (O/groups), k]
//                where, per axis, pa + begina - ka*da = qa*sa with 0 <= qa < La
// computed directly (the taps that fall between input pixels are skipped by a
// select), then "+ bias" as a second stage "<name>" (the sum is "<name>.conv").
// Errors: ShapeError / AttributeError naming the op for mismatched shapes,
// bad attribute lengths or values, or an empty output.
// Tags "conv_transpose" and "injective" (bias); attrs: op, strides, pads, dilations, groups.
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace tetune {
namespace ops {

Tensor conv_transpose_nd(const Tensor &x, const Tensor &w, const Tensor &bias, const std::vector<int64_t> &strides,
                         const std::vector<int64_t> &pads, const std::vector<int64_t> &dilations,
                         const std::vector<int64_t> &output_padding, int64_t groups = 1,
                         const std::string &name = "conv_transpose_nd");

}  // namespace ops
}  // namespace tetune
