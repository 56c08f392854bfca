// tetune::ops elementwise operators vs plain loops.
#include <cmath>
#include <functional>

#include "base/errors.h"
#include "te/ops/common.h"
#include "te/ops/elementwise.h"
#include "tests/te/op_test_util.h"

namespace tetune {
namespace {

using test::evaluate;

// Flat index into `in` (NumPy-broadcast) for the output multi-index.
int64_t bflat(const std::vector<int64_t> &oidx, const Shape &in) {
  size_t off = oidx.size() - in.size();
  int64_t f = 0;
  for (size_t d = 0; d < in.size(); d++) f = f * in[d] + (in[d] == 1 ? 0 : oidx[d + off]);
  return f;
}

TEST(Broadcast, Shapes) {
  EXPECT_EQ(ops::broadcast_shapes({7, 13}, {13}), (Shape{7, 13}));
  EXPECT_EQ(ops::broadcast_shapes({3, 1, 5}, {4, 1}), (Shape{3, 4, 5}));
  EXPECT_EQ(ops::broadcast_shapes({1}, {2, 3, 4}), (Shape{2, 3, 4}));
  EXPECT_EQ(ops::broadcast_shapes({}, {2, 3}), (Shape{2, 3}));
  try {
    ops::broadcast_shapes({2, 3}, {4, 3});
    FAIL();
  } catch (const ShapeError &e) {
    std::string m = e.what();
    EXPECT_NE(m.find("2x3"), std::string::npos) << m;
    EXPECT_NE(m.find("4x3"), std::string::npos) << m;
  }
}

using BinOp = std::function<Tensor(const Tensor &, const Tensor &)>;
using RefBin = std::function<double(double, double)>;

void check_binary(const BinOp &op, const RefBin &ref, const Shape &sa, const Shape &sb, bool positive = false,
                  DType out_dt = float32()) {
  SCOPED_TRACE(shape_str(sa) + " vs " + shape_str(sb));
  Tensor A = placeholder(sa, float32(), "A"), B = placeholder(sb, float32(), "B");
  Tensor C = op(A, B);
  Shape so = ops::broadcast_shapes(sa, sb);
  ASSERT_EQ(C.shape(), so);
  EXPECT_EQ(C->tag, sa == so && sb == so ? "elemwise" : "broadcast");
  NDArray a = test::random(sa, float32(), 11, positive ? 0.1 : -2, 2), b = test::random(sb, float32(), 12, positive ? 0.1 : -2, 2);
  // Make some equal elements for comparisons.
  if (sa == sb) for (int64_t i = 0; i < a.size(); i += 3) b.set(i, a.get(i));
  auto va = test::to_vec(a), vb = test::to_vec(b);
  std::vector<float> exp(test::numel(so));
  for (int64_t f = 0; f < test::numel(so); f++) {
    auto idx = test::unflatten(f, so);
    exp[f] = static_cast<float>(ref(va[bflat(idx, sa)], vb[bflat(idx, sb)]));
  }
  auto out = evaluate({C}, {A, B}, {a, b});
  test::expect_close(out[0], exp, so, out_dt);
}

const std::vector<std::pair<Shape, Shape>> kShapes = {
    {{7, 13}, {7, 13}}, {{7, 13}, {13}}, {{3, 1, 5}, {4, 1}}, {{1}, {2, 3, 4}}, {{2, 1, 3}, {1, 4, 1}}, {{5, 1}, {1, 6}}};

TEST(Elementwise, BinaryArithmetic) {
  for (auto &s : kShapes) {
    check_binary([](auto a, auto b) { return ops::add(a, b); }, [](double x, double y) { return x + y; }, s.first, s.second);
    check_binary([](auto a, auto b) { return ops::sub(a, b); }, [](double x, double y) { return x - y; }, s.first, s.second);
    check_binary([](auto a, auto b) { return ops::mul(a, b); }, [](double x, double y) { return x * y; }, s.first, s.second);
    check_binary([](auto a, auto b) { return ops::div(a, b); }, [](double x, double y) { return x / y; }, s.first, s.second, true);
    check_binary([](auto a, auto b) { return ops::pow(a, b); }, [](double x, double y) { return std::pow(x, y); }, s.first, s.second, true);
    check_binary([](auto a, auto b) { return ops::maximum(a, b); }, [](double x, double y) { return std::max(x, y); }, s.first, s.second);
    check_binary([](auto a, auto b) { return ops::minimum(a, b); }, [](double x, double y) { return std::min(x, y); }, s.first, s.second);
  }
}

TEST(Elementwise, Comparisons) {
  for (auto &s : kShapes) {
    check_binary([](auto a, auto b) { return ops::equal(a, b); }, [](double x, double y) { return x == y; }, s.first, s.second, false, boolean());
    check_binary([](auto a, auto b) { return ops::less(a, b); }, [](double x, double y) { return x < y; }, s.first, s.second, false, boolean());
    check_binary([](auto a, auto b) { return ops::greater(a, b); }, [](double x, double y) { return x > y; }, s.first, s.second, false, boolean());
  }
}

TEST(Elementwise, RankZeroAndScalarLike) {
  check_binary([](auto a, auto b) { return ops::add(a, b); }, [](double x, double y) { return x + y; }, {3, 4}, {1, 1});
  Tensor A = placeholder({3}, float32(), "A");
  Tensor S = compute({}, [&](const std::vector<Var> &) { return make_float(2.5); }, "S");
  Tensor C = ops::mul(A, S);
  ASSERT_EQ(C.shape(), (Shape{3}));
  auto out = evaluate({C}, {A}, {test::from_vec({3}, {1, 2, -4})});
  test::expect_close(out[0], {2.5f, 5.0f, -10.0f}, {3});
}

TEST(Elementwise, IntegerDivIsFloor) {
  Tensor A = placeholder({4}, int32(), "A"), B = placeholder({1}, int32(), "B");
  auto out = evaluate({ops::div(A, B)}, {A, B}, {test::from_vec({4}, {7, -7, 6, -1}, int32()), test::from_vec({1}, {2}, int32())});
  EXPECT_EQ(test::to_vec(out[0]), (std::vector<float>{3, -4, 3, -1}));
}

using UnOp = std::function<Tensor(const Tensor &)>;
using RefUn = std::function<double(double)>;

void check_unary(const std::string &what, const UnOp &op, const RefUn &ref, double lo = -3, double hi = 3,
                 DType dt = float32()) {
  SCOPED_TRACE(what + " " + dt.str());
  Shape s = {7, 13};
  Tensor X = placeholder(s, dt, "X");
  Tensor Y = op(X);
  EXPECT_EQ(Y->tag, "elemwise");
  EXPECT_EQ(Y.dtype(), dt);
  NDArray x = test::random(s, dt, 21, lo, hi);
  auto vx = test::to_vec(x);
  std::vector<float> exp;
  for (float v : vx) exp.push_back(static_cast<float>(ref(v)));
  auto out = evaluate({Y}, {X}, {x});
  test::expect_close(out[0], exp, s, dt);
}

TEST(Elementwise, Unary) {
  check_unary("neg", [](auto x) { return ops::neg(x); }, [](double v) { return -v; });
  check_unary("abs", [](auto x) { return ops::abs(x); }, [](double v) { return std::fabs(v); });
  check_unary("exp", [](auto x) { return ops::exp(x); }, [](double v) { return std::exp(v); });
  check_unary("log", [](auto x) { return ops::log(x); }, [](double v) { return std::log(v); }, 0.01, 5);
  check_unary("sqrt", [](auto x) { return ops::sqrt(x); }, [](double v) { return std::sqrt(v); }, 0, 5);
  check_unary("tanh", [](auto x) { return ops::tanh(x); }, [](double v) { return std::tanh(v); });
  check_unary("erf", [](auto x) { return ops::erf(x); }, [](double v) { return std::erf(v); });
  check_unary("sigmoid", [](auto x) { return ops::sigmoid(x); }, [](double v) { return 1 / (1 + std::exp(-v)); });
  check_unary("floor", [](auto x) { return ops::floor(x); }, [](double v) { return std::floor(v); });
  check_unary("ceil", [](auto x) { return ops::ceil(x); }, [](double v) { return std::ceil(v); });
  check_unary("round", [](auto x) { return ops::round(x); }, [](double v) { return std::nearbyint(v); });
  check_unary("reciprocal", [](auto x) { return ops::reciprocal(x); }, [](double v) { return 1 / v; }, 0.1, 4);
  check_unary("exp16", [](auto x) { return ops::exp(x); }, [](double v) { return std::exp(v); }, -2, 2, float16());
  check_unary("tanh_bf16", [](auto x) { return ops::tanh(x); }, [](double v) { return std::tanh(v); }, -2, 2, bfloat16());
  check_unary("neg_int8", [](auto x) { return ops::neg(x); }, [](double v) { return -v; }, -100, 100, int8());
  check_unary("abs_int32", [](auto x) { return ops::abs(x); }, [](double v) { return std::fabs(v); }, -100, 100, int32());
}

// The trigonometric and hyperbolic expressions, each as a compute in the interpreter and the kernel
// against libm, inside their domains (asin / acos / atanh on (-1, 1), acosh on [1, 4)).
TEST(Elementwise, TrigHyperbolic) {
  using F = Expr (*)(const Expr &);
  struct Case { const char *name; F te; double (*ref)(double); double lo, hi; };
  for (const Case &k : std::vector<Case>{{"sin", sin, std::sin, -3, 3}, {"cos", cos, std::cos, -3, 3},
                                         {"tan", tan, std::tan, -1.4, 1.4}, {"sinh", sinh, std::sinh, -3, 3},
                                         {"cosh", cosh, std::cosh, -3, 3}, {"asin", asin, std::asin, -0.99, 0.99},
                                         {"acos", acos, std::acos, -0.99, 0.99}, {"atan", atan, std::atan, -5, 5},
                                         {"asinh", asinh, std::asinh, -5, 5}, {"acosh", acosh, std::acosh, 1, 4},
                                         {"atanh", atanh, std::atanh, -0.9, 0.9}}) {
    check_unary(k.name, [&](const Tensor &x) {
      return ops::annotate(compute(x.shape(), [&](const std::vector<Var> &i) { return k.te(x(i[0], i[1])); }, k.name),
                           "elemwise");
    }, k.ref, k.lo, k.hi);
  }
}

TEST(Elementwise, RoundHalfToEven) {
  Tensor X = placeholder({6}, float32(), "X");
  auto out = evaluate({ops::round(X)}, {X}, {test::from_vec({6}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f})});
  EXPECT_EQ(test::to_vec(out[0]), (std::vector<float>{0, 2, 2, -0, -2, 2}));
}

TEST(Elementwise, Activations) {
  check_unary("relu", [](auto x) { return ops::relu(x); }, [](double v) { return v > 0 ? v : 0; });
  check_unary("relu_int", [](auto x) { return ops::relu(x); }, [](double v) { return v > 0 ? v : 0; }, -50, 50, int32());
  check_unary("leaky", [](auto x) { return ops::leaky_relu(x, 0.1); }, [](double v) { return v >= 0 ? v : 0.1 * v; });
  check_unary("clip", [](auto x) { return ops::clip(x, -0.5, 1.25); }, [](double v) { return std::min(std::max(v, -0.5), 1.25); });
  check_unary("clip_int", [](auto x) { return ops::clip(x, -10.5, 20); }, [](double v) { return std::min(std::max(v, -10.0), 20.0); }, -50, 50, int32());
  check_unary("hard_sigmoid", [](auto x) { return ops::hard_sigmoid(x); }, [](double v) { return std::max(0.0, std::min(1.0, 0.2 * v + 0.5)); });
  check_unary("hard_sigmoid_ab", [](auto x) { return ops::hard_sigmoid(x, 0.3, 0.4); }, [](double v) { return std::max(0.0, std::min(1.0, 0.3 * v + 0.4)); });
  check_unary("hard_swish", [](auto x) { return ops::hard_swish(x); }, [](double v) { return v * std::max(0.0, std::min(1.0, v / 6 + 0.5)); }, -5, 5);
  check_unary("gelu", [](auto x) { return ops::gelu(x); }, [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); });
  Tensor X = placeholder({2}, float32(), "X");
  EXPECT_THROW(ops::clip(X, 2, 1), AttributeError);
  EXPECT_EQ(ops::leaky_relu(X, 0.25)->attrs.at("alpha"), "0.25");
}

