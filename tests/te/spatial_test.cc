// tetune::ops grid_sample, conv_transpose_nd, reverse_sequence and
// max_pool2d_indices vs plain loops written from the ONNX spec.
#include <cmath>

#include "base/errors.h"
#include "te/ops/conv_transpose_nd.h"
#include "te/ops/det.h"
#include "te/ops/grid_sample.h"
#include "te/ops/pool.h"
#include "te/ops/pool_indices.h"
#include "te/ops/reverse_sequence.h"
#include "tests/te/op_test_util.h"

namespace tetune {
namespace {

using test::evaluate;
using test::expect_close;
using test::random;
using test::to_vec;

// ---- GridSample (2-D), following Operators.md GridSample ---------------------
double reflect(double v, double lo, double hi) {
  double rng = hi - lo;
  if (rng <= 0) return lo;
  if (v < lo) {
    double dx = lo - v;
    int64_t n = static_cast<int64_t>(dx / rng);
    double r = dx - static_cast<double>(n) * rng;
    return n % 2 == 0 ? lo + r : hi - r;
  }
  if (v > hi) {
    double dx = v - hi;
    int64_t n = static_cast<int64_t>(dx / rng);
    double r = dx - static_cast<double>(n) * rng;
    return n % 2 == 0 ? hi - r : lo + r;
  }
  return v;
}

std::vector<float> grid_sample_ref(const std::vector<float> &x, const Shape &xs, const std::vector<float> &g, const Shape &gs,
                                   const std::string &mode, const std::string &pad, bool align) {
  int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3], OH = gs[1], OW = gs[2];
  double lo[2], hi[2];
  int64_t len[2] = {W, H};
  for (int a = 0; a < 2; a++) lo[a] = align ? 0 : -0.5, hi[a] = align ? len[a] - 1 : len[a] - 0.5;
  std::vector<float> y;
  for (int64_t n = 0; n < N; n++)
    for (int64_t c = 0; c < C; c++)
      for (int64_t oh = 0; oh < OH; oh++)
        for (int64_t ow = 0; ow < OW; ow++) {
          double p[2];  // x (width) then y (height)
          for (int a = 0; a < 2; a++) {
            double gv = g[((n * OH + oh) * OW + ow) * 2 + a];
            double v = align ? (gv + 1) / 2 * (len[a] - 1) : ((gv + 1) * len[a] - 1) / 2;
            if (v < lo[a] || v > hi[a]) {
              if (pad == "border") v = std::min(std::max(v, 0.0), double(len[a] - 1));
              if (pad == "reflection") v = reflect(v, lo[a], hi[a]);
            }
            p[a] = v;
          }
          auto px = [&](int64_t r, int64_t col) -> double {
            if (pad == "zeros") {
              if (r < 0 || r >= H || col < 0 || col >= W) return 0;
            } else if (pad == "border") {
              r = std::min(std::max<int64_t>(r, 0), H - 1), col = std::min(std::max<int64_t>(col, 0), W - 1);
            } else {
              col = static_cast<int64_t>(reflect(double(col), lo[0], hi[0]));
              r = static_cast<int64_t>(reflect(double(r), lo[1], hi[1]));
            }
            return x[((n * C + c) * H + r) * W + col];
          };
          double v = 0;
          if (mode == "nearest") {
            v = px(static_cast<int64_t>(std::nearbyint(p[1])), static_cast<int64_t>(std::nearbyint(p[0])));
          } else if (mode == "linear") {
            int64_t x0 = static_cast<int64_t>(std::floor(p[0])), y0 = static_cast<int64_t>(std::floor(p[1]));
            double tx = p[0] - x0, ty = p[1] - y0;
            v = (1 - ty) * ((1 - tx) * px(y0, x0) + tx * px(y0, x0 + 1)) + ty * ((1 - tx) * px(y0 + 1, x0) + tx * px(y0 + 1, x0 + 1));
          } else {
            auto w = [](double t) {  // Keys, a = -0.75
              const double A = -0.75;
              t = std::fabs(t);
              if (t <= 1) return ((A + 2) * t - (A + 3)) * t * t + 1;
              if (t < 2) return ((A * t - 5 * A) * t + 8 * A) * t - 4 * A;
              return 0.0;
            };
            int64_t x0 = static_cast<int64_t>(std::floor(p[0])), y0 = static_cast<int64_t>(std::floor(p[1]));
            for (int i = -1; i <= 2; i++)
              for (int j = -1; j <= 2; j++) v += w(p[1] - double(y0 + i)) * w(p[0] - double(x0 + j)) * px(y0 + i, x0 + j);
          }
          y.push_back(static_cast<float>(v));
        }
  return y;
}

TEST(GridSample, MatchesReferenceForEveryModeAndPadding) {
  Shape xs = {2, 3, 5, 6}, gs = {2, 4, 7, 2};
  Tensor x = placeholder(xs, float32(), "x"), g = placeholder(gs, float32(), "grid");
  NDArray xd = random(xs, float32(), 1), gd = random(gs, float32(), 2, -1.6, 1.6);  // some points outside [-1, 1]
  for (std::string mode : {"linear", "nearest", "cubic"})
    for (std::string pad : {"zeros", "border", "reflection"})
      for (bool align : {false, true}) {
        SCOPED_TRACE(mode + " " + pad + (align ? " align_corners" : ""));
        auto y = evaluate({ops::grid_sample(x, g, mode, pad, align)}, {x, g}, {xd, gd});
        expect_close(y[0], grid_sample_ref(to_vec(xd), xs, to_vec(gd), gs, mode, pad, align), {2, 3, 4, 7});
      }
}

TEST(GridSample, RejectsBadInput) {
  Tensor x = placeholder({1, 1, 4, 4}, float32(), "x");
  EXPECT_THROW(ops::grid_sample(x, placeholder({1, 2, 2, 3}, float32(), "g"), "linear"), ShapeError);
  EXPECT_THROW(ops::grid_sample(x, placeholder({1, 2, 2, 2}, float32(), "g"), "area"), AttributeError);
  EXPECT_THROW(ops::grid_sample(x, placeholder({1, 2, 2, 2}, float32(), "g"), "linear", "wrap"), AttributeError);
  EXPECT_THROW(ops::grid_sample(placeholder({1, 1, 4, 4}, int32(), "xi"), placeholder({1, 2, 2, 2}, float32(), "g")), DTypeError);
}

// ---- ConvTranspose N-D: scatter form, the definition -------------------------
TEST(ConvTransposeNd, ThreeDMatchesScatterReference) {
  Shape xs = {1, 4, 3, 4, 2}, ws = {4, 3, 2, 3, 2};  // groups 2: O = 6
  std::vector<int64_t> s = {2, 1, 3}, d = {1, 2, 1}, pads = {1, 0, 1, 0, 2, 1}, op = {1, 0, 2};
  int64_t groups = 2, OG = 3, CG = 2;
  Tensor x = placeholder(xs, float32(), "x"), w = placeholder(ws, float32(), "w"), b = placeholder({6}, float32(), "b");
  NDArray xd = random(xs, float32(), 3), wd = random(ws, float32(), 4), bd = random({6}, float32(), 5);
  Tensor y = ops::conv_transpose_nd(x, w, b, s, pads, d, op, groups);
  Shape ys = y.shape();
  for (int a = 0; a < 3; a++) EXPECT_EQ(ys[2 + a], s[a] * (xs[2 + a] - 1) + op[a] + d[a] * (ws[2 + a] - 1) + 1 - pads[a] - pads[a + 3]);
  auto out = evaluate({y}, {x, w, b}, {xd, wd, bd});
  std::vector<float> ref(static_cast<size_t>(6 * ys[2] * ys[3] * ys[4]));
  for (int64_t o = 0; o < 6; o++)
    for (size_t i = 0; i < ref.size() / 6; i++) ref[o * (ref.size() / 6) + i] = static_cast<float>(bd.get(o));
  for (int64_t c = 0; c < 4; c++)
    for (int64_t oo = 0; oo < OG; oo++)
      for (int64_t i0 = 0; i0 < xs[2]; i0++)
        for (int64_t i1 = 0; i1 < xs[3]; i1++)
          for (int64_t i2 = 0; i2 < xs[4]; i2++)
            for (int64_t k0 = 0; k0 < ws[2]; k0++)
              for (int64_t k1 = 0; k1 < ws[3]; k1++)
                for (int64_t k2 = 0; k2 < ws[4]; k2++) {
                  int64_t p0 = i0 * s[0] + k0 * d[0] - pads[0], p1 = i1 * s[1] + k1 * d[1] - pads[1], p2 = i2 * s[2] + k2 * d[2] - pads[2];
                  if (p0 < 0 || p0 >= ys[2] || p1 < 0 || p1 >= ys[3] || p2 < 0 || p2 >= ys[4]) continue;
                  int64_t o = c / CG * OG + oo;
                  ref[((o * ys[2] + p0) * ys[3] + p1) * ys[4] + p2] += static_cast<float>(
                      xd.get(((c * xs[2] + i0) * xs[3] + i1) * xs[4] + i2) * wd.get((((c * OG + oo) * ws[2] + k0) * ws[3] + k1) * ws[4] + k2));
                }
  expect_close(out[0], ref, ys);
}

TEST(ConvTransposeNd, NegativePadsWidenTheOutputWithZeros) {
  Tensor x = placeholder({1, 1, 2}, float32(), "x"), w = placeholder({1, 1, 2}, float32(), "w");
  NDArray xd = test::from_vec({1, 1, 2}, {1, 2}), wd = test::from_vec({1, 1, 2}, {10, 1});
  auto y = evaluate({ops::conv_transpose_nd(x, w, Tensor(), {2}, {0, -2}, {1}, {0})}, {x, w}, {xd, wd});
  expect_close(y[0], {10, 1, 20, 2, 0, 0}, {1, 1, 6});
}

// ---- ReverseSequence -------------------------------------------------------
TEST(ReverseSequence, ReversesEachBatchPrefix) {
  for (int64_t batch_axis : {0, 1}) {
    SCOPED_TRACE("batch_axis " + std::to_string(batch_axis));
    int64_t T = 4, B = 3, F = 2;
    Shape xs = batch_axis == 1 ? Shape{T, B, F} : Shape{B, T, F};
    Tensor x = placeholder(xs, float32(), "x"), lens = placeholder({B}, int64(), "lens");
    NDArray xd = random(xs, float32(), 6), ld = test::from_vec({B}, {4, 0, 2}, int64());
    auto y = evaluate({ops::reverse_sequence(x, lens, batch_axis, 1 - batch_axis)}, {x, lens}, {xd, ld});
    std::vector<float> ref(static_cast<size_t>(T * B * F));
    auto at = [&](int64_t t, int64_t b, int64_t f) { return batch_axis == 1 ? (t * B + b) * F + f : (b * T + t) * F + f; };
    int64_t L[3] = {4, 0, 2};
    for (int64_t t = 0; t < T; t++)
      for (int64_t b = 0; b < B; b++)
        for (int64_t f = 0; f < F; f++) ref[at(t, b, f)] = static_cast<float>(xd.get(at(t < L[b] ? L[b] - 1 - t : t, b, f)));
    expect_close(y[0], ref, xs);
  }
  EXPECT_THROW(ops::reverse_sequence(placeholder({2, 3}, float32(), "x"), placeholder({3}, int64(), "l"), 1, 1), AttributeError);
  EXPECT_THROW(ops::reverse_sequence(placeholder({2, 3}, float32(), "x"), placeholder({2}, int64(), "l")), ShapeError);
}

// ---- MaxPool Indices ---------------------------------------------------------
TEST(MaxPoolIndices, FirstMaxInScanOrderInBothStorageOrders) {
  Shape xs = {2, 2, 5, 6};
  Tensor x = placeholder(xs, float32(), "x");
  // few distinct values, so windows hold ties and the first one must win
  NDArray xd = random(xs, float32(), 7, 0, 3);
  for (int64_t i = 0; i < xd.size(); i++) xd.set(i, std::floor(xd.get(i)));
  std::vector<int64_t> k = {3, 2}, s = {2, 2}, pads = {1, 0, 1, 1}, d = {1, 2};
  Tensor y = ops::max_pool2d(x, k, s, pads, d);
  for (int64_t order : {0, 1}) {
    SCOPED_TRACE("storage_order " + std::to_string(order));
    auto out = evaluate({y, ops::max_pool2d_indices(x, y, k, s, {pads[0], pads[1]}, d, order)}, {x}, {xd});
    Shape ys = y.shape();
    std::vector<float> ref;
    for (int64_t nc = 0; nc < 4; nc++)
      for (int64_t oh = 0; oh < ys[2]; oh++)
        for (int64_t ow = 0; ow < ys[3]; ow++) {
          double best = -INFINITY;
          int64_t bh = -1, bw = -1;
          for (int64_t r = 0; r < k[0]; r++)
            for (int64_t q = 0; q < k[1]; q++) {
              int64_t h = oh * s[0] + r * d[0] - pads[0], w = ow * s[1] + q * d[1] - pads[1];
              if (h < 0 || h >= 5 || w < 0 || w >= 6) continue;
              double v = xd.get((nc * 5 + h) * 6 + w);
              if (v > best) best = v, bh = h, bw = w;
            }
          ref.push_back(static_cast<float>(order == 0 ? (nc * 5 + bh) * 6 + bw : nc * 30 + bw * 5 + bh));
        }
    expect_close(out[1], ref, ys, int64());
  }
}

// ---- Det ----------------------------------------------------------------------
// Gaussian elimination with partial pivoting (the reference the cofactor form must agree with).
double det_ref(std::vector<double> a, int n) {
  double d = 1;
  for (int k = 0; k < n; k++) {
    int p = k;
    for (int r = k + 1; r < n; r++)
      if (std::fabs(a[r * n + k]) > std::fabs(a[p * n + k])) p = r;
    if (p != k) {
      for (int c = 0; c < n; c++) std::swap(a[k * n + c], a[p * n + c]);
      d = -d;
    }
    if (a[k * n + k] == 0) return 0;
    d *= a[k * n + k];
    for (int r = k + 1; r < n; r++) {
      double f = a[r * n + k] / a[k * n + k];
      for (int c = k; c < n; c++) a[r * n + c] -= f * a[k * n + c];
    }
  }
  return d;
}

TEST(Det, MatchesEliminationForOneToThree) {
  for (int n = 1; n <= 3; n++) {
    SCOPED_TRACE("M = " + std::to_string(n));
    Shape xs = {2, 3, n, n};
    Tensor x = placeholder(xs, float32(), "x");
    NDArray xd = random(xs, float32(), 8);
    auto y = evaluate({ops::det_small(x)}, {x}, {xd});
    std::vector<float> ref;
    for (int b = 0; b < 6; b++) {
      std::vector<double> a;
      for (int e = 0; e < n * n; e++) a.push_back(xd.get(b * n * n + e));
      ref.push_back(static_cast<float>(det_ref(a, n)));
    }
    expect_close(y[0], ref, {2, 3});
  }
  EXPECT_THROW(ops::det_small(placeholder({4, 4}, float32(), "x")), ShapeError);
  EXPECT_THROW(ops::det_small(placeholder({2, 3}, float32(), "x")), ShapeError);
}

}  // namespace
}  // namespace tetune
