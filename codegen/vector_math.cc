#include "codegen/vector_math.h"

#include <limits>

#include "codegen/nan_semantics.h"

namespace tetune {
namespace codegen {

Halide::Expr vector_tanh(const Halide::Expr &x) {
  if (x.type().element_of() != Halide::Float(32)) return Halide::tanh(x);
  // Taylor coefficients of tanh(x) / x in x^2, lowest first.
  static const double kSeries[] = {1.0,
                                   -1.0 / 3,
                                   2.0 / 15,
                                   -17.0 / 315,
                                   62.0 / 2835,
                                   -1382.0 / 155925,
                                   21844.0 / 6081075,
                                   -929569.0 / 638512875,
                                   6404582.0 / 10854718875};
  constexpr int kTerms = sizeof(kSeries) / sizeof(kSeries[0]);
  const Halide::Type t = x.type();
  auto c = [&](double v) { return Halide::cast(t, Halide::Expr(static_cast<float>(v))); };
  Halide::Expr x2 = x * x;
  Halide::Expr p = c(kSeries[kTerms - 1]);
  for (int i = kTerms - 2; i >= 0; i--) p = p * x2 + c(kSeries[i]);
  Halide::Expr small = x * p;
  Halide::Expr ax = Halide::abs(x);
  Halide::Expr e = vector_exp(c(2) * Halide::min(ax, c(10)));
  Halide::Expr large = c(1) - c(2) / (e + c(1));
  Halide::Expr r = Halide::select(ax < c(0.625), small, Halide::select(x < c(0), -large, large));
  return keep_nan(x, r);
}

Halide::Expr vector_exp(const Halide::Expr &x) {
  if (x.type().element_of() != Halide::Float(32)) return keep_nan(x, Halide::exp(x));
  // Relative-error fit of e^r on [-ln2/2, ln2/2], lowest power first.
  static const float kPoly[] = {1.0f, 1.0f, 0.49999994f, 0.16666432f, 0.041668002f, 0.0083741564f, 0.0013843651f};
  constexpr int kTerms = sizeof(kPoly) / sizeof(kPoly[0]);
  const Halide::Type t = x.type();
  const Halide::Type it = Halide::Int(32, t.lanes());
  auto c = [&](float v) { return Halide::cast(t, Halide::Expr(v)); };
  // k = floor(x / ln2 + 1/2) as kb - 512, kb the truncating conversion of x / ln2 + 512.5, which
  // is positive wherever the selects below keep the result (x >= -87.34): one 512-bit vcvttps2dq,
  // where Halide 14 splits a 16-lane round or floor into two 256-bit vroundps. 512 << 23 wraps to
  // 0 in 32 bits, so kb << 23 is k << 23 with no subtraction.
  Halide::Expr kb = Halide::cast(it, x * c(1.44269504f) + c(512.5f));
  Halide::Expr k = Halide::cast(t, kb - 512);
  // One ln2 constant, rounded once with k by the FMA: Halide's simplifier would fold Cody and
  // Waite's two-part ln2 back into one anyway. Its error, |k| 2e-9 at most, costs ~2 ulp at |x| ~ 88.
  Halide::Expr r = x - k * c(0.693147182f);
  Halide::Expr p = c(kPoly[kTerms - 1]);
  for (int i = kTerms - 2; i >= 0; i--) p = p * r + c(kPoly[i]);
  Halide::Expr scaled = Halide::reinterpret(t, Halide::reinterpret(it, p) + (kb << 23));
  // Past the range the exponent add wraps: ln(FLT_MAX) = 88.7228, ln(FLT_MIN) = -87.3365.
  Halide::Expr e = Halide::select(x > c(88.72283f), c(std::numeric_limits<float>::infinity()),
                                  Halide::select(x < c(-87.33654f), c(0.0f), scaled));
  return keep_nan(x, e);
}

}  // namespace codegen
}  // namespace tetune
