// tetune::ops batch_norm_inference / layer_norm vs plain loops.
#include <algorithm>
#include <cmath>

#include "base/errors.h"
#include "te/ops/norm.h"
#include "tests/te/op_test_util.h"

namespace tetune {
namespace {

using test::evaluate;

TEST(Norm, BatchNormInference) {
  for (Shape s : {Shape{2, 3, 5, 7}, Shape{4, 3}, Shape{1, 3, 9}}) {
    SCOPED_TRACE(shape_str(s));
    int64_t C = 3;
    Tensor X = placeholder(s, float32(), "X"), sc = placeholder({C}, float32(), "scale"), b = placeholder({C}, float32(), "bias"),
           m = placeholder({C}, float32(), "mean"), v = placeholder({C}, float32(), "var");
    Tensor Y = ops::batch_norm_inference(X, sc, b, m, v, 1e-3);
    NDArray x = test::random(s, float32(), 1), scv = test::random({C}, float32(), 2), bv = test::random({C}, float32(), 3),
            mv = test::random({C}, float32(), 4), vv = test::random({C}, float32(), 5, 0.1, 2);
    auto vx = test::to_vec(x), a = test::to_vec(scv), bb = test::to_vec(bv), mm = test::to_vec(mv), var = test::to_vec(vv);
    int64_t inner = 1;
    for (size_t d = 2; d < s.size(); d++) inner *= s[d];
    std::vector<float> ref;
    for (int64_t f = 0; f < x.size(); f++) {
      int64_t c = (f / inner) % C;
      ref.push_back(static_cast<float>((vx[f] - mm[c]) / std::sqrt(var[c] + 1e-3) * a[c] + bb[c]));
    }
    test::expect_close(evaluate({Y}, {X, sc, b, m, v}, {x, scv, bv, mv, vv})[0], ref, s);
  }
  Tensor X = placeholder({2, 3, 4, 4}, float32(), "X"), p = placeholder({3}, float32(), "p"), q = placeholder({4}, float32(), "q");
  EXPECT_THROW(ops::batch_norm_inference(X, p, p, q, p), ShapeError);
  EXPECT_THROW(ops::batch_norm_inference(X, p, p, p, p, -1), AttributeError);
}

TEST(Norm, LayerNorm) {
  Shape s = {2, 3, 5};
  Tensor X = placeholder(s, float32(), "X");
  NDArray x = test::random(s, float32(), 7, -2, 3);
  auto vx = test::to_vec(x);
  struct Case { int64_t axis; Shape scale; bool bias; };
  for (auto c : std::vector<Case>{{-1, {5}, true}, {2, {5}, false}, {1, {3, 5}, true}, {1, {5}, true}, {-2, {1, 5}, true}, {0, {2, 3, 5}, true}}) {
    SCOPED_TRACE("axis " + std::to_string(c.axis) + " scale " + shape_str(c.scale));
    int ax = c.axis < 0 ? static_cast<int>(c.axis) + 3 : static_cast<int>(c.axis);
    Shape ns(s.begin() + ax, s.end());
    Tensor sc = placeholder(c.scale, float32(), "scale");
    Tensor b = c.bias ? placeholder(c.scale, float32(), "bias") : Tensor();
    Tensor Y = ops::layer_norm(X, sc, b, c.axis, 1e-4, "ln");
    NDArray scv = test::random(c.scale, float32(), 8), bv = test::random(c.scale, float32(), 9);
    auto va = test::to_vec(scv), vb = test::to_vec(bv);
    int64_t inner = test::numel(ns), outer = x.size() / inner;
    std::vector<float> ref(x.size());
    for (int64_t o = 0; o < outer; o++) {
      double mean = 0, var = 0;
      for (int64_t i = 0; i < inner; i++) mean += vx[o * inner + i];
      mean /= inner;
      for (int64_t i = 0; i < inner; i++) var += (vx[o * inner + i] - mean) * (vx[o * inner + i] - mean);
      var /= inner;
      for (int64_t i = 0; i < inner; i++) {
        // scale broadcast onto the normalised shape (trailing-aligned).
        auto idx = test::unflatten(i, ns);
        int64_t fs = 0;
        size_t off = ns.size() - c.scale.size();
        for (size_t d = 0; d < c.scale.size(); d++) fs = fs * c.scale[d] + (c.scale[d] == 1 ? 0 : idx[d + off]);
        double y = (vx[o * inner + i] - mean) / std::sqrt(var + 1e-4) * va[fs] + (c.bias ? vb[fs] : 0);
        ref[o * inner + i] = static_cast<float>(y);
      }
    }
    auto out = c.bias ? evaluate({Y}, {X, sc, b}, {x, scv, bv}) : evaluate({Y}, {X, sc}, {x, scv});
    test::expect_close(out[0], ref, s);
    std::vector<std::string> names;
    for (const auto &t : Y.inputs()) names.push_back(t.name());
    EXPECT_NE(std::find(names.begin(), names.end(), "ln.sum"), names.end());
    EXPECT_NE(std::find(names.begin(), names.end(), "ln.var_sum"), names.end());
  }
  EXPECT_THROW(ops::layer_norm(X, placeholder({3}, float32(), "bad"), Tensor(), -1), ShapeError);
  EXPECT_THROW(ops::layer_norm(X, placeholder({5}, float32(), "sc"), Tensor(), 3), AttributeError);
}

// Mean and InvStdDev (ONNX LayerNormalization outputs 1, 2) keep the normalised axes with extent 1.
TEST(Norm, LayerNormWithStats) {
  Shape s = {2, 3, 5};
  Tensor X = placeholder(s, float32(), "X"), sc = placeholder({3, 5}, float32(), "scale");
  NDArray x = test::random(s, float32(), 11, -2, 3), scv = test::random({3, 5}, float32(), 12);
  auto vx = test::to_vec(x);
  auto r = ops::layer_norm_with_stats(X, sc, Tensor(), 1, 1e-3, "ln");
  EXPECT_EQ(r.mean.shape(), (Shape{2, 1, 1}));
  EXPECT_EQ(r.inv_std_dev.shape(), (Shape{2, 1, 1}));
  std::vector<float> mean_ref, inv_ref;
  for (int64_t o = 0; o < 2; o++) {
    double m = 0, v = 0;
    for (int64_t i = 0; i < 15; i++) m += vx[o * 15 + i];
    m /= 15;
    for (int64_t i = 0; i < 15; i++) v += (vx[o * 15 + i] - m) * (vx[o * 15 + i] - m);
    mean_ref.push_back(static_cast<float>(m));
    inv_ref.push_back(static_cast<float>(1 / std::sqrt(v / 15 + 1e-3)));
  }
  auto out = evaluate({r.mean, r.inv_std_dev}, {X, sc}, {x, scv});
  test::expect_close(out[0], mean_ref, {2, 1, 1});
  test::expect_close(out[1], inv_ref, {2, 1, 1});
}

}  // namespace
}  // namespace tetune
