// ops::dft / ops::stft against plain double-precision loops of the ONNX
// formulas (Operators.md DFT, STFT), and their shape / attribute errors.
#include <gtest/gtest.h>

#include <cmath>

#include "base/errors.h"
#include "te/ops/dft.h"
#include "tests/te/op_test_util.h"

namespace tetune {
namespace {

// Reference DFT of x [B, n, c] along axis 1, padded / truncated to len.
NDArray ref_dft(const NDArray &x, int64_t len, bool inverse, bool onesided) {
  int64_t B = x.shape()[0], n = x.shape()[1], c = x.shape()[2], m = onesided ? len / 2 + 1 : len;
  NDArray y(Shape{B, m, 2}, float32());
  double sign = inverse ? 1 : -1;
  for (int64_t b = 0; b < B; b++)
    for (int64_t k = 0; k < m; k++) {
      double re = 0, im = 0;
      for (int64_t j = 0; j < std::min(n, len); j++) {
        double xr = x.get((b * n + j) * c), xi = c == 2 ? x.get((b * n + j) * c + 1) : 0;
        double a = 2 * M_PI * static_cast<double>(j * k) / static_cast<double>(len);
        re += xr * std::cos(a) - xi * sign * std::sin(a);
        im += xi * std::cos(a) + xr * sign * std::sin(a);
      }
      double s = inverse ? 1.0 / static_cast<double>(len) : 1.0;
      y.set((b * m + k) * 2, re * s);
      y.set((b * m + k) * 2 + 1, im * s);
    }
  return y;
}

void expect_close(const NDArray &got, const NDArray &want) {
  ASSERT_EQ(got.shape(), want.shape());
  std::string where;
  EXPECT_TRUE(all_close(got, want, 1e-4, 1e-5, &where)) << where;
}

TEST(Dft, RealAndComplexForwardInverseOnesidedPadded) {
  struct Case {
    int64_t n, c, len;
    bool inverse, onesided;
  } cases[] = {{8, 1, 8, false, false}, {7, 2, 7, false, false}, {8, 2, 8, true, false},
               {10, 1, 10, false, true}, {6, 1, 9, false, false}, {9, 2, 5, false, false}};
  for (const auto &k : cases) {
    SCOPED_TRACE("n=" + std::to_string(k.n) + " c=" + std::to_string(k.c) + " len=" + std::to_string(k.len));
    Tensor x = placeholder({2, k.n, k.c}, float32(), "x");
    NDArray xd = test::random({2, k.n, k.c}, float32(), 3);
    Tensor y = ops::dft(x, 1, k.len, k.inverse, k.onesided);
    expect_close(test::evaluate({y}, {x}, {xd})[0], ref_dft(xd, k.len, k.inverse, k.onesided));
  }
}

TEST(Dft, InverseUndoesForward) {
  Tensor x = placeholder({1, 12, 2}, float32(), "x");
  NDArray xd = test::random({1, 12, 2}, float32(), 5);
  Tensor back = ops::dft(ops::dft(x, 1, 12, false, false), 1, 12, true, false);
  expect_close(test::evaluate({back}, {x}, {xd})[0], xd);
}

TEST(Stft, FramesAreWindowedDfts) {
  const int64_t L = 20, step = 3, flen = 8;
  Tensor x = placeholder({1, L, 1}, float32(), "x"), w = placeholder({flen}, float32(), "w");
  NDArray xd = test::random({1, L, 1}, float32(), 7), wd = test::random({flen}, float32(), 8, 0.0, 1.0);
  Tensor y = ops::stft(x, step, w, flen, true);
  NDArray got = test::evaluate({y}, {x, w}, {xd, wd})[0];
  int64_t frames = (L - flen) / step + 1, bins = flen / 2 + 1;
  ASSERT_EQ(got.shape(), (Shape{1, frames, bins, 2}));
  for (int64_t f = 0; f < frames; f++) {
    NDArray frame(Shape{1, flen, 1}, float32());
    for (int64_t j = 0; j < flen; j++) frame.set(j, xd.get(f * step + j) * wd.get(j));
    NDArray want = ref_dft(frame, flen, false, true);
    for (int64_t k = 0; k < bins * 2; k++)
      EXPECT_NEAR(got.get(f * bins * 2 + k), want.get(k), 1e-5) << "frame " << f << " element " << k;
  }
}

TEST(Dft, Errors) {
  Tensor x = placeholder({2, 8, 3}, float32(), "x");
  EXPECT_THROW(ops::dft(x, 1, 8, false, false), ShapeError);  // trailing axis 3
  Tensor r = placeholder({2, 8, 1}, float32(), "r");
  EXPECT_THROW(ops::dft(r, 2, 8, false, false), ShapeError);  // the real / imaginary axis
  EXPECT_THROW(ops::dft(r, 1, 0, false, false), ShapeError);
  EXPECT_THROW(ops::dft(r, 1, 8, true, true), AttributeError);
  EXPECT_THROW(ops::dft(placeholder({2, 8, 1}, int32(), "i"), 1, 8, false, false), DTypeError);
  EXPECT_THROW(ops::stft(r, 1, Tensor(), 9, true), ShapeError);  // frame longer than the signal
  EXPECT_THROW(ops::stft(r, 0, Tensor(), 4, true), ShapeError);
}

}  // namespace
}  // namespace tetune
