// Elementwise ops whose operands broadcast NumPy-style (trailing axes line
// up) and whose output has the broadcast shape: passes that change a
// tensor's shape or layout (blocked_layout.h, matmul_flatten.h) carry them
// along when every other operand broadcasts the same way in the new form.
// BatchNormalization, which broadcasts along axis 1, is not one of them;
// neither is Pow, whose x^y is not finite for every finite x (0^-1), which
// the blocked layout's padding channels need.
#pragma once

#include <set>
#include <string>

namespace tetune {
namespace relay {

inline const std::set<std::string> &broadcasting_elementwise_ops() {
  static const std::set<std::string> ops = {"Relu", "Sigmoid", "Tanh",     "Clip", "HardSigmoid", "HardSwish", "LeakyRelu",
                                            "Elu",  "Selu",    "Softplus", "Gelu", "Erf",         "Exp",       "Neg",
                                            "Abs",  "Sqrt",    "Add",      "Sub",  "Mul",         "Div",       "Max",
                                            "Min",  "Sum",     "PRelu"};
  return ops;
}

}  // namespace relay
}  // namespace tetune
