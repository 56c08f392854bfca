// Subnormal weights flushed to zero at compile time.
//
// Trained weights hold subnormal floats (|w| < FLT_MIN, 1.18e-38): PP-OCRv4
// rec has 31k of its 2.7M. On Intel cores every multiply-add with a
// subnormal operand takes a microcode assist of about 100 cycles (Intel 64
// and IA-32 Optimization Reference Manual, "Floating-point exceptions:
// denormals"), so a kernel runs up to 30x slower on the real weights than on
// the random ones it was tuned and measured with; AMD Zen handles them at
// full speed. Replacing them by zero changes each product by less than
// FLT_MIN x |x|, far below float32 rounding of any normal result, and keeps
// NaN, infinity and signed zero as they are (a flushed -tiny becomes -0).
// This is what onnxruntime's session.set_denormal_as_zero does for the whole
// computation; here only constants change, so intermediate values keep IEEE
// gradual underflow.
#pragma once

#include "relay_import/graph.h"

namespace tetune {
namespace relay {

/**
 * Replaces every subnormal element of float32 and float64 constants of `g`
 * by a zero of the same sign. Constants are copied before the change (their
 * data may be shared with another graph). Returns the number of elements
 * flushed.
 */
int64_t flush_subnormal_constants(Graph &g);

}  // namespace relay
}  // namespace tetune
