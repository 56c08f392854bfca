// ONNX lowerings: linear quantization and integer / quantized products (see
// lowering_internal.h). The computes live in te/ops/quant.h.
#include "relay_import/lowering_internal.h"

#include "te/ops/common.h"
#include "te/ops/quant.h"

namespace tetune {
namespace relay {
namespace lowering {

namespace {

Tensor opt(LowerContext &c, int i) { return c.has(i) ? c.in(i) : Tensor(); }

// Output dtype of QuantizeLinear without a zero point: opset 21's output_dtype, else uint8.
DType quantize_out_dtype(LowerContext &c) {
  if (!c.node().has_attr("output_dtype")) return uint8();
  int64_t code = c.node().attr_i("output_dtype", 2);
  if (code == 0) return uint8();  // 0 means "unset": the default
  if (code < 0 || code > 1000) c.attr_fail("attribute 'output_dtype' = " + std::to_string(code) + " is not an ONNX data type");
  return dtype_from_onnx(static_cast<int>(code), "QuantizeLinear 'output_dtype'");
}

void check_int_out(LowerContext &c, DType t, const std::string &what) {
  if ((t.is_int() || t.is_uint()) && (t.bits == 8 || t.bits == 16)) return;
  c.unsupported(what + " dtype " + t.str() + " (8- and 16-bit integers only; no float8 / int4)");
}

LOWER(l_quantize_linear) {
  Tensor zp = opt(c, 2);
  DType out = zp.defined() ? zp.dtype() : quantize_out_dtype(c);
  check_int_out(c, out, "output");
  return {ops::quantize_linear(c.in(0), c.in(1), zp, out, c.node().attr_i("axis", 1), c.node().attr_i("block_size", 0),
                               c.name())};
}

LOWER(l_dequantize_linear) {
  Tensor x = c.in(0);
  if (x.dtype() != int32()) check_int_out(c, x.dtype(), "input");
  return {ops::dequantize_linear(x, c.in(1), opt(c, 2), c.node().attr_i("axis", 1), c.node().attr_i("block_size", 0),
                                 c.name())};
}

LOWER(l_dynamic_quantize_linear) { return ops::dynamic_quantize_linear(c.in(0), c.name()); }

LOWER(l_matmul_integer) { return {ops::matmul_integer(c.in(0), c.in(1), opt(c, 2), opt(c, 3), c.name())}; }

// The 2-D convolution attributes of Conv, checked as l_conv does; x [N, C, H, W], w [O, C/g, KH, KW].
struct ConvAttrs {
  std::vector<int64_t> strides, pads, dilations;
  int64_t groups;
};

ConvAttrs conv_attrs(LowerContext &c, const Tensor &x, const Tensor &w) {
  if (x.ndim() != 4) c.unsupported(std::to_string(x.ndim() - 2) + "-D convolution (only 2-D)");
  if (w.ndim() != 4) c.shape_fail("weight " + shape_str(w.shape()) + " must have rank 4");
  std::vector<int64_t> k = {w.shape()[2], w.shape()[3]};
  if (c.node().has_attr("kernel_shape") && c.ints_attr("kernel_shape", {}, 2, 1) != k)
    c.shape_fail("attribute 'kernel_shape' does not match the weight shape " + shape_str(w.shape()));
  ConvAttrs a;
  a.strides = c.ints_attr("strides", {1, 1}, 2, 1);
  a.dilations = c.ints_attr("dilations", {1, 1}, 2, 1);
  a.pads = auto_pads(c, {x.shape()[2], x.shape()[3]}, k, a.strides, a.dilations, false, {0, 0});
  a.groups = c.node().attr_i("group", 1);
  return a;
}

LOWER(l_conv_integer) {
  Tensor x = c.in(0), w = c.in(1);
  ConvAttrs a = conv_attrs(c, x, w);
  return {ops::conv2d_integer(x, w, opt(c, 2), opt(c, 3), a.strides, a.pads, a.dilations, a.groups, c.name())};
}

// QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp): b's scale may be per column.
LOWER(l_qlinear_matmul) {
  Tensor a = c.in(0), b = c.in(3), yzp = c.in(7);
  check_int_out(c, yzp.dtype(), "output");
  Tensor acc = ops::matmul_integer(a, b, c.in(2), c.in(5), c.name() + ".acc");
  return {ops::requantize(acc, c.in(1), c.in(4), c.in(6), yzp, yzp.dtype(), acc.ndim() - 1, c.name())};
}

// QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B): w's scale and zero point may be per output channel.
LOWER(l_qlinear_conv) {
  Tensor x = c.in(0), w = c.in(3), yzp = c.in(7);
  check_int_out(c, yzp.dtype(), "output");
  ConvAttrs a = conv_attrs(c, x, w);
  Tensor acc = ops::conv2d_integer(x, w, c.in(2), c.in(5), a.strides, a.pads, a.dilations, a.groups, c.name() + ".acc");
  if (c.has(8)) {
    Tensor bias = c.in_rank(8, 1, "bias");
    if (bias.dtype() != int32()) c.fail("bias must be int32, got " + bias.dtype().str());
    if (bias.shape()[0] != acc.shape()[1])
      c.shape_fail("bias " + shape_str(bias.shape()) + " does not match " + std::to_string(acc.shape()[1]) + " output channels");
    Tensor conv = acc;
    acc = compute(conv.shape(), [&](const std::vector<Var> &i) { return conv(idx_of(i)) + bias(i[1]); },
                  c.name() + ".bias", "", ops::default_axis_names(4));
    acc = ops::annotate(acc, "broadcast", {{"op", "QLinearConv"}});
  }
  return {ops::requantize(acc, c.in(1), c.in(4), c.in(6), yzp, yzp.dtype(), 1, c.name())};
}

}  // namespace

const OpTable &quant_ops() {
  static const OpTable t = {
      {"QuantizeLinear", {l_quantize_linear, OpPattern::Elemwise}},
      {"DequantizeLinear", {l_dequantize_linear, OpPattern::Elemwise}},
      {"DynamicQuantizeLinear", {l_dynamic_quantize_linear, OpPattern::Reduce}},
      {"MatMulInteger", {l_matmul_integer, OpPattern::Anchor}},
      {"ConvInteger", {l_conv_integer, OpPattern::Anchor}},
      {"QLinearMatMul", {l_qlinear_matmul, OpPattern::Anchor}},
      {"QLinearConv", {l_qlinear_conv, OpPattern::Anchor}},
  };
  return t;
}

}  // namespace lowering
}  // namespace relay
}  // namespace tetune
