// Math functions written as vector arithmetic (internal to codegen).
//
// Halide 14 lowers tanh_f32 to one libm tanhf call per vector lane: a
// float32 Tanh ran at 14 ns an element, 50x Halide's own exp polynomial.
// These replacements vectorize like any arithmetic. Halide's exp is a
// polynomial already, but a longer one than float32 needs, and its exp(+inf)
// is 0; vector_exp is shorter and IEEE at the special values.
#pragma once

#include <Halide.h>

namespace tetune {
namespace codegen {

/**
 * tanh(x) for float32 x (any lanes); other types get Halide::tanh.
 * |x| < 0.625: the odd Taylor series x (1 - x^2/3 + 2x^4/15 - ...), 9 terms
 * (coefficients 2^2n (2^2n - 1) B_2n / (2n)!, Abramowitz & Stegun 4.5.64);
 * else sign(x) (1 - 2 / (exp(2|x|) + 1)) with |x| clamped to 10, where
 * tanh already rounds to 1. Checked against float64 tanh over [-12, 12]
 * and 1e-30..20: at most 2 ulp. NaN gives NaN; +-inf gives +-1 exactly. (The sign of
 * a zero result is not kept: Halide compiles with LLVM's no-signed-zeros flag.)
 */
Halide::Expr vector_tanh(const Halide::Expr &x);

/**
 * e^x for float32 x (any lanes); other types get Halide::exp (NaN kept).
 * x = k ln2 + r with k = floor(x / ln2 + 1/2) and |r| <= ln2 / 2 (k ln2 with
 * float32's ln2, one rounding in the FMA); e^r by a degree-6 polynomial fitted to
 * e^r's relative error on that interval (at most 1e-7); 2^k added to the
 * result's exponent bits. Checked against float64 exp over [-87.3, 88.7]:
 * within 5 ulp, as Halide's exp (whose polynomial has 8 terms). exp(NaN) is
 * NaN, exp(+inf) = +inf, exp(-inf) = 0; results past float32's range are
 * +inf, and below its smallest normal (x < -87.34) 0, not subnormal.
 */
Halide::Expr vector_exp(const Halide::Expr &x);

}  // namespace codegen
}  // namespace tetune
