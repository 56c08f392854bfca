// Registry entries: convolutions (te/ops/conv.h, conv_nd.h, conv_transpose_nd.h).
// Square kernels' stride and pad are one number each, applied to every spatial axis.
#include <string>

#include "base/errors.h"
#include "te/ops/conv.h"
#include "te/ops/conv_nd.h"
#include "te/ops/registry_families.h"

namespace tetune {
namespace ops {
namespace registry_detail {

namespace {

// N,C,H,W,K,R,S then, from index `at`, [stride[,pad]]; groups 1, C (depthwise) or given.
OpWorkload conv_op(const Dims &s, const char *op, int64_t groups, size_t at, int64_t dilation, bool bias) {
  int64_t stride = opt(s, at, 1), pad = opt(s, at + 1, 0);
  if (groups < 1 || s[1] % groups || s[4] % groups)
    throw AttributeError("op '" + std::string(op) + "': groups = " + std::to_string(groups) + " must divide C = " +
                         std::to_string(s[1]) + " and K = " + std::to_string(s[4]));
  Tensor x = input(take(s, 0, 4), "x");
  Tensor w = input({s[4], s[1] / groups, s[5], s[6]}, "w");
  if (!bias)
    return {{x, w}, {conv2d(x, w, Tensor(), {stride, stride}, {pad, pad, pad, pad}, {dilation, dilation}, groups, "conv2d")}};
  Tensor b = input({s[4]}, "b");
  return {{x, w, b}, {conv2d(x, w, b, {stride, stride}, {pad, pad, pad, pad}, {dilation, dilation}, groups, "conv2d")}};
}

}  // namespace

std::vector<OpEntry> conv_entries() {
  return {
      {"conv2d", "N,C,H,W,K,R,S[,stride[,pad]]", "NCHW / OIHW convolution (ONNX Conv)", "1,8,12,12,16,3,3,1,1",
       [](const Dims &s) { return conv_op(s, "conv2d", 1, 7, 1, false); }},
      {"conv2d_bias", "N,C,H,W,K,R,S[,stride[,pad]]", "NCHW / OIHW convolution + bias[K] (ONNX Conv with B)",
       "1,8,12,12,16,3,3,1,1", [](const Dims &s) { return conv_op(s, "conv2d_bias", 1, 7, 1, true); }},
      {"conv2d_dilated", "N,C,H,W,K,R,S,dilation[,stride[,pad]]",
       "NCHW / OIHW convolution with dilations {d, d} (ONNX Conv dilations)", "1,4,14,14,8,3,3,2,1,2",
       [](const Dims &s) { return conv_op(s, "conv2d_dilated", 1, 8, s[7], false); }},
      {"depthwise_conv2d", "N,C,H,W,K,R,S[,stride[,pad]]", "NCHW depthwise convolution, groups = C (ONNX Conv)",
       "1,8,12,12,8,3,3,1,1", [](const Dims &s) { return conv_op(s, "depthwise_conv2d", s[1], 7, 1, false); }},
      {"group_conv2d", "N,C,H,W,K,R,S,groups[,stride[,pad]]",
       "NCHW grouped convolution, w [K, C/groups, R, S] (ONNX Conv group)", "1,8,10,10,16,3,3,4,1,1",
       [](const Dims &s) { return conv_op(s, "group_conv2d", s[7], 8, 1, false); }},
      {"conv2d_nchwc", "N,C,H,W,K,R,S,cb,kb[,stride[,pad]]",
       "NCHW[cb]c / OIHW[cb]i[kb]o blocked convolution (TVM conv2d_NCHWc; C, K counted in channels; ONNX Conv "
       "in a blocked layout)",
       "1,8,10,10,16,3,3,4,8,1,1",
       [](const Dims &s) {
         int64_t stride = opt(s, 9, 1), pad = opt(s, 10, 0), cb = s[7], kb = s[8];
         if (cb < 1 || kb < 1 || s[1] % cb || s[4] % kb)
           throw AttributeError("op 'conv2d_nchwc': blocks cb = " + std::to_string(cb) + ", kb = " + std::to_string(kb) +
                                " must divide C = " + std::to_string(s[1]) + " and K = " + std::to_string(s[4]));
         Tensor x = input({s[0], s[1] / cb, s[2], s[3], cb}, "x");
         Tensor w = input({s[4] / kb, s[1] / cb, s[5], s[6], cb, kb}, "w");
         return OpWorkload{{x, w}, {conv2d_nchwc(x, w, {stride, stride}, {pad, pad, pad, pad})}};
       }},
      {"conv2d_transpose", "N,C,H,W,K,R,S[,stride[,pad]]",
       "NCHW transposed convolution, w [C, K, R, S] (ONNX ConvTranspose)", "1,8,6,6,4,3,3,2,1",
       [](const Dims &s) {
         int64_t stride = opt(s, 7, 1), pad = opt(s, 8, 0);
         Tensor x = input(take(s, 0, 4), "x"), w = input({s[1], s[4], s[5], s[6]}, "w");
         return OpWorkload{{x, w}, {conv2d_transpose(x, w, Tensor(), {stride, stride}, {pad, pad, pad, pad})}};
       }},
      {"conv3d", "N,C,D,H,W,K,T,R,S[,stride[,pad]]", "NCDHW / OIDHW convolution (ONNX Conv, 3 spatial axes)",
       "1,4,6,8,8,8,3,3,3,1,1",
       [](const Dims &s) {
         int64_t st = opt(s, 9, 1), p = opt(s, 10, 0);
         Tensor x = input(take(s, 0, 5), "x"), w = input({s[5], s[1], s[6], s[7], s[8]}, "w");
         return OpWorkload{{x, w}, {conv_nd(x, w, Tensor(), {st, st, st}, {p, p, p, p, p, p}, {1, 1, 1}, 1, "conv3d")}};
       }},
  };
}

}  // namespace registry_detail
}  // namespace ops
}  // namespace tetune
