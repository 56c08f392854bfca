// IEEE 754 / ONNX NaN semantics on top of Halide 14 (internal to codegen).
//
// Halide compiles floats with LLVM's fast-math flags and lowers max / min to
// x86 maxps / minps (CUDA fmaxf / fminf), which drop a NaN operand, and its exp,
// log and pow polynomials turn NaN into numbers. ONNX and onnxruntime propagate
// NaN: Relu(NaN), Clip(NaN), Max(NaN, 1), MaxPool over a window holding NaN and
// Sigmoid(NaN) are all NaN. These helpers restore that; the interpreter
// (te/interpreter.cc) follows the same rules.
#pragma once

#include <Halide.h>

namespace tetune {
namespace codegen {

/**
 * True where float x (16, 32 or 64 bits, any lanes) is NaN, tested on its bits.
 * Halide::is_nan is an fcmp that LLVM folds to false when x comes out of an
 * instruction carrying the `nnan` fast-math flag (x + y, a select); integer
 * operations carry no such flag, so this test survives inlining.
 */
Halide::Expr is_nan_bits(const Halide::Expr &x);
/** True where float x is +-infinity, tested on its bits (as is_nan_bits). */
Halide::Expr is_inf_bits(const Halide::Expr &x);

/**
 * select(is_nan_bits(x), x, e): e, except NaN where x is NaN. For operations
 * whose Halide implementation loses a NaN operand (exp, log).
 */
Halide::Expr keep_nan(const Halide::Expr &x, const Halide::Expr &e);

/**
 * `f` with every NaN test select(is_nan_bits(v), v, e) in it replaced by e
 * where v can be NaN only where `x` is (the test as keep_nan and this pass
 * build it, or as Halide's simplifier leaves it), for the product x * f.
 * IEEE multiplication is NaN wherever x is, whatever f is there, so those
 * tests only cost time. Such a v: x under adds, subtractions, max and min with
 * finite constants, products and quotients by finite nonzero ones (-x, 2x,
 * HardSigmoid(x)), or a NaN test of such a value whose other branch is one
 * too. In the swish x * sigmoid(x) (EfficientNet's activation), exp(-x)'s
 * test goes; a test of x * 0 (NaN at x = inf), x + y or another value stays.
 */
Halide::Expr drop_nan_tests_of(const Halide::Expr &f, const Halide::Expr &x);

/**
 * Registers on `p` a lowering pass, run after Halide's own, that rewrites every
 * float max / min into IEEE 754-2019 maximum / minimum (NaN when either operand
 * is NaN; operands that are constants are not tested). The front end keeps
 * Halide::max / min, so Halide still proves max and min reductions associative
 * (reordering their reduce loops stays legal). Cost: an integer test and a
 * blend per non-constant operand; a vectorized Relu or Clip over 4M floats runs
 * in the same time (memory bound). A float max / min VectorReduce (a vectorized
 * reduce loop) is NaN when any of its lanes is.
 */
void add_nan_propagating_min_max(Halide::Pipeline &p);

/**
 * The rewrite of add_nan_propagating_min_max applied to one expression. In
 * every float product it rewrites both operands, then applies
 * drop_nan_tests_of to each with the other as x (the pass runs after Halide
 * has inlined the swish's stages into one expression). So HardSwish, x *
 * HardSigmoid(x), keeps no test of its clamp's max / min (an ONNX graph's
 * Mul(x, HardSigmoid(x)) too): the product is NaN where x is, and the clamp
 * is never NaN where x is not.
 */
Halide::Expr nan_propagating_min_max(const Halide::Expr &e);

}  // namespace codegen
}  // namespace tetune
