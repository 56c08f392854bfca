// Elementwise operators with NumPy / ONNX multidirectional broadcasting.
//
// Layout: any rank, row-major. Binary operators broadcast their operands
// (shapes aligned at the trailing axis; an extent-1 axis or a missing leading
// axis stretches); the output is tagged "elemwise" when no broadcasting is
// needed and "broadcast" otherwise; unary operators are tagged "elemwise".
// Dtypes: binary operands must have equal dtypes (DTypeError naming the op
// otherwise); the output has that dtype, except comparisons, which give bool.
// Transcendental operators need float inputs (DTypeError otherwise). Integer
// div is floor division (Halide semantics), unlike ONNX's truncation.
// Every output carries attrs["op"] = the ONNX op name.
#pragma once

#include <string>

#include "te/tensor.h"

namespace tetune {
namespace ops {

/** NumPy broadcast of two shapes; ShapeError naming both shapes when incompatible. */
Shape broadcast_shapes(const Shape &a, const Shape &b);

/** Element (index of `out_shape`) of `t` under broadcasting: the index expressions for t. */
std::vector<Expr> broadcast_index(const Tensor &t, const Shape &out_shape, const std::vector<Var> &idx);

// ---- binary (ONNX Add, Sub, Mul, Div, Pow, Max, Min, Equal, Less, Greater) ----
Tensor add(const Tensor &a, const Tensor &b, const std::string &name = "add");
Tensor sub(const Tensor &a, const Tensor &b, const std::string &name = "sub");
Tensor mul(const Tensor &a, const Tensor &b, const std::string &name = "mul");
/** Float: true division. Integer: floor division (x / 0 == 0, Halide). */
Tensor div(const Tensor &a, const Tensor &b, const std::string &name = "div");
/** Float only. */
Tensor pow(const Tensor &a, const Tensor &b, const std::string &name = "pow");
Tensor maximum(const Tensor &a, const Tensor &b, const std::string &name = "maximum");
Tensor minimum(const Tensor &a, const Tensor &b, const std::string &name = "minimum");
/** Comparisons produce bool. */
Tensor equal(const Tensor &a, const Tensor &b, const std::string &name = "equal");
Tensor less(const Tensor &a, const Tensor &b, const std::string &name = "less");
Tensor greater(const Tensor &a, const Tensor &b, const std::string &name = "greater");

// ---- unary (ONNX Neg, Abs, Exp, Log, Sqrt, Tanh, Erf, Sigmoid, Floor, Ceil, Round, Reciprocal) ----
/** neg / abs accept any numeric dtype; the rest need float. */
Tensor neg(const Tensor &x, const std::string &name = "neg");
Tensor abs(const Tensor &x, const std::string &name = "abs");
Tensor exp(const Tensor &x, const std::string &name = "exp");
Tensor log(const Tensor &x, const std::string &name = "log");
Tensor sqrt(const Tensor &x, const std::string &name = "sqrt");
Tensor tanh(const Tensor &x, const std::string &name = "tanh");
Tensor erf(const Tensor &x, const std::string &name = "erf");
/** 1 / (1 + exp(-x)). */
Tensor sigmoid(const Tensor &x, const std::string &name = "sigmoid");
Tensor floor(const Tensor &x, const std::string &name = "floor");
Tensor ceil(const Tensor &x, const std::string &name = "ceil");
/** Round half to even (ONNX Round). */
Tensor round(const Tensor &x, const std::string &name = "round");
/** 1 / x. */
Tensor reciprocal(const Tensor &x, const std::string &name = "reciprocal");

// ---- activations ----
/** max(x, 0) (ONNX Relu); any numeric dtype. */
Tensor relu(const Tensor &x, const std::string &name = "relu");
/** x >= 0 ? x : alpha * x (ONNX LeakyRelu, default alpha 0.01); float. attrs: alpha. */
Tensor leaky_relu(const Tensor &x, double alpha = 0.01, const std::string &name = "leaky_relu");
/** min(max(x, lo), hi) (ONNX Clip); AttributeError when lo > hi. attrs: min, max. */
Tensor clip(const Tensor &x, double lo, double hi, const std::string &name = "clip");
/** max(0, min(1, alpha * x + beta)) (ONNX HardSigmoid); float. attrs: alpha, beta. */
Tensor hard_sigmoid(const Tensor &x, double alpha = 0.2, double beta = 0.5, const std::string &name = "hard_sigmoid");
/** x * max(0, min(1, x / 6 + 1/2)) (ONNX HardSwish); float. */
Tensor hard_swish(const Tensor &x, const std::string &name = "hard_swish");
/** 0.5 * x * (1 + erf(x / sqrt(2))) (ONNX Gelu, approximate="none"); float. */
Tensor gelu(const Tensor &x, const std::string &name = "gelu");

/** Converts to dtype (ONNX Cast): float -> int truncates toward zero; -> bool is x != 0. attrs: to. */
Tensor cast(const Tensor &x, DType dtype, const std::string &name = "cast");

/**
 * cond ? a : b elementwise with three-way broadcasting (ONNX Where). cond must
 * be bool (DTypeError), a and b equal dtypes (DTypeError).
 */
Tensor where(const Tensor &cond, const Tensor &a, const Tensor &b, const std::string &name = "where");

}  // namespace ops
}  // namespace tetune
