// Linear (affine) quantization: real = (q - zero_point) * scale.
//
// Source: ONNX spec, QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear,
// MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv.
//
// Quantization parameters (scale, zero_point) come per tensor, per axis or
// per block, told apart by their shape against the data x (rank r):
//   per tensor: a scalar or a one-element 1-D tensor;
//   per axis:   1-D [x.shape[axis]], block_size 0;
//   per block:  rank r, equal to x's shape except along axis, where it is
//               ceil(x.shape[axis] / block_size); element i of x uses block
//               i[axis] / block_size (ONNX opset 21).
// Anything else is a ShapeError naming the op and both shapes.
//
// Rounding is half to even and results saturate to the target integer range,
// as the spec asks. Integer products (the *_integer ops) accumulate in int32:
// both operands are widened to int32 after subtracting their zero points, and
// the int32 tensors go through ops::conv2d / ops::batch_matmul, so the anchor
// stage stays tunable and the zero-point shift fuses into it as a producer.
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace tetune {
namespace ops {

/**
 * ONNX QuantizeLinear: y = saturate(round_half_even(x / scale) + zero_point).
 * x float (any rank), scale of x's dtype, zero_point an integer tensor (its
 * dtype is the output dtype) or Tensor() for zero with output dtype `out`.
 * The division and rounding happen in float32 (float64 for float64 x), as
 * onnxruntime does; NaN quantizes to zero_point. Output: x's shape, tag "elemwise",
 * attrs op=QuantizeLinear, axis, block_size. DTypeError for a non-float x or
 * scale, a scale dtype other than x's, or a non-integer output dtype.
 */
Tensor quantize_linear(const Tensor &x, const Tensor &scale, const Tensor &zero_point, DType out = DType{DType::UInt, 8},
                       int64_t axis = 1, int64_t block_size = 0, const std::string &name = "quantize_linear");

/**
 * ONNX DequantizeLinear: y = (x - zero_point) * scale in scale's dtype. x
 * integer (any rank), zero_point of x's dtype or Tensor() for zero; the
 * difference is taken in int32 (int64 for 32/64-bit x) before the float
 * multiply, as onnxruntime does. Output: x's shape, scale's float dtype, tag "elemwise",
 * attrs op=DequantizeLinear. DTypeError for a float x, a non-float scale or a
 * zero_point dtype other than x's.
 */
Tensor dequantize_linear(const Tensor &x, const Tensor &scale, const Tensor &zero_point, int64_t axis = 1,
                         int64_t block_size = 0, const std::string &name = "dequantize_linear");

/**
 * ONNX DynamicQuantizeLinear: uint8 quantization of float32 x with parameters
 * from its range, returned as {y (uint8, x's shape), scale (float32 scalar),
 * zero_point (uint8 scalar)}:
 *   lo = min(0, min x), hi = max(0, max x)
 *   scale = (hi - lo) / 255, or 1 when hi == lo (an all-zero x; the spec's
 *           formula would divide by zero there, onnxruntime uses 1)
 *   zero_point = saturate(round_half_even(-lo / scale))
 *   y = saturate(round_half_even(x / scale) + zero_point)
 * Stages: "<name>.min", "<name>.max" (tag "reduce"), "<name>.scale",
 * "<name>.zero_point", <name>. DTypeError unless x is float32.
 */
std::vector<Tensor> dynamic_quantize_linear(const Tensor &x, const std::string &name = "dynamic_quantize_linear");

/**
 * x - zero_point widened to int32 (the operand of an integer product). x of
 * any 8/16-bit integer dtype (DTypeError otherwise), zero_point of x's dtype or
 * Tensor() for none, per tensor or per axis (1-D of x.shape[axis]). Tag "elemwise",
 * attrs op=ZeroPointShift.
 */
Tensor zero_point_shift(const Tensor &x, const Tensor &zero_point, int64_t axis, const std::string &name = "zp_shift");

/**
 * ONNX MatMulInteger: (A - a_zero_point) x (B - b_zero_point) in int32 with
 * NumPy matmul ranks and broadcasting (ops::batch_matmul). a_zero_point per
 * tensor or per row (1-D [M], axis -2 of A); b_zero_point per tensor or per
 * column (1-D [N], axis -1 of B). Output int32.
 */
Tensor matmul_integer(const Tensor &A, const Tensor &B, const Tensor &a_zero_point, const Tensor &b_zero_point,
                      const std::string &name = "matmul_integer");

/**
 * ONNX ConvInteger (2-D, NCHW): ops::conv2d of (x - x_zero_point) and
 * (w - w_zero_point) in int32. x_zero_point per tensor; w_zero_point per tensor
 * or per output channel (1-D [O]). Output int32; stage names and attributes as conv2d.
 */
Tensor conv2d_integer(const Tensor &x, const Tensor &w, const Tensor &x_zero_point, const Tensor &w_zero_point,
                      const std::vector<int64_t> &strides, const std::vector<int64_t> &pads,
                      const std::vector<int64_t> &dilations, int64_t groups, const std::string &name = "conv2d_integer");

/**
 * Requantizes an int32 accumulator: y = saturate(round_half_even(acc * multiplier) + y_zero_point)
 * with multiplier = in_scale * w_scale / y_scale computed in float32, the
 * product rounded as float32 (onnxruntime's QLinear kernels do the same).
 * in_scale and y_scale per tensor; w_scale per tensor or per axis (1-D along
 * `axis` of acc). y_zero_point per tensor, of dtype `out` (or Tensor()).
 * Tag "elemwise", attrs op=Requantize.
 */
Tensor requantize(const Tensor &acc, const Tensor &in_scale, const Tensor &w_scale, const Tensor &y_scale,
                  const Tensor &y_zero_point, DType out, int64_t axis, const std::string &name = "requantize");

}  // namespace ops
}  // namespace tetune
