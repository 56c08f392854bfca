// N-D convolution (ONNX Conv over any number of spatial axes; conv2d in conv.h
// is the tuned 2-D form, and stays the one used for 1-D and 2-D inputs).
//
// x: [N, C, L1..Lr], w: [O, C/groups, K1..Kr], bias: [O] or undefined; float or
// integer dtype, all the same (DTypeError), accumulation in it. strides s and
// dilations d >= 1 (r values); pads {begin1..beginr, end1..endr} >= 0.
// Output [N, O, P1..Pr], Pa = floor((La + begina + enda - da*(Ka - 1) - 1) / sa) + 1:
//   y[n, o, p] = sum over rc < C/groups and k of
//                xpad[n, g*(C/groups) + rc, p1*s1 + k1*d1, ..] * w[o, rc, k]
//   with g = o / (O/groups) and xpad the input zero-padded by pads.
// Stages: "<name>.pad" (tag "injective") when any pad is non-zero; the
// reduction (reduce axes "rc", "rk0".."rk<r-1>") is <name> (tag "conv_nd"), or
// "<name>.conv" when a bias is given, followed by <name> = conv + bias[o]
// (tag "broadcast"). attrs: op, strides, pads, dilations, groups.
// Errors: ShapeError for mismatched ranks / channels / bias or a kernel larger
// than the padded input; AttributeError for bad attribute lengths or values.
// Source: ONNX Operators.md, Conv.
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace tetune {
namespace ops {

Tensor conv_nd(const Tensor &x, const Tensor &w, const Tensor &bias, const std::vector<int64_t> &strides,
               const std::vector<int64_t> &pads, const std::vector<int64_t> &dilations, int64_t groups = 1,
               const std::string &name = "conv_nd");

}  // namespace ops
}  // namespace tetune
