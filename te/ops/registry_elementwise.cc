// Registry entries: elementwise operators over any shape "D0,...,Dn" (te/ops/elementwise.h).
// Binary operators take two operands of the same shape (no broadcasting).
#include "te/ops/elementwise.h"
#include "te/ops/registry_families.h"

namespace tetune {
namespace ops {
namespace registry_detail {

namespace {

using Unary = Tensor (*)(const Tensor &, const std::string &);
using Binary = Tensor (*)(const Tensor &, const Tensor &, const std::string &);

OpWorkload unary_op(const Dims &s, Unary f, const char *name) {
  Tensor x = input(s, "x");
  return {{x}, {f(x, name)}};
}

OpWorkload binary_op(const Dims &s, Binary f, const char *name) {
  Tensor a = input(s, "a"), b = input(s, "b");
  return {{a, b}, {f(a, b, name)}};
}

OpEntry unary(const char *name, Unary f, const std::string &description) {
  return {name, "D0,...,Dn", description, "8,33", [f, name](const Dims &s) { return unary_op(s, f, name); }};
}

OpEntry binary(const char *name, Binary f, const std::string &description) {
  return {name, "D0,...,Dn", description, "8,33", [f, name](const Dims &s) { return binary_op(s, f, name); }};
}

}  // namespace

std::vector<OpEntry> elementwise_entries() {
  return {
      unary("abs", abs, "|x| (ONNX Abs)"),
      unary("ceil", ceil, "ceil(x) (ONNX Ceil)"),
      unary("erf", erf, "erf(x) (ONNX Erf)"),
      unary("exp", exp, "e^x (ONNX Exp)"),
      unary("floor", floor, "floor(x) (ONNX Floor)"),
      unary("gelu", gelu, "0.5 x (1 + erf(x / sqrt 2)) (ONNX Gelu, approximate none)"),
      unary("hard_swish", hard_swish, "x * relu6(x + 3) / 6 (ONNX HardSwish)"),
      unary("log", log, "ln x, NaN below 0 (ONNX Log)"),
      unary("neg", neg, "-x (ONNX Neg)"),
      unary("reciprocal", reciprocal, "1 / x (ONNX Reciprocal)"),
      unary("relu", relu, "max(x, 0) (ONNX Relu)"),
      unary("round", round, "x rounded half to even (ONNX Round)"),
      unary("sigmoid", sigmoid, "1 / (1 + exp(-x)) (ONNX Sigmoid)"),
      unary("sqrt", sqrt, "sqrt(x), NaN below 0 (ONNX Sqrt)"),
      unary("tanh", tanh, "tanh(x) (ONNX Tanh)"),
      {"leaky_relu", "D0,...,Dn", "x >= 0 ? x : 0.01 x (ONNX LeakyRelu, alpha 0.01)", "8,33",
       [](const Dims &s) {
         Tensor x = input(s, "x");
         return OpWorkload{{x}, {leaky_relu(x, 0.01, "leaky_relu")}};
       }},
      {"hard_sigmoid", "D0,...,Dn", "max(0, min(1, 0.2 x + 0.5)) (ONNX HardSigmoid, default alpha, beta)", "8,33",
       [](const Dims &s) {
         Tensor x = input(s, "x");
         return OpWorkload{{x}, {hard_sigmoid(x, 0.2, 0.5, "hard_sigmoid")}};
       }},
      {"clip", "D0,...,Dn", "min(max(x, 0), 6), i.e. ReLU6 (ONNX Clip with min 0, max 6)", "8,33",
       [](const Dims &s) {
         Tensor x = input(s, "x");
         return OpWorkload{{x}, {clip(x, 0.0, 6.0, "clip")}};
       }},
      {"cast", "D0,...,Dn", "float32 -> float16, rounded to nearest even (ONNX Cast to FLOAT16)", "8,33",
       [](const Dims &s) {
         Tensor x = input(s, "x");
         return OpWorkload{{x}, {cast(x, float16(), "cast")}};
       }},
      binary("add", add, "elementwise a + b, same shapes (ONNX Add)"),
      binary("sub", sub, "elementwise a - b, same shapes (ONNX Sub)"),
      binary("mul", mul, "elementwise a * b, same shapes (ONNX Mul)"),
      binary("div", div, "elementwise a / b, same shapes (ONNX Div)"),
      binary("pow", pow, "elementwise a ^ b, NaN for a < 0 and fractional b (ONNX Pow)"),
      binary("maximum", maximum, "elementwise max(a, b), NaN-propagating (ONNX Max of two inputs)"),
      binary("minimum", minimum, "elementwise min(a, b), NaN-propagating (ONNX Min of two inputs)"),
      binary("equal", equal, "a == b as bool, same shapes (ONNX Equal)"),
      binary("less", less, "a < b as bool, same shapes (ONNX Less)"),
      binary("greater", greater, "a > b as bool, same shapes (ONNX Greater)"),
      {"where", "D0,...,Dn", "cond ? a : b with a bool cond, same shapes (ONNX Where)", "8,33",
       [](const Dims &s) {
         Tensor cond = placeholder(s, boolean(), "cond"), a = input(s, "a"), b = input(s, "b");
         return OpWorkload{{cond, a, b}, {where(cond, a, b, "where")}};
       }},
  };
}

}  // namespace registry_detail
}  // namespace ops
}  // namespace tetune
