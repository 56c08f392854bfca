// Registry entries: linear quantization and integer products (te/ops/quant.h).
// Scales and zero points are per tensor (one-element inputs); activations are
// uint8, weights int8, accumulators int32, as ONNX's quantized models have them.
#include "te/ops/quant.h"
#include "te/ops/registry_families.h"

namespace tetune {
namespace ops {
namespace registry_detail {

namespace {

Tensor scalar(const std::string &name, DType dtype) { return placeholder({1}, dtype, name); }

}  // namespace

std::vector<OpEntry> quant_entries() {
  return {
      {"quantize_linear", "D0,...,Dn",
       "uint8 saturate(round(x / scale) + zero_point), per tensor (ONNX QuantizeLinear)", "8,33",
       [](const Dims &s) {
         Tensor x = input(s, "x"), scale = scalar("scale", float32()), zp = scalar("zero_point", uint8());
         return OpWorkload{{x, scale, zp}, {quantize_linear(x, scale, zp, uint8(), 0)}};
       }},
      {"dequantize_linear", "D0,...,Dn", "float32 (x - zero_point) * scale of uint8 x, per tensor (ONNX DequantizeLinear)",
       "8,33",
       [](const Dims &s) {
         Tensor x = placeholder(s, uint8(), "x"), scale = scalar("scale", float32()), zp = scalar("zero_point", uint8());
         return OpWorkload{{x, scale, zp}, {dequantize_linear(x, scale, zp, 0)}};
       }},
      {"dynamic_quantize_linear", "D0,...,Dn",
       "uint8 y, float32 scale and uint8 zero_point from x's range (ONNX DynamicQuantizeLinear)", "8,33",
       [](const Dims &s) {
         Tensor x = input(s, "x");
         return OpWorkload{{x}, dynamic_quantize_linear(x)};
       }},
      {"matmul_integer", "M,N,K", "int32 (A - a_zp)[M,K] (B - b_zp)[K,N], uint8 A, int8 B (ONNX MatMulInteger)",
       "16,24,32",
       [](const Dims &s) {
         Tensor a = placeholder({s[0], s[2]}, uint8(), "A"), b = placeholder({s[2], s[1]}, int8(), "B");
         Tensor azp = scalar("a_zero_point", uint8()), bzp = scalar("b_zero_point", int8());
         return OpWorkload{{a, b, azp, bzp}, {matmul_integer(a, b, azp, bzp)}};
       }},
      {"qlinear_matmul", "M,N,K",
       "uint8 requantized (A - a_zp)(B - b_zp) * a_scale * b_scale / y_scale + y_zp, uint8 A, int8 B "
       "(ONNX QLinearMatMul)",
       "16,24,32",
       [](const Dims &s) {
         Tensor a = placeholder({s[0], s[2]}, uint8(), "A"), b = placeholder({s[2], s[1]}, int8(), "B");
         Tensor as = scalar("a_scale", float32()), azp = scalar("a_zero_point", uint8());
         Tensor bs = scalar("b_scale", float32()), bzp = scalar("b_zero_point", int8());
         Tensor ys = scalar("y_scale", float32()), yzp = scalar("y_zero_point", uint8());
         // As relay_import/lowering_quant.cc lowers it: the int32 product, then requantization.
         Tensor acc = matmul_integer(a, b, azp, bzp, "qlinear_matmul.acc");
         return OpWorkload{{a, as, azp, b, bs, bzp, ys, yzp}, {requantize(acc, as, bs, ys, yzp, uint8(), 1, "qlinear_matmul")}};
       }},
      {"conv2d_integer", "N,C,H,W,K,R,S[,stride[,pad]]",
       "int32 NCHW convolution of (x - x_zp) and (w - w_zp), uint8 x, int8 w [K,C,R,S] (ONNX ConvInteger)",
       "1,8,10,10,16,3,3,1,1",
       [](const Dims &s) {
         int64_t st = opt(s, 7, 1), p = opt(s, 8, 0);
         Tensor x = placeholder(take(s, 0, 4), uint8(), "x");
         Tensor w = placeholder({s[4], s[1], s[5], s[6]}, int8(), "w");
         Tensor xzp = scalar("x_zero_point", uint8()), wzp = scalar("w_zero_point", int8());
         return OpWorkload{{x, w, xzp, wzp}, {conv2d_integer(x, w, xzp, wzp, {st, st}, {p, p, p, p}, {1, 1}, 1)}, {w, wzp}};
       }},
  };
}

}  // namespace registry_detail
}  // namespace ops
}  // namespace tetune
