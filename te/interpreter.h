// Plain reference evaluator of a compute DAG.
//
// interpret() walks the DAG in post_order and materialises every compute with
// direct C++ loops. It is the independent reference that compiled kernels are
// checked against, so it is deliberately simple:
//
//  * float expressions are evaluated in double, integer / bool expressions in
//    int64 (wrapped to the expression's bit width after every operation, as
//    Halide's two's-complement arithmetic does); each element is then stored
//    into the tensor's dtype through NDArray::set (floats: float32 / float16 /
//    bfloat16 rounding exactly like storage does).
//  * Halide semantics: integer `/` rounds so that `%` is Euclidean (floor
//    division for a positive divisor), x / 0 == 0 and x % 0 == 0; float `%` is
//    a - b * floor(a / b); round() is half-to-even; a cast float -> int
//    truncates toward zero; a cast to a narrower float rounds to nearest even;
//    a cast to bool is (x != 0).
//  * Reductions start from their identity (0, 1, -inf / lowest, +inf / highest).
//  * NaN follows IEEE 754 and ONNX: float min / max and the max / min
//    reductions return NaN when an operand is NaN (IEEE 754-2019 maximum /
//    minimum), as the compiled kernels do (codegen/lower.cc).
//  * Strict accesses: every tensor access is range-checked, including both
//    operands of a select (compiled code may evaluate both, and Halide's bounds
//    inference requires both to be in range), and raises tetune::Error naming
//    the tensor, the axis and the index.
#pragma once

#include <vector>

#include "base/ndarray.h"
#include "te/tensor.h"

namespace tetune {

/**
 * Evaluates `outputs`. inputs[i] is bound to input_data[i]; every placeholder
 * reachable from outputs must be among inputs (a compute listed in inputs is
 * also bound to its data instead of being computed).
 * Raises ShapeError naming the input when the counts differ, an array's shape
 * or dtype differs from its tensor's, or a placeholder is not given; Error for
 * an out-of-range access or a free variable.
 */
std::vector<NDArray> interpret(const std::vector<Tensor> &outputs, const std::vector<Tensor> &inputs,
                               const std::vector<NDArray> &input_data);

}  // namespace tetune
