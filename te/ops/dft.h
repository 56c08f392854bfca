// ONNX DFT and STFT (Operators.md DFT, STFT, opset 17) as direct O(n^2)
// sums: one reduction stage each, so they are scheduled and tuned like any
// other reduction (no FFT: sizes in models are small, and a TE compute stays
// tunable).
//
// Complex values use a trailing axis of 2 (real, imaginary); a real input
// has a trailing axis of 1. Sums accumulate in float64 (float32 for float16
// inputs) in a stage "<name>_sum", cast back to the input dtype by a second,
// injective stage `name`: bins that cancel to zero stay within float32 rounding.
#pragma once

#include <string>

#include "te/tensor.h"

namespace tetune {
namespace ops {

/**
 * DFT of x: [.., n, .., c] (c = 1 real or 2 complex; float dtype) along
 * `axis` (not the last), zero-padded or truncated to `length`:
 *   y[.., k, .., (re, im)] = s * sum_{j < min(n, length)} x[.., j, ..] * exp(-+2*pi*i*j*k / length)
 * with the sign + and s = 1/length when inverse, else - and s = 1.
 * Output [.., m, .., 2], m = length/2 + 1 when onesided, else length.
 * Errors: ShapeError for rank < 2, c not 1 or 2, axis the last, length < 1;
 * DTypeError for a non-float x; AttributeError for onesided with inverse
 * (the spec leaves it undefined). Tag "reduce"; attrs: op, axis, length,
 * inverse, onesided.
 */
Tensor dft(const Tensor &x, int64_t axis, int64_t length, bool inverse, bool onesided, const std::string &name = "dft");

/**
 * STFT of signal: [B, L, c] (c = 1 or 2; float) with frames of frame_length
 * samples every frame_step, each multiplied by window ([frame_length]; an
 * undefined Tensor means all ones):
 *   y[b, f, k, (re, im)] = sum_{j < frame_length} x[b, f*step + j] * w[j] * exp(-2*pi*i*j*k / frame_length)
 * Output [B, F, K, 2], F = (L - frame_length) / frame_step + 1,
 * K = frame_length/2 + 1 when onesided, else frame_length.
 * Errors: ShapeError for bad shapes, frame_length > L, step < 1; DTypeError
 * for non-float signal or a window of another dtype. Tag "reduce".
 */
Tensor stft(const Tensor &signal, int64_t frame_step, const Tensor &window, int64_t frame_length, bool onesided,
            const std::string &name = "stft");

}  // namespace ops
}  // namespace tetune
