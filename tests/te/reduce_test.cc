// tetune::ops reductions vs plain loops.
#include <cmath>

#include "base/errors.h"
#include "te/ops/reduce.h"
#include "tests/te/op_test_util.h"

namespace tetune {
namespace {

using test::evaluate;

TEST(Reduce, AllOpsAxesKeepdims) {
  Shape s = {3, 4, 5};
  Tensor X = placeholder(s, float32(), "X");
  NDArray x = test::random(s, float32(), 1, 0.5, 1.5);
  auto vx = test::to_vec(x);
  enum { Sum, Mean, Max, Min, Prod };
  for (int op = Sum; op <= Prod; op++)
    for (auto axes : std::vector<std::vector<int64_t>>{{}, {0}, {-1}, {1, 2}, {0, -1}, {2, 0, 1}, {1, -2}})
      for (bool keep : {true, false}) {
        SCOPED_TRACE("op " + std::to_string(op) + " keepdims " + std::to_string(keep));
        Tensor Y;
        switch (op) {
          case Sum: Y = ops::reduce_sum(X, axes, keep); break;
          case Mean: Y = ops::reduce_mean(X, axes, keep); break;
          case Max: Y = ops::reduce_max(X, axes, keep); break;
          case Min: Y = ops::reduce_min(X, axes, keep); break;
          default: Y = ops::reduce_prod(X, axes, keep); break;
        }
        std::vector<bool> red(3, axes.empty());
        for (auto a : axes) red[a < 0 ? a + 3 : a] = true;
        Shape so, kept;  // kept: shape with reduced axes = 1
        for (int d = 0; d < 3; d++) {
          kept.push_back(red[d] ? 1 : s[d]);
          if (!red[d] || keep) so.push_back(red[d] ? 1 : s[d]);
        }
        ASSERT_EQ(Y.shape(), so);
        int64_t n = test::numel(kept);
        std::vector<double> acc(n, op == Prod ? 1.0 : op == Max ? -INFINITY : op == Min ? INFINITY : 0.0);
        for (int64_t f = 0; f < x.size(); f++) {
          auto idx = test::unflatten(f, s);
          int64_t o = 0;
          for (int d = 0; d < 3; d++) o = o * kept[d] + (red[d] ? 0 : idx[d]);
          double v = vx[f];
          if (op == Sum || op == Mean) acc[o] += v;
          else if (op == Prod) acc[o] *= v;
          else if (op == Max) acc[o] = std::max(acc[o], v);
          else acc[o] = std::min(acc[o], v);
        }
        std::vector<float> ref;
        for (double a : acc) ref.push_back(static_cast<float>(op == Mean ? a / (x.size() / n) : a));
        test::expect_close(evaluate({Y}, {X}, {x})[0], ref, so);
      }
}

TEST(Reduce, IntegerAndNames) {
  Tensor X = placeholder({4, 6}, int32(), "X");
  NDArray x = test::random({4, 6}, int32(), 2, -20, 20);
  auto vx = test::to_vec(x);
  Tensor S = ops::reduce_sum(X, {1}, false, "rs");
  Tensor M = ops::reduce_mean(X, {1}, false, "rm");
  EXPECT_EQ(S->tag, "reduce");
  EXPECT_EQ(S->body->reduce_axes[0].var.name(), "k0");
  EXPECT_EQ(M.inputs()[0].name(), "rm.sum");
  EXPECT_EQ(S->attrs.at("axes"), "[1]");
  std::vector<float> rs, rm;
  for (int i = 0; i < 4; i++) {
    int64_t a = 0;
    for (int j = 0; j < 6; j++) a += static_cast<int64_t>(vx[i * 6 + j]);
    rs.push_back(static_cast<float>(a));
    rm.push_back(static_cast<float>(std::floor(a / 6.0)));  // integer mean: floor division
  }
  auto out = evaluate({S, M}, {X}, {x});
  test::expect_close(out[0], rs, {4}, int32());
  test::expect_close(out[1], rm, {4}, int32());
  EXPECT_THROW(ops::reduce_sum(X, {2}), AttributeError);
  EXPECT_THROW(ops::reduce_max(X, {-3}), AttributeError);
}

}  // namespace
// ArgMax / ArgMin against a plain loop, with ties (first vs last index) and a NaN row.
TEST(Reduce, ArgMaxArgMinTiesAndNaN) {
  Shape s = {3, 4};
  Tensor X = placeholder(s, float32(), "X");
  std::vector<float> v = {1, 5, 5, 2,  //
                          7, 0, 7, 0,  //
                          3, NAN, 1, NAN};
  NDArray x = test::from_vec(s, v);
  for (bool is_max : {true, false})
    for (bool last : {false, true})
      for (int axis : {1, 0}) {
        SCOPED_TRACE(std::string(is_max ? "max" : "min") + (last ? " last" : " first") + " axis " + std::to_string(axis));
        Tensor Y = ops::arg_reduce(X, axis, is_max, last, false);
        int n = static_cast<int>(s[axis]), outer = static_cast<int>(s[1 - axis]);
        ASSERT_EQ(Y.shape(), Shape{outer});
        EXPECT_EQ(Y.dtype(), int64());
        NDArray got = evaluate({Y}, {X}, {x})[0];
        for (int o = 0; o < outer; o++) {
          int best = -1;
          for (int k = 0; k < n; k++) {
            float e = axis == 1 ? v[o * 4 + k] : v[k * 4 + o];
            if (best >= 0 && std::isnan(axis == 1 ? v[o * 4 + best] : v[best * 4 + o]) && !(last && std::isnan(e))) continue;
            float b = best < 0 ? 0 : (axis == 1 ? v[o * 4 + best] : v[best * 4 + o]);
            bool better = best < 0 || std::isnan(e) || (is_max ? e > b : e < b) || (last && e == b);
            if (better) best = k;
          }
          EXPECT_EQ(got.get(o), best) << "row " << o;
        }
      }
  Tensor K = ops::arg_reduce(X, -1, true, false, true);
  EXPECT_EQ(K.shape(), (Shape{3, 1}));
  EXPECT_THROW(ops::arg_reduce(X, 2, true), AttributeError);
}

}  // namespace tetune
