// tetune::ops conv_nd vs a plain loop written from the ONNX Conv spec.
#include "base/errors.h"
#include "te/ops/conv.h"
#include "te/ops/conv_nd.h"
#include "tests/te/op_test_util.h"

namespace tetune {
namespace {

using test::evaluate;
using test::expect_close;
using test::random;

// Direct 3-D convolution; out-of-image taps read 0.
std::vector<float> conv3d_ref(const NDArray &x, const Shape &xs, const NDArray &w, const Shape &ws, const NDArray *b,
                              const std::vector<int64_t> &s, const std::vector<int64_t> &p, const std::vector<int64_t> &d,
                              int64_t groups, const Shape &ys) {
  int64_t CG = ws[1], OG = ws[0] / groups;
  std::vector<float> y;
  for (int64_t n = 0; n < ys[0]; n++)
    for (int64_t o = 0; o < ys[1]; o++)
      for (int64_t z0 = 0; z0 < ys[2]; z0++)
        for (int64_t z1 = 0; z1 < ys[3]; z1++)
          for (int64_t z2 = 0; z2 < ys[4]; z2++) {
            double acc = b ? b->get(o) : 0.0;
            for (int64_t rc = 0; rc < CG; rc++)
              for (int64_t k0 = 0; k0 < ws[2]; k0++)
                for (int64_t k1 = 0; k1 < ws[3]; k1++)
                  for (int64_t k2 = 0; k2 < ws[4]; k2++) {
                    int64_t q0 = z0 * s[0] + k0 * d[0] - p[0], q1 = z1 * s[1] + k1 * d[1] - p[1], q2 = z2 * s[2] + k2 * d[2] - p[2];
                    if (q0 < 0 || q0 >= xs[2] || q1 < 0 || q1 >= xs[3] || q2 < 0 || q2 >= xs[4]) continue;
                    int64_t c = o / OG * CG + rc;
                    acc += x.get((((n * xs[1] + c) * xs[2] + q0) * xs[3] + q1) * xs[4] + q2) *
                           w.get((((o * CG + rc) * ws[2] + k0) * ws[3] + k1) * ws[4] + k2);
                  }
            y.push_back(static_cast<float>(acc));
          }
  return y;
}

TEST(ConvNd, ThreeDWithGroupsStridesAsymmetricPadsDilationsAndBias) {
  Shape xs = {2, 4, 5, 6, 7}, ws = {6, 2, 3, 2, 3};
  std::vector<int64_t> s = {2, 1, 3}, p = {1, 0, 2, 0, 1, 1}, d = {1, 2, 1};
  Tensor x = placeholder(xs, float32(), "x"), w = placeholder(ws, float32(), "w"), b = placeholder({6}, float32(), "b");
  NDArray xd = random(xs, float32(), 11), wd = random(ws, float32(), 12), bd = random({6}, float32(), 13);
  Tensor y = ops::conv_nd(x, w, b, s, p, d, 2);
  Shape ys = y.shape();
  // (L + pads - d*(K-1) - 1) / s + 1 per axis
  EXPECT_EQ(ys, (Shape{2, 6, 2, 5, 3}));
  auto out = evaluate({y}, {x, w, b}, {xd, wd, bd});
  expect_close(out[0], conv3d_ref(xd, xs, wd, ws, &bd, s, p, d, 2, ys), ys);
}

TEST(ConvNd, OneDAgreesWithConv2dOverAUnitAxis) {
  Tensor x = placeholder({1, 3, 9}, float32(), "x"), w = placeholder({4, 3, 3}, float32(), "w");
  Tensor x2 = placeholder({1, 3, 1, 9}, float32(), "x2"), w2 = placeholder({4, 3, 1, 3}, float32(), "w2");
  NDArray xd = random({1, 3, 9}, float32(), 3), wd = random({4, 3, 3}, float32(), 4);
  auto y1 = evaluate({ops::conv_nd(x, w, Tensor(), {2}, {2, 1}, {2})}, {x, w}, {xd, wd});
  auto y2 = evaluate({ops::conv2d(x2, w2, Tensor(), {1, 2}, {0, 2, 0, 1}, {1, 2})}, {x2, w2},
                     {xd.reshaped({1, 3, 1, 9}), wd.reshaped({4, 3, 1, 3})});
  EXPECT_EQ(y1[0].shape(), (Shape{1, 4, 4}));
  expect_close(y1[0], y2[0].reshaped({1, 4, 4}), float32());
}

TEST(ConvNd, RejectsMismatchedChannelsAndOversizedKernels) {
  Tensor x = placeholder({1, 4, 3, 3, 3}, float32(), "x");
  EXPECT_THROW(ops::conv_nd(x, placeholder({2, 3, 1, 1, 1}, float32(), "w"), Tensor(), {1, 1, 1}, {0, 0, 0, 0, 0, 0}, {1, 1, 1}),
               ShapeError);
  EXPECT_THROW(ops::conv_nd(x, placeholder({2, 4, 4, 1, 1}, float32(), "w"), Tensor(), {1, 1, 1}, {0, 0, 0, 0, 0, 0}, {1, 1, 1}),
               ShapeError);
  EXPECT_THROW(ops::conv_nd(x, placeholder({2, 4, 1, 1, 1}, float32(), "w"), Tensor(), {1, 1}, {0, 0, 0, 0, 0, 0}, {1, 1, 1}),
               AttributeError);
}

}  // namespace
}  // namespace tetune
