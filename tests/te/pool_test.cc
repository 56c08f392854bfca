// tetune::ops pooling vs plain loops.
#include <cmath>

#include "base/errors.h"
#include "te/ops/pool.h"
#include "tests/te/op_test_util.h"

namespace tetune {
namespace {

using test::evaluate;

int64_t out_len(int64_t n, int64_t pb, int64_t pe, int64_t k, int64_t s, int64_t d, bool ceil_mode) {
  int64_t ek = d * (k - 1) + 1;
  double v = double(n + pb + pe - ek) / s;
  int64_t o = static_cast<int64_t>(ceil_mode ? std::ceil(v) : std::floor(v)) + 1;
  if (ceil_mode && (o - 1) * s >= n + pb) o--;  // last window must start inside the input or the top padding
  return o;
}

struct PCase {
  Shape x;
  std::vector<int64_t> k, s, p, d;
  bool ceil_mode;
};

const std::vector<PCase> kCases = {
    {{1, 2, 7, 9}, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, false},
    {{2, 3, 7, 9}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, false},
    {{1, 2, 7, 9}, {3, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, true},   // ceil mode
    {{1, 2, 8, 7}, {3, 3}, {2, 3}, {1, 0, 2, 1}, {1, 1}, true},   // asymmetric pads + ceil
    {{1, 1, 9, 10}, {2, 3}, {1, 2}, {0, 1, 1, 0}, {2, 2}, false}, // dilation (max only)
    {{1, 2, 6, 6}, {3, 3}, {3, 3}, {1, 1, 1, 1}, {1, 1}, true},
};

TEST(Pool, MaxPool) {
  for (auto &c : kCases) {
    SCOPED_TRACE(shape_str(c.x) + (c.ceil_mode ? " ceil" : ""));
    Tensor X = placeholder(c.x, float32(), "X");
    Tensor Y = ops::max_pool2d(X, c.k, c.s, c.p, c.d, c.ceil_mode);
    int64_t OH = out_len(c.x[2], c.p[0], c.p[2], c.k[0], c.s[0], c.d[0], c.ceil_mode);
    int64_t OW = out_len(c.x[3], c.p[1], c.p[3], c.k[1], c.s[1], c.d[1], c.ceil_mode);
    Shape so = {c.x[0], c.x[1], OH, OW};
    ASSERT_EQ(Y.shape(), so);
    EXPECT_EQ(Y->tag, "pool");
    NDArray x = test::random(c.x, float32(), 7, -5, -1);  // all negative: padding must not contribute 0
    auto vx = test::to_vec(x);
    std::vector<float> ref;
    for (int64_t nc = 0; nc < c.x[0] * c.x[1]; nc++)
      for (int64_t oh = 0; oh < OH; oh++)
        for (int64_t ow = 0; ow < OW; ow++) {
          float m = -INFINITY;
          for (int64_t ky = 0; ky < c.k[0]; ky++)
            for (int64_t kx = 0; kx < c.k[1]; kx++) {
              int64_t ih = oh * c.s[0] - c.p[0] + ky * c.d[0], iw = ow * c.s[1] - c.p[1] + kx * c.d[1];
              if (ih >= 0 && ih < c.x[2] && iw >= 0 && iw < c.x[3]) m = std::max(m, vx[(nc * c.x[2] + ih) * c.x[3] + iw]);
            }
          ref.push_back(m);
        }
    test::expect_close(evaluate({Y}, {X}, {x})[0], ref, so);
  }
}

TEST(Pool, AvgPool) {
  for (bool include_pad : {false, true})
    for (auto &c : kCases) {
      if (c.d[0] != 1) continue;
      SCOPED_TRACE(shape_str(c.x) + (c.ceil_mode ? " ceil" : "") + (include_pad ? " include_pad" : ""));
      Tensor X = placeholder(c.x, float32(), "X");
      Tensor Y = ops::avg_pool2d(X, c.k, c.s, c.p, c.ceil_mode, include_pad, "ap");
      int64_t OH = out_len(c.x[2], c.p[0], c.p[2], c.k[0], c.s[0], 1, c.ceil_mode);
      int64_t OW = out_len(c.x[3], c.p[1], c.p[3], c.k[1], c.s[1], 1, c.ceil_mode);
      Shape so = {c.x[0], c.x[1], OH, OW};
      ASSERT_EQ(Y.shape(), so);
      EXPECT_EQ(Y.inputs()[0].name(), "ap.sum");
      NDArray x = test::random(c.x, float32(), 8);
      auto vx = test::to_vec(x);
      std::vector<float> ref;
      for (int64_t nc = 0; nc < c.x[0] * c.x[1]; nc++)
        for (int64_t oh = 0; oh < OH; oh++)
          for (int64_t ow = 0; ow < OW; ow++) {
            double s = 0;
            int64_t cnt = 0, cnt_pad = 0;
            for (int64_t ky = 0; ky < c.k[0]; ky++)
              for (int64_t kx = 0; kx < c.k[1]; kx++) {
                int64_t ih = oh * c.s[0] - c.p[0] + ky, iw = ow * c.s[1] - c.p[1] + kx;
                bool in_padded = ih < c.x[2] + c.p[2] && iw < c.x[3] + c.p[3];  // ih >= -top always
                if (in_padded) cnt_pad++;
                if (ih >= 0 && ih < c.x[2] && iw >= 0 && iw < c.x[3]) {
                  s += vx[(nc * c.x[2] + ih) * c.x[3] + iw];
                  cnt++;
                }
              }
            ref.push_back(static_cast<float>(s / (include_pad ? cnt_pad : cnt)));
          }
      test::expect_close(evaluate({Y}, {X}, {x})[0], ref, so);
    }
}

// Max and average pools over NCHW[b]c input equal the NCHW pools re-laid out.
TEST(Pool, BlockedLayoutMatchesNchw) {
  std::vector<PCase> cases = kCases;
  cases.push_back({{1, 4, 7, 9}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, true});
  for (auto &c : cases)
    for (bool avg : {false, true}) {
      if (avg && c.d[0] != 1) continue;
      const int64_t N = c.x[0], C = c.x[1], b = C % 2 == 0 && C > 2 ? C / 2 : C;
      SCOPED_TRACE(shape_str(c.x) + " b=" + std::to_string(b) + (avg ? " avg" : " max"));
      auto pool = [&](const Tensor &t) {
        return avg ? ops::avg_pool2d(t, c.k, c.s, c.p, c.ceil_mode, false, "ap") : ops::max_pool2d(t, c.k, c.s, c.p, c.d, c.ceil_mode);
      };
      Tensor X = placeholder(c.x, float32(), "X"), XB = placeholder({N, C / b, c.x[2], c.x[3], b}, float32(), "XB");
      Tensor Y = pool(X), YB = pool(XB);
      const int64_t OH = Y.shape()[2], OW = Y.shape()[3];
      ASSERT_EQ(YB.shape(), (Shape{N, C / b, OH, OW, b}));
      NDArray x = test::random(c.x, float32(), 9, -5, -1);
      std::vector<float> want = test::to_blocked(test::to_vec(evaluate({Y}, {X}, {x})[0]), N, C, OH * OW, b);
      NDArray xb = test::from_vec(XB.shape(), test::to_blocked(test::to_vec(x), N, C, c.x[2] * c.x[3], b));
      test::expect_close(evaluate({YB}, {XB}, {xb})[0], want, YB.shape());
    }
}

TEST(Pool, GlobalAvgPool) {
  Shape s = {2, 3, 5, 7};
  Tensor X = placeholder(s, float32(), "X");
  Tensor Y = ops::global_avg_pool2d(X);
  ASSERT_EQ(Y.shape(), (Shape{2, 3, 1, 1}));
  NDArray x = test::random(s);
  auto vx = test::to_vec(x);
  std::vector<float> ref;
  for (int nc = 0; nc < 6; nc++) {
    double a = 0;
    for (int i = 0; i < 35; i++) a += vx[nc * 35 + i];
    ref.push_back(static_cast<float>(a / 35));
  }
  test::expect_close(evaluate({Y}, {X}, {x})[0], ref, {2, 3, 1, 1});
}

TEST(Pool, Errors) {
  Tensor X = placeholder({1, 1, 4, 4}, float32(), "X");
  EXPECT_THROW(ops::max_pool2d(X, {0, 2}), AttributeError);
  EXPECT_THROW(ops::max_pool2d(X, {2, 2}, {1, 1}, {2, 0, 0, 0}), AttributeError);
  EXPECT_THROW(ops::max_pool2d(X, {5, 5}), ShapeError);
  EXPECT_THROW(ops::avg_pool2d(placeholder({1, 1, 4, 4}, int32(), "I"), {2, 2}), DTypeError);
  EXPECT_THROW(ops::max_pool2d(placeholder({4, 4}, float32(), "R"), {2, 2}), ShapeError);
}

}  // namespace
}  // namespace tetune