TEST(Elementwise, Where) {
  for (auto shapes : std::vector<std::vector<Shape>>{{{4, 5}, {4, 5}, {4, 5}}, {{4, 1}, {5}, {1, 5}}, {{1}, {3, 4}, {1}}, {{2, 1, 3}, {4, 1}, {3}}}) {
    Shape sc = shapes[0], sa = shapes[1], sb = shapes[2];
    Tensor Cn = placeholder(sc, boolean(), "C"), A = placeholder(sa, float32(), "A"), B = placeholder(sb, float32(), "B");
    Tensor W = ops::where(Cn, A, B);
    Shape so = ops::broadcast_shapes(ops::broadcast_shapes(sc, sa), sb);
    ASSERT_EQ(W.shape(), so);
    NDArray c = test::random(sc, boolean(), 1, -1, 1), a = test::random(sa, float32(), 2), b = test::random(sb, float32(), 3);
    auto vc = test::to_vec(c), va = test::to_vec(a), vb = test::to_vec(b);
    std::vector<float> exp;
    for (int64_t f = 0; f < test::numel(so); f++) {
      auto idx = test::unflatten(f, so);
      exp.push_back(vc[bflat(idx, sc)] != 0 ? va[bflat(idx, sa)] : vb[bflat(idx, sb)]);
    }
    test::expect_close(evaluate({W}, {Cn, A, B}, {c, a, b})[0], exp, so);
  }
  Tensor A = placeholder({2}, float32(), "A");
  EXPECT_THROW(ops::where(A, A, A), DTypeError);
}

TEST(Elementwise, Errors) {
  Tensor A = placeholder({2, 3}, float32(), "A"), B = placeholder({4, 3}, float32(), "B"), I = placeholder({2, 3}, int32(), "I");
  EXPECT_THROW(ops::add(A, B), ShapeError);
  EXPECT_THROW(ops::add(A, I), DTypeError);
  EXPECT_THROW(ops::exp(I), DTypeError);
  EXPECT_EQ(ops::add(A, A, "myadd").name(), "myadd");
  EXPECT_EQ(ops::add(A, A)->attrs.at("op"), "Add");
}

}  // namespace
}  // namespace tetune
