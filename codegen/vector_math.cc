#include "codegen/vector_math.h"

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
  Halide::Expr e = Halide::exp(c(2) * Halide::min(ax, c(10)));
  Halide::Expr large = c(1) - c(2) / (e + c(1));
  Halide::Expr r = Halide::select(ax < c(0.625), small, Halide::select(x < c(0), -large, large));
  return keep_nan(x, r);
}

}  // namespace codegen
}  // namespace tetune
