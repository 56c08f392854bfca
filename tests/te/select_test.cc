// tetune::ops topk, lrn and window vs plain loops.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "base/errors.h"
#include "te/ops/lrn.h"
#include "te/ops/topk.h"
#include "te/ops/window.h"
#include "tests/te/op_test_util.h"

namespace tetune {
namespace {

using test::evaluate;

// Reference: stable sort of the row's indices (NaN above every number).
void topk_ref(const std::vector<float> &x, const Shape &s, int ax, int64_t k, bool largest, std::vector<float> *vals,
              std::vector<int64_t> *idx) {
  int64_t n = s[ax], inner = 1, outer = 1;
  for (int d = ax + 1; d < static_cast<int>(s.size()); d++) inner *= s[d];
  for (int d = 0; d < ax; d++) outer *= s[d];
  Shape os = s;
  os[ax] = k;
  vals->assign(test::numel(os), 0);
  idx->assign(test::numel(os), 0);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t in = 0; in < inner; in++) {
      auto at = [&](int64_t i) { return x[(o * n + i) * inner + in]; };
      std::vector<int64_t> p(n);
      std::iota(p.begin(), p.end(), 0);
      std::stable_sort(p.begin(), p.end(), [&](int64_t a, int64_t b) {
        float u = at(a), v = at(b);
        if (std::isnan(u) || std::isnan(v)) return largest ? (std::isnan(u) && !std::isnan(v)) : (!std::isnan(u) && std::isnan(v));
        return largest ? u > v : u < v;
      });
      for (int64_t j = 0; j < k; j++) {
        (*vals)[(o * k + j) * inner + in] = at(p[j]);
        (*idx)[(o * k + j) * inner + in] = p[j];
      }
    }
}

TEST(TopK, MatchesStableSortWithTiesAndNaN) {
  Shape s = {3, 7, 2};
  NDArray x = test::random(s);
  // ties (resolved by lower index) and a NaN
  x.set(0, 0.5), x.set(2, 0.5), x.set(4, 0.5), x.set(9, std::nan("")), x.set(13, -1);
  for (int ax : {0, 1, 2})
    for (bool largest : {true, false}) {
      int64_t k = std::min<int64_t>(s[ax], 3);
      SCOPED_TRACE("axis " + std::to_string(ax) + (largest ? " largest" : " smallest"));
      Tensor X = placeholder(s, float32(), "X");
      auto r = ops::topk(X, k, ax, largest);
      auto got = evaluate({r.first, r.second}, {X}, {x});
      std::vector<float> vals;
      std::vector<int64_t> idx;
      topk_ref(test::to_vec(x), s, ax, k, largest, &vals, &idx);
      Shape os = s;
      os[ax] = k;
      ASSERT_EQ(got[1].dtype(), int64());
      ASSERT_EQ(got[1].shape(), os);
      for (int64_t i = 0; i < got[1].size(); i++) {
        EXPECT_EQ(got[1].get(i), idx[i]) << i;
        float g = static_cast<float>(got[0].get(i));
        EXPECT_TRUE(g == vals[i] || (std::isnan(g) && std::isnan(vals[i]))) << i << ": " << g << " vs " << vals[i];
      }
    }
}

TEST(TopK, IntegersAndErrors) {
  Shape s = {6};
  NDArray x = test::from_vec(s, {3, -2, 7, 7, 0, 3}, int32());
  Tensor X = placeholder(s, int32(), "X");
  auto r = ops::topk(X, 4, -1, true);
  auto got = evaluate({r.first, r.second}, {X}, {x});
  std::vector<double> v = {7, 7, 3, 3}, i = {2, 3, 0, 5};
  for (int j = 0; j < 4; j++) {
    EXPECT_EQ(got[0].get(j), v[j]);
    EXPECT_EQ(got[1].get(j), i[j]);
  }
  EXPECT_THROW(ops::topk(X, 7, 0, true), ShapeError);
  EXPECT_THROW(ops::topk(X, 0, 0, true), ShapeError);
  EXPECT_THROW(ops::topk(X, 1, 1, true), AttributeError);
}

TEST(LRN, MatchesLoops) {
  Shape s = {2, 5, 3, 2};
  NDArray x = test::random(s);
  auto vx = test::to_vec(x);
  for (int64_t size : {1, 2, 3, 5}) {
    SCOPED_TRACE(size);
    Tensor X = placeholder(s, float32(), "X");
    double alpha = 0.3, beta = 0.7, bias = 1.5;
    Tensor Y = ops::lrn(X, size, alpha, beta, bias);
    std::vector<float> ref(vx.size());
    int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
    for (int64_t n = 0; n < 2; n++)
      for (int64_t c = 0; c < 5; c++)
        for (int64_t p = 0; p < 6; p++) {
          double sq = 0;
          for (int64_t q = std::max<int64_t>(0, c - lo); q <= std::min<int64_t>(4, c + hi); q++) {
            double v = vx[(n * 5 + q) * 6 + p];
            sq += v * v;
          }
          int64_t i = (n * 5 + c) * 6 + p;
          ref[i] = static_cast<float>(vx[i] / std::pow(bias + alpha / size * sq, beta));
        }
    test::expect_close(evaluate({Y}, {X}, {x})[0], ref, s);
  }
  EXPECT_THROW(ops::lrn(placeholder({2, 3}, float32(), "R"), 3, 1, 1, 1), ShapeError);
  EXPECT_THROW(ops::lrn(placeholder({1, 3, 2}, int32(), "I"), 3, 1, 1, 1), DTypeError);
}

TEST(Window, HannHammingBlackman) {
  for (std::string kind : {"hann", "hamming", "blackman"})
    for (bool periodic : {true, false}) {
      SCOPED_TRACE(kind + (periodic ? " periodic" : " symmetric"));
      int64_t size = 10;
      Tensor W = ops::window(kind, size, periodic, float32());
      double N = periodic ? size : size - 1;
      std::vector<float> ref;
      for (int64_t n = 0; n < size; n++) {
        double a = 2 * M_PI * n / N;
        double w = kind == "hann" ? 0.5 - 0.5 * std::cos(a)
                   : kind == "hamming" ? 25.0 / 46 - 21.0 / 46 * std::cos(a)
                                       : 0.42 - 0.5 * std::cos(a) + 0.08 * std::cos(2 * a);
        ref.push_back(static_cast<float>(w));
      }
      test::expect_close(evaluate({W}, {}, {})[0], ref, {size});
    }
  EXPECT_THROW(ops::window("hann", 1, false, float32()), ShapeError);
  EXPECT_THROW(ops::window("kaiser", 4, true, float32()), AttributeError);
}

}  // namespace
}  // namespace tetune
