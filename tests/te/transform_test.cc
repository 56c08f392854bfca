// tetune::ops data-movement operators vs plain loops.
#include <algorithm>

#include "base/errors.h"
#include "te/ops/transform.h"
#include "tests/te/op_test_util.h"

namespace tetune {
namespace {

using test::evaluate;

// Element of v (shape s) at multi-index idx.
float at(const std::vector<float> &v, const Shape &s, const std::vector<int64_t> &idx) {
  int64_t f = 0;
  for (size_t d = 0; d < s.size(); d++) f = f * s[d] + idx[d];
  return v[f];
}

TEST(Transform, Concat) {
  for (int64_t axis : {0, 1, -1}) {
    int ax = axis < 0 ? 2 : static_cast<int>(axis);
    Shape sa = {3, 4, 6}, sb2 = sa;
    sa[ax] = 5;
    sb2[ax] = 2;
    Tensor A = placeholder(sa, float32(), "A"), B = placeholder(sa, float32(), "B");
    Tensor B2 = placeholder(sb2, float32(), "B2");
    Tensor C = ops::concat({A, B2, B}, axis);
    Shape so = sa;
    so[ax] = 5 + 2 + 5;
    ASSERT_EQ(C.shape(), so);
    NDArray a = test::random(sa, float32(), 1), b2 = test::random(sb2, float32(), 2), b = test::random(sa, float32(), 3);
    auto va = test::to_vec(a), vb2 = test::to_vec(b2), vb = test::to_vec(b);
    std::vector<float> exp;
    for (int64_t f = 0; f < test::numel(so); f++) {
      auto idx = test::unflatten(f, so);
      int64_t p = idx[ax];
      if (p < 5) exp.push_back(at(va, sa, idx));
      else if (p < 7) { idx[ax] = p - 5; exp.push_back(at(vb2, sb2, idx)); }
      else { idx[ax] = p - 7; exp.push_back(at(vb, sa, idx)); }
    }
    test::expect_close(evaluate({C}, {A, B2, B}, {a, b2, b})[0], exp, so);
  }
  Tensor A = placeholder({2, 3}, float32(), "A"), B = placeholder({3, 3}, float32(), "B");
  EXPECT_THROW(ops::concat({A, B}, 1), ShapeError);
  EXPECT_THROW(ops::concat({A, B}, 2), AttributeError);
}

TEST(Transform, Split) {
  Tensor X = placeholder({4, 7}, float32(), "X");
  NDArray x = test::random({4, 7});
  auto vx = test::to_vec(x);
  for (auto sizes : std::vector<std::vector<int64_t>>{{2, 5}, {1, 1, 5}, {}}) {
    auto parts = ops::split(X, -1, sizes, 3, "sp");
    std::vector<int64_t> expect_sizes = sizes.empty() ? std::vector<int64_t>{3, 3, 1} : sizes;
    ASSERT_EQ(parts.size(), expect_sizes.size());
    EXPECT_EQ(parts[0].name(), "sp.0");
    auto outs = evaluate(parts, {X}, {x});
    int64_t off = 0;
    for (size_t k = 0; k < parts.size(); k++) {
      std::vector<float> exp;
      for (int i = 0; i < 4; i++)
        for (int64_t j = 0; j < expect_sizes[k]; j++) exp.push_back(vx[i * 7 + off + j]);
      test::expect_close(outs[k], exp, {4, expect_sizes[k]});
      off += expect_sizes[k];
    }
  }
  EXPECT_THROW(ops::split(X, 1, {3, 3}), AttributeError);
}

// Reference ONNX slice along one axis: the list of selected input indices.
std::vector<int64_t> slice_ref(int64_t dim, int64_t s, int64_t e, int64_t step) {
  if (s < 0) s += dim;
  if (e < 0) e += dim;
  std::vector<int64_t> r;
  if (step > 0) {
    s = std::clamp<int64_t>(s, 0, dim);
    e = std::clamp<int64_t>(e, 0, dim);
    for (int64_t i = s; i < e; i += step) r.push_back(i);
  } else {
    s = std::clamp<int64_t>(s, -1, dim - 1);
    e = std::clamp<int64_t>(e, -1, dim - 1);
    for (int64_t i = s; i > e; i += step) r.push_back(i);
  }
  return r;
}

TEST(Transform, Slice) {
  Shape s = {7, 13};
  Tensor X = placeholder(s, float32(), "X");
  NDArray x = test::random(s);
  auto vx = test::to_vec(x);
  struct Case { std::vector<int64_t> starts, ends, axes, steps; };
  std::vector<Case> cases = {
      {{1, 2}, {5, 11}, {}, {}},
      {{0}, {100}, {1}, {3}},                     // end clamped
      {{-1}, {-100}, {1}, {-1}},                  // full reverse
      {{5, -2}, {1, 0}, {0, -1}, {-2, -3}},       // negative steps, negative axis
      {{-3}, {7}, {0}, {1}},
      {{100}, {-100}, {-1}, {-4}},                // clamp for negative step
  };
  for (auto &c : cases) {
    Tensor Y = ops::slice(X, c.starts, c.ends, c.axes, c.steps);
    std::vector<std::vector<int64_t>> sel(2);
    for (int d = 0; d < 2; d++) for (int64_t i = 0; i < s[d]; i++) sel[d].push_back(i);
    for (size_t k = 0; k < c.starts.size(); k++) {
      int64_t a = c.axes.empty() ? static_cast<int64_t>(k) : c.axes[k];
      if (a < 0) a += 2;
      sel[a] = slice_ref(s[a], c.starts[k], c.ends[k], c.steps.empty() ? 1 : c.steps[k]);
    }
    Shape so = {static_cast<int64_t>(sel[0].size()), static_cast<int64_t>(sel[1].size())};
    ASSERT_EQ(Y.shape(), so);
    std::vector<float> exp;
    for (auto i : sel[0]) for (auto j : sel[1]) exp.push_back(vx[i * 13 + j]);
    test::expect_close(evaluate({Y}, {X}, {x})[0], exp, so);
  }
  EXPECT_THROW(ops::slice(X, {0}, {5}, {0}, {0}), AttributeError);
  EXPECT_THROW(ops::slice(X, {3}, {3}), ShapeError);
}

TEST(Transform, Transpose) {
  Shape s = {2, 3, 5};
  Tensor X = placeholder(s, float32(), "X");
  NDArray x = test::random(s);
  auto vx = test::to_vec(x);
  for (auto perm : std::vector<std::vector<int64_t>>{{}, {0, 2, 1}, {1, 2, 0}, {2, 0, 1}}) {
    Tensor Y = ops::transpose(X, perm);
    std::vector<int64_t> p = perm.empty() ? std::vector<int64_t>{2, 1, 0} : perm;
    Shape so = {s[p[0]], s[p[1]], s[p[2]]};
    ASSERT_EQ(Y.shape(), so);
    std::vector<float> exp;
    for (int64_t f = 0; f < test::numel(so); f++) {
      auto o = test::unflatten(f, so);
      std::vector<int64_t> in(3);
      for (int d = 0; d < 3; d++) in[p[d]] = o[d];
      exp.push_back(at(vx, s, in));
    }
    test::expect_close(evaluate({Y}, {X}, {x})[0], exp, so);
  }
  EXPECT_THROW(ops::transpose(X, {0, 0, 1}), AttributeError);
}

// NCHW -> NCHW[b]c and back: y[n, c, h, w, i] = x[n, c * b + i, h, w]; a block that does not
// divide C (5 of 12) pads the last block with 0, and to_plain with C crops it again.
TEST(Transform, ToBlockedAndToPlain) {
  const Shape s = {2, 12, 3, 5};
  Tensor X = placeholder(s, float32(), "X");
  NDArray x = test::random(s);
  auto vx = test::to_vec(x);
  for (int64_t b : {4, 5}) {
    SCOPED_TRACE("block " + std::to_string(b));
    Tensor Y = ops::to_blocked(X, b);
    const Shape so = {2, (12 + b - 1) / b, 3, 5, b};
    ASSERT_EQ(Y.shape(), so);
    std::vector<float> exp;
    for (int64_t f = 0; f < test::numel(so); f++) {
      auto o = test::unflatten(f, so);
      const int64_t c = o[1] * b + o[4];
      exp.push_back(c < 12 ? at(vx, s, {o[0], c, o[2], o[3]}) : 0.f);
    }
    NDArray y = evaluate({Y}, {X}, {x})[0];
    test::expect_close(y, exp, so);
    Tensor B = placeholder(so, float32(), "B");
    Tensor P = b == 4 ? ops::to_plain(B) : ops::to_plain(B, 12);
    ASSERT_EQ(P.shape(), s);
    test::expect_close(evaluate({P}, {B}, {y})[0], vx, s);
  }
  Tensor B = placeholder({2, 3, 3, 5, 4}, float32(), "B");
  EXPECT_THROW(ops::to_blocked(X, 0), AttributeError);
  EXPECT_THROW(ops::to_blocked(B, 4), ShapeError);
  EXPECT_THROW(ops::to_plain(X), ShapeError);
  EXPECT_THROW(ops::to_plain(B, 8), AttributeError) << "8 channels leave B's last block of 4 empty";
  EXPECT_THROW(ops::to_plain(B, 13), AttributeError) << "B holds 12";
}

// Channels of blocked tensors joined, shuffled and cut in one pass: A holds 7 channels in blocks
// of 4, B 5 in blocks of 3 (their padding lanes hold random numbers the gather must not read);
// X = A's then B's channels (12), S[c] = X[(c % g) * (12 / g) + c / g], y channel c = S[start + c]
// in blocks of 4, its padding 0.
TEST(Transform, BlockedChannelGather) {
  const Shape sa = {2, 2, 3, 5, 4}, sb = {2, 2, 3, 5, 3};
  Tensor A = placeholder(sa, float32(), "A"), B = placeholder(sb, float32(), "B");
  NDArray a = test::random(sa, float32(), 4), b = test::random(sb, float32(), 5);
  auto va = test::to_vec(a), vb = test::to_vec(b);
  auto x_at = [&](int64_t n, int64_t c, int64_t h, int64_t w) {
    return c < 7 ? at(va, sa, {n, c / 4, h, w, c % 4}) : at(vb, sb, {n, (c - 7) / 3, h, w, (c - 7) % 3});
  };
  struct Case {
    int64_t groups, start, count;
  };
  for (const Case &k : {Case{1, 0, 12}, Case{2, 0, 6}, Case{2, 6, 6}, Case{3, 1, 9}, Case{4, 11, 1}}) {
    SCOPED_TRACE("groups " + std::to_string(k.groups) + ", channels " + std::to_string(k.start) + " + " + std::to_string(k.count));
    Tensor Y = ops::blocked_channel_gather({A, B}, {7, 5}, k.groups, k.start, k.count, 4);
    const Shape so = {2, (k.count + 3) / 4, 3, 5, 4};
    ASSERT_EQ(Y.shape(), so);
    std::vector<float> exp;
    for (int64_t f = 0; f < test::numel(so); f++) {
      auto o = test::unflatten(f, so);
      const int64_t c = o[1] * 4 + o[4], s = k.start + c;
      exp.push_back(c < k.count ? x_at(o[0], (s % k.groups) * (12 / k.groups) + s / k.groups, o[2], o[3]) : 0.f);
    }
    test::expect_close(evaluate({Y}, {A, B}, {a, b})[0], exp, so);
  }
  EXPECT_THROW(ops::blocked_channel_gather({A, B}, {7, 5}, 5, 0, 12, 4), AttributeError) << "5 groups of 12 channels";
  EXPECT_THROW(ops::blocked_channel_gather({A, B}, {7, 5}, 1, 6, 7, 4), AttributeError) << "channels 6 .. 12 of 12";
  EXPECT_THROW(ops::blocked_channel_gather({A, B}, {4, 5}, 1, 0, 9, 4), AttributeError) << "A's 4 channels leave a block empty";
  EXPECT_THROW(ops::blocked_channel_gather({A}, {7, 5}, 1, 0, 7, 4), AttributeError);
  Tensor W = placeholder({2, 2, 3, 4, 3}, float32(), "W");
  EXPECT_THROW(ops::blocked_channel_gather({A, W}, {7, 5}, 1, 0, 12, 4), ShapeError) << "W is 4 wide, A 5";
}

TEST(Transform, ReshapeFlattenSqueezeUnsqueeze) {
  Shape s = {2, 3, 1, 5};
  Tensor X = placeholder(s, float32(), "X");
  NDArray x = test::random(s);
  auto vx = test::to_vec(x);  // all these keep row-major order
  auto check = [&](const Tensor &Y, const Shape &so) {
    SCOPED_TRACE(Y.name() + " " + shape_str(so));
    ASSERT_EQ(Y.shape(), so);
    EXPECT_EQ(Y->tag, "injective");
    test::expect_close(evaluate({Y}, {X}, {x})[0], vx, so);
  };
  check(ops::reshape(X, {6, 5}), {6, 5});
  check(ops::reshape(X, {0, -1}), {2, 15});
  check(ops::reshape(X, {-1, 3, 0, 5}), {2, 3, 1, 5});
  check(ops::reshape(X, {30}), {30});
  check(ops::reshape(X, {5, 2, 3}), {5, 2, 3});
  check(ops::flatten(X), {2, 15});
  check(ops::flatten(X, 0), {1, 30});
  check(ops::flatten(X, -1), {6, 5});
  check(ops::flatten(X, 4), {30, 1});
  check(ops::squeeze(X), {2, 3, 5});
  check(ops::squeeze(X, {-2}), {2, 3, 5});
  check(ops::unsqueeze(X, {0, -1}), {1, 2, 3, 1, 5, 1});
  check(ops::unsqueeze(X, {2}), {2, 3, 1, 1, 5});
  EXPECT_THROW(ops::reshape(X, {7, -1}), ShapeError);
  EXPECT_THROW(ops::reshape(X, {-1, -1}), AttributeError);
  EXPECT_THROW(ops::squeeze(X, {1}), ShapeError);
  EXPECT_THROW(ops::squeeze(X, {4}), AttributeError);
}

TEST(Transform, Pad) {
  Shape s = {3, 5};
  Tensor X = placeholder(s, float32(), "X");
  NDArray x = test::random(s);
  auto vx = test::to_vec(x);
  for (std::string mode : {"constant", "edge", "reflect"}) {
    for (auto pads : std::vector<std::vector<int64_t>>{{1, 2, 2, 0}, {0, 4, 2, 3}, {2, 1, 1, 2}}) {
      SCOPED_TRACE(mode);
      Tensor Y = ops::pad(X, pads, mode, 1.5);
      Shape so = {3 + pads[0] + pads[2], 5 + pads[1] + pads[3]};
      ASSERT_EQ(Y.shape(), so);
      std::vector<float> exp;
      for (int64_t i = 0; i < so[0]; i++)
        for (int64_t j = 0; j < so[1]; j++) {
          int64_t a = i - pads[0], b = j - pads[1];
          auto fix = [&](int64_t v, int64_t n) {
            if (mode == "edge") return std::clamp<int64_t>(v, 0, n - 1);
            if (v < 0) return -v;
            if (v >= n) return 2 * (n - 1) - v;
            return v;
          };
          if (mode == "constant" && (a < 0 || a >= 3 || b < 0 || b >= 5)) exp.push_back(1.5f);
          else exp.push_back(vx[fix(a, 3) * 5 + fix(b, 5)]);
        }
      test::expect_close(evaluate({Y}, {X}, {x})[0], exp, so);
    }
  }
  // Negative pads crop.
  Tensor Y = ops::pad(X, {-1, 1, 0, -2});
  std::vector<float> exp;
  for (int i = 1; i < 3; i++) { exp.push_back(0); for (int j = 0; j < 3; j++) exp.push_back(vx[i * 5 + j]); }
  test::expect_close(evaluate({Y}, {X}, {x})[0], exp, {2, 4});
  EXPECT_THROW(ops::pad(X, {3, 0, 0, 0}, "reflect"), AttributeError);
  EXPECT_THROW(ops::pad(X, {1, 0, 0, 0}, "wrap"), AttributeError);
  EXPECT_THROW(ops::pad(X, {1, 0}), AttributeError);
}

TEST(Transform, Gather) {
  Shape s = {5, 4, 3};
  Tensor D = placeholder(s, float32(), "D");
  NDArray d = test::random(s);
  auto vd = test::to_vec(d);
  for (DType it : {int32(), int64()}) {
    for (int64_t axis : {0, 1, -1}) {
      int ax = axis < 0 ? 2 : static_cast<int>(axis);
      int64_t n = s[ax];
      Tensor I = placeholder({2, 3}, it, "I");
      NDArray iv = test::from_vec({2, 3}, {0, static_cast<float>(n - 1), -1, static_cast<float>(-n), 1, 2 % n * 1.0f}, it);
      Tensor G = ops::gather(D, I, axis);
      Shape so;
      for (int k = 0; k < ax; k++) so.push_back(s[k]);
      so.push_back(2); so.push_back(3);
      for (int k = ax + 1; k < 3; k++) so.push_back(s[k]);
      ASSERT_EQ(G.shape(), so);
      auto vi = test::to_vec(iv);
      std::vector<float> exp;
      for (int64_t f = 0; f < test::numel(so); f++) {
        auto o = test::unflatten(f, so);
        int64_t q = static_cast<int64_t>(vi[o[ax] * 3 + o[ax + 1]]);
        if (q < 0) q += n;
        std::vector<int64_t> in;
        for (int k = 0; k < ax; k++) in.push_back(o[k]);
        in.push_back(q);
        for (int k = ax + 1; k < 3; k++) in.push_back(o[k + 1]);
        exp.push_back(at(vd, s, in));
      }
      test::expect_close(evaluate({G}, {D, I}, {d, iv})[0], exp, so);
    }
  }
  // Scalar (rank-0) indices remove the axis.
  Tensor I0 = placeholder({}, int64(), "I0");
  Tensor G = ops::gather(D, I0, 1);
  ASSERT_EQ(G.shape(), (Shape{5, 3}));
  NDArray i0(Shape{}, int64());
  i0.set(0, -2);
  std::vector<float> exp;
  for (int a = 0; a < 5; a++) for (int c = 0; c < 3; c++) exp.push_back(vd[(a * 4 + 2) * 3 + c]);
  test::expect_close(evaluate({G}, {D, I0}, {d, i0})[0], exp, {5, 3});
  Tensor F = placeholder({2}, float32(), "F");
  EXPECT_THROW(ops::gather(D, F), DTypeError);
}

TEST(Transform, Expand) {
  Tensor X = placeholder({3, 1}, float32(), "X");
  NDArray x = test::from_vec({3, 1}, {1, 2, 3});
  Tensor Y = ops::expand(X, {2, 1, 4});
  ASSERT_EQ(Y.shape(), (Shape{2, 3, 4}));
  std::vector<float> exp;
  for (int b = 0; b < 2; b++) for (int i = 0; i < 3; i++) for (int j = 0; j < 4; j++) exp.push_back(static_cast<float>(i + 1));
  test::expect_close(evaluate({Y}, {X}, {x})[0], exp, {2, 3, 4});
  Tensor Z = ops::expand(X, {1});  // shape smaller than input: stays 3x1
  test::expect_close(evaluate({Z}, {X}, {x})[0], {1, 2, 3}, {3, 1});
  EXPECT_THROW(ops::expand(X, {2, 2}), ShapeError);
}

}  // namespace
}  // namespace tetune
