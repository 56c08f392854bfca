// Registry entries: convolutions (te/ops/conv.h, conv_nd.h, conv_transpose_nd.h).
// Square kernels' stride and pad are one number each, applied to every spatial axis.
#include <string>

#include "base/errors.h"
#include "te/ops/conv.h"
#include "te/ops/conv_nd.h"
#include "te/ops/registry_families.h"
#include "te/ops/winograd.h"

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
    return {{x, w}, {conv2d(x, w, Tensor(), {stride, stride}, {pad, pad, pad, pad}, {dilation, dilation}, groups, "conv2d")}, {w}};
  Tensor b = input({s[4]}, "b");
  return {{x, w, b}, {conv2d(x, w, b, {stride, stride}, {pad, pad, pad, pad}, {dilation, dilation}, groups, "conv2d")}, {w, b}};
}

// AttributeError unless channel block `block` (>= 1) divides the channel count C (or K) of op.
void check_block(const char *op, const char *block, int64_t b, const char *channels, int64_t extent) {
  if (b < 1 || extent % b)
    throw AttributeError("op '" + std::string(op) + "': block " + block + " = " + std::to_string(b) + " must divide " +
                         channels + " = " + std::to_string(extent));
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
         check_block("conv2d_nchwc", "cb", cb, "C", s[1]);
         check_block("conv2d_nchwc", "kb", kb, "K", s[4]);
         Tensor x = input({s[0], s[1] / cb, s[2], s[3], cb}, "x");
         Tensor w = input({s[4] / kb, s[1] / cb, s[5], s[6], cb, kb}, "w");
         return OpWorkload{{x, w}, {conv2d_nchwc(x, w, {stride, stride}, {pad, pad, pad, pad})}, {w}};
       }},
      {"conv2d_transpose", "N,C,H,W,K,R,S[,stride[,pad]]",
       "NCHW transposed convolution, w [C, K, R, S] (ONNX ConvTranspose)", "1,8,6,6,4,3,3,2,1",
       [](const Dims &s) {
         int64_t stride = opt(s, 7, 1), pad = opt(s, 8, 0);
         Tensor x = input(take(s, 0, 4), "x"), w = input({s[1], s[4], s[5], s[6]}, "w");
         return OpWorkload{{x, w}, {conv2d_transpose(x, w, Tensor(), {stride, stride}, {pad, pad, pad, pad})}, {w}};
       }},
      {"conv3d", "N,C,D,H,W,K,T,R,S[,stride[,pad]]", "NCDHW / OIDHW convolution (ONNX Conv, 3 spatial axes)",
       "1,4,6,8,8,8,3,3,3,1,1",
       [](const Dims &s) {
         int64_t st = opt(s, 9, 1), p = opt(s, 10, 0);
         Tensor x = input(take(s, 0, 5), "x"), w = input({s[5], s[1], s[6], s[7], s[8]}, "w");
         return OpWorkload{{x, w}, {conv_nd(x, w, Tensor(), {st, st, st}, {p, p, p, p, p, p}, {1, 1, 1}, 1, "conv3d")}, {w}};
       }},
      {"winograd_conv2d_nchwc", "N,C,H,W,K,cb,kb,m[,pad]",
       "3x3 stride-1 blocked convolution by Winograd F(m x m, 3 x 3) (m = 2 or 4): input transform, batched GEMM "
       "with the transformed weight u [(m+2)^2, K/kb, C/cb, cb, kb], output transform, one kernel (ONNX Conv, 3x3, stride 1)",
       "1,8,10,10,16,4,8,2,1",
       [](const Dims &s) {
         const int64_t cb = s[5], kb = s[6], pad = opt(s, 8, 0);
         const int m = static_cast<int>(s[7]);
         check_block("winograd_conv2d_nchwc", "cb", cb, "C", s[1]);
         check_block("winograd_conv2d_nchwc", "kb", kb, "K", s[4]);
         const int64_t alpha = winograd_matrices(m).alpha;
         Tensor x = input({s[0], s[1] / cb, s[2], s[3], cb}, "x");
         Tensor u = input({alpha * alpha, s[4] / kb, s[1] / cb, cb, kb}, "u");
         Tensor v = winograd_input_nchwc(x, m, {pad, pad, pad, pad});
         const int64_t OH = s[2] + 2 * pad - 2, OW = s[3] + 2 * pad - 2;
         return OpWorkload{{x, u}, {winograd_output_nchwc(winograd_gemm_nchwc(v, u), m, s[0], OH, OW)}, {u}};
       }},
      {"winograd_input_nchwc", "N,C,H,W,cb,m[,pad]",
       "Winograd F(m x m, 3 x 3) input transform of a blocked tensor (stage 1 of 3 of an ONNX Conv)",
       "1,8,10,10,4,4,1",
       [](const Dims &s) {
         const int64_t cb = s[4], pad = opt(s, 6, 0);
         check_block("winograd_input_nchwc", "cb", cb, "C", s[1]);
         Tensor x = input({s[0], s[1] / cb, s[2], s[3], cb}, "x");
         return OpWorkload{{x}, {winograd_input_nchwc(x, static_cast<int>(s[5]), {pad, pad, pad, pad})}};
       }},
      {"winograd_gemm_nchwc", "E,C,P,K,cb,kb",
       "Winograd batched GEMM: E products of P x C by C x K in channel blocks (stage 2 of 3 of an ONNX Conv)",
       "16,8,25,16,4,8",
       [](const Dims &s) {
         const int64_t cb = s[4], kb = s[5];
         check_block("winograd_gemm_nchwc", "cb", cb, "C", s[1]);
         check_block("winograd_gemm_nchwc", "kb", kb, "K", s[3]);
         Tensor v = input({s[0], s[1] / cb, s[2], cb}, "v"), u = input({s[0], s[3] / kb, s[1] / cb, cb, kb}, "u");
         return OpWorkload{{v, u}, {winograd_gemm_nchwc(v, u)}, {u}};
       }},
      {"winograd_output_nchwc", "N,K,OH,OW,kb,m",
       "Winograd F(m x m, 3 x 3) output transform into a blocked tensor (stage 3 of 3 of an ONNX Conv)",
       "1,16,10,10,8,4",
       [](const Dims &s) {
         const int64_t kb = s[4];
         const int m = static_cast<int>(s[5]);
         check_block("winograd_output_nchwc", "kb", kb, "K", s[1]);
         const int64_t alpha = winograd_matrices(m).alpha, P = s[0] * ((s[2] + m - 1) / m) * ((s[3] + m - 1) / m);
         Tensor mt = input({alpha * alpha, s[1] / kb, P, kb}, "m");
         return OpWorkload{{mt}, {winograd_output_nchwc(mt, m, s[0], s[2], s[3])}};
       }},
  };
}

}  // namespace registry_detail
}  // namespace ops
}  // namespace tetune
