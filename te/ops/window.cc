#include "te/ops/window.h"

#include <cmath>

#include "base/errors.h"
#include "te/ops/common.h"

namespace tetune {
namespace ops {

Tensor window(const std::string &kind, int64_t size, bool periodic, DType dtype, const std::string &name) {
  if (kind != "hann" && kind != "hamming" && kind != "blackman")
    throw AttributeError("window: kind '" + kind + "' (expected hann, hamming or blackman)");
  int64_t N = periodic ? size : size - 1;
  if (size < 1 || N < 1)
    throw ShapeError("window: size " + std::to_string(size) + " is too small for a " + (periodic ? "periodic" : "symmetric") + " window");
  auto f = [](double v) { return make_float(v, float32()); };
  const double two_pi = 2 * M_PI;
  Tensor t = compute(
      {size},
      [&](const std::vector<Var> &i) {
        Expr x = cast(float32(), i[0]) * f(two_pi / static_cast<double>(N));
        Expr w;
        if (kind == "hann") w = f(0.5) - f(0.5) * cos(x);
        else if (kind == "hamming") w = f(25.0 / 46.0) - f(21.0 / 46.0) * cos(x);
        else w = f(0.42) - f(0.5) * cos(x) + f(0.08) * cos(x * f(2));
        return cast(dtype, w);
      },
      name, "", {"i"});
  return annotate(t, "injective", {{"op", "window"}, {"kind", kind}, {"size", std::to_string(size)}});
}

}  // namespace ops
}  // namespace tetune
