// x * (1 / d) written as x / d (internal to codegen).
//
// Halide compiles without LLVM's `arcp` flag, so neither Halide nor LLVM
// folds a product by a reciprocal into a quotient. The swish x * sigmoid(x)
// (EfficientNet's activation, sigmoid = 1 / (1 + exp(-x))) then spends a
// vdivps and a vmulps where one vdivps does; its kernels are bound by the
// vector ports, so each instruction left out counts.
#pragma once

#include <Halide.h>

namespace tetune {
namespace codegen {

/**
 * `e` with every float product x * (1 / d) or (1 / d) * x rewritten as x / d
 * where d changes from one iteration of the innermost enclosing loop to the
 * next (seen through lets), or where no loop encloses it. One rounding
 * instead of two, and IEEE-equal at the special values: d = 0 gives +-inf
 * (NaN at x = 0), d = inf gives +-0 (NaN at x = inf), a NaN operand NaN.
 * Kept: a 1 / d the innermost loop does not change, one division for many
 * products (softmax's 1 / row sum, a squeeze-excitation scale) that LLVM
 * hoists out of the loop; products of other types and by other quotients.
 */
Halide::Expr quotients_for_reciprocal_products(const Halide::Expr &e);
/** The same rewrite of a statement, whose loops decide what the innermost loop is. */
Halide::Internal::Stmt quotients_for_reciprocal_products(const Halide::Internal::Stmt &s);

/**
 * Registers on `p` a lowering pass, run after Halide's own, that applies
 * quotients_for_reciprocal_products to the whole pipeline. Register it after
 * add_nan_propagating_min_max: that pass reads the products to drop the NaN
 * tests a product makes redundant.
 */
void add_quotients_for_reciprocal_products(Halide::Pipeline &p);

}  // namespace codegen
}  // namespace tetune
