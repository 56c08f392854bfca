// NaN follows IEEE 754 and ONNX (onnxruntime) in every operator that uses max / min / select or
// Halide's exp / log / pow: a NaN input gives a NaN output (issue 21, item 3: Relu(NaN) was 0,
// Clip(NaN) 6, Sigmoid(NaN) 1). Each case runs in the interpreter, the unscheduled kernel, and a
// kernel with every stage vectorized (x86 maxps / minps drop NaN operands), and checks the NaN
// positions explicitly: all_close counts NaN == NaN as equal, so a number where NaN belongs fails.
#include <cmath>
#include <functional>
#include <limits>

#include "te/ops/elementwise.h"
#include "te/ops/pool.h"
#include "te/ops/reduce.h"
#include "te/ops/softmax.h"
#include "tests/te/op_test_util.h"

namespace tetune {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();

// Every stage's innermost spatial axis split by 8 and vectorized.
Schedule vectorized(const std::vector<Tensor> &outputs) {
  Schedule s(outputs);
  for (const auto &st : s.stages()) {
    if (st.kind != StageInfo::Compute || st.spatial_axes.empty() || st.shape.back() % 8 != 0) continue;
    auto parts = s.split(st.name, st.spatial_axes.back(), 8);
    s.vectorize(st.name, parts.second);
  }
  return s;
}

// The interpreter's, the unscheduled kernel's (test::evaluate checks the two agree) and the
// vectorized kernel's results, each checked against `expected` (NaN where expected is NaN).
void expect_nan_exact(const std::vector<Tensor> &outputs, const std::vector<Tensor> &inputs,
                      const std::vector<NDArray> &data, const std::vector<float> &expected) {
  std::vector<NDArray> ref = test::evaluate(outputs, inputs, data);
  Schedule s = vectorized(outputs);
  std::vector<NDArray> args;
  for (const auto &p : s.inputs())
    for (size_t i = 0; i < inputs.size(); i++)
      if (inputs[i].same_as(p)) args.push_back(data[i]);
  std::vector<NDArray> vec = Kernel::build(s).run(args);
  Shape shape = outputs[0].shape();
  for (const auto &[what, got] : {std::make_pair("interpreter", ref[0]), std::make_pair("vectorized kernel", vec[0])}) {
    SCOPED_TRACE(what);
    ASSERT_EQ(got.size(), static_cast<int64_t>(expected.size()));
    for (int64_t i = 0; i < got.size(); i++) {
      float e = expected[static_cast<size_t>(i)];
      double g = got.get(i);
      if (std::isnan(e)) EXPECT_TRUE(std::isnan(g)) << "element " << i << ": " << g << ", expected NaN";
      else EXPECT_NEAR(g, e, 1e-4 + 1e-4 * std::fabs(e)) << "element " << i;
    }
  }
  test::expect_close(vec[0], ref[0], outputs[0].dtype());
}

// 2 x 16 values: NaN at 0, 5, 9 (inside a vector of 8) and 31; the rest in [-3, 3).
NDArray with_nans(const Shape &shape = {2, 16}, uint64_t seed = 5, DType dt = float32()) {
  NDArray x = test::random(shape, dt, seed, -3, 3);
  for (int64_t i : {int64_t(0), int64_t(5), int64_t(9), x.size() - 1}) x.set(i, kNaN);
  return x;
}

// expected[i] = f(x[i]) with the C++ library's NaN behaviour.
std::vector<float> map(const NDArray &x, const std::function<double(double)> &f) {
  std::vector<float> r;
  for (int64_t i = 0; i < x.size(); i++) r.push_back(static_cast<float>(f(x.get(i))));
  return r;
}

void check_unary(const std::string &what, const std::function<Tensor(const Tensor &)> &op,
                 const std::function<double(double)> &ref, DType dt = float32()) {
  SCOPED_TRACE(what);
  Tensor X = placeholder({2, 16}, dt, "X");
  NDArray x = with_nans({2, 16}, 5, dt);
  expect_nan_exact({op(X)}, {X}, {x}, map(x, ref));
}

double nan_or(double v, double r) { return std::isnan(v) ? v : r; }

TEST(NaN, Activations) {
  check_unary("relu", [](auto x) { return ops::relu(x); }, [](double v) { return nan_or(v, std::max(v, 0.0)); });
  check_unary("clip", [](auto x) { return ops::clip(x, 0, 6); },
              [](double v) { return nan_or(v, std::min(std::max(v, 0.0), 6.0)); });
  check_unary("clip_lower_only", [](auto x) { return ops::clip(x, -1, std::numeric_limits<double>::infinity()); },
              [](double v) { return nan_or(v, std::max(v, -1.0)); });
  check_unary("leaky_relu", [](auto x) { return ops::leaky_relu(x, 0.1); },
              [](double v) { return v >= 0 ? v : 0.1 * v; });
  check_unary("hard_sigmoid", [](auto x) { return ops::hard_sigmoid(x, 0.2, 0.5); },
              [](double v) { return nan_or(v, std::max(0.0, std::min(1.0, 0.2 * v + 0.5))); });
  check_unary("hard_swish", [](auto x) { return ops::hard_swish(x); },
              [](double v) { return nan_or(v, v * std::max(0.0, std::min(1.0, v / 6 + 0.5))); });
  // ONNX graphs write HardSwish as Mul(x, HardSigmoid(x)); the clamp's own NaN tests are left out there.
  check_unary("mul_hard_sigmoid", [](auto x) { return ops::mul(x, ops::hard_sigmoid(x, 1.0 / 6, 0.5)); },
              [](double v) { return v * std::max(0.0, std::min(1.0, v / 6 + 0.5)); });
  check_unary("sigmoid", [](auto x) { return ops::sigmoid(x); }, [](double v) { return 1 / (1 + std::exp(-v)); });
  check_unary("gelu", [](auto x) { return ops::gelu(x); },
              [](double v) { return 0.5 * v * (1 + std::erf(v * M_SQRT1_2)); });
}

TEST(NaN, ExpLogTanh) {
  // Halide's exp gave 0 or inf for NaN, its log 89.1.
  check_unary("exp", [](auto x) { return ops::exp(x); }, [](double v) { return std::exp(v); });
  check_unary("log", [](auto x) { return ops::log(ops::abs(x)); }, [](double v) { return std::log(std::fabs(v)); });
  check_unary("tanh", [](auto x) { return ops::tanh(x); }, [](double v) { return std::tanh(v); });
}

TEST(NaN, MaxMinPowEitherOperand) {
  Tensor A = placeholder({2, 16}, float32(), "A"), B = placeholder({2, 16}, float32(), "B");
  NDArray a = with_nans({2, 16}, 7), b = test::random({2, 16}, float32(), 8, 0.5, 2);
  b.set(1, kNaN);   // NaN in the second operand only
  b.set(5, kNaN);   // in both
  b.set(12, 0.0f);  // pow(x, 0) = 1
  a.set(14, 1.0f);
  b.set(14, kNaN);  // pow(1, NaN) = 1
  a.set(20, kNaN);
  b.set(20, 0.0f);  // pow(NaN, 0) = 1
  auto both = [&](const std::function<double(double, double)> &f) {
    std::vector<float> r;
    for (int64_t i = 0; i < a.size(); i++) r.push_back(static_cast<float>(f(a.get(i), b.get(i))));
    return r;
  };
  auto nan_max = [](double x, double y) { return std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y); };
  auto nan_min = [](double x, double y) { return std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y); };
  {
    SCOPED_TRACE("max");
    expect_nan_exact({ops::maximum(A, B)}, {A, B}, {a, b}, both(nan_max));
  }
  {
    SCOPED_TRACE("max, operands swapped");
    expect_nan_exact({ops::maximum(B, A)}, {A, B}, {a, b}, both(nan_max));
  }
  {
    SCOPED_TRACE("min");
    expect_nan_exact({ops::minimum(A, B)}, {A, B}, {a, b}, both(nan_min));
  }
  {
    SCOPED_TRACE("pow");
    expect_nan_exact({ops::pow(ops::abs(A), B)}, {A, B}, {a, b},
                     both([](double x, double y) { return std::pow(std::fabs(x), y); }));
  }
}

// relu(a + b) with the add inlined: the NaN comes out of an fadd that LLVM marks "no NaNs" under
// Halide's fast-math flags, where an fcmp-based NaN test would be folded away.
TEST(NaN, ReluOfInlinedAdd) {
  Tensor A = placeholder({2, 16}, float32(), "A"), B = placeholder({2, 16}, float32(), "B");
  Tensor S = ops::add(A, B, "sum"), R = ops::relu(S, "relu");
  NDArray a = with_nans({2, 16}, 3), b = test::random({2, 16}, float32(), 4, -3, 3);
  b.set(2, kNaN);
  std::vector<float> want;
  for (int64_t i = 0; i < a.size(); i++) {
    double v = a.get(i) + b.get(i);
    want.push_back(static_cast<float>(std::isnan(v) ? v : std::max(v, 0.0)));
  }
  Schedule s({R});
  s.compute_inline(s.stage_of(S));
  auto parts = s.split(s.stage_of(R), "j", 8);
  s.vectorize(s.stage_of(R), parts.second);
  NDArray got = Kernel::build(s).run({a, b})[0];
  for (int64_t i = 0; i < got.size(); i++) {
    if (std::isnan(want[i])) EXPECT_TRUE(std::isnan(got.get(i))) << "element " << i << ": " << got.get(i);
    else EXPECT_FLOAT_EQ(got.get(i), want[i]) << "element " << i;
  }
  expect_nan_exact({R}, {A, B}, {a, b}, want);
}

// The swish s * sigmoid(s) of an inlined sum (a conv's output and bias), everything inlined, in
// either operand order: exp(-s)'s own NaN test is left out (the product is NaN where s is), and
// the result is still NaN exactly where s is.
TEST(NaN, SwishOfInlinedAdd) {
  for (bool sigmoid_first : {false, true}) {
    SCOPED_TRACE(sigmoid_first ? "sigmoid(s) * s" : "s * sigmoid(s)");
    Tensor A = placeholder({2, 16}, float32(), "A"), B = placeholder({2, 16}, float32(), "B");
    Tensor S = ops::add(A, B, "sum"), G = ops::sigmoid(S, "sig");
    Tensor M = sigmoid_first ? ops::mul(G, S, "swish") : ops::mul(S, G, "swish");
    NDArray a = with_nans({2, 16}, 3), b = test::random({2, 16}, float32(), 4, -3, 3);
    b.set(2, kNaN);
    a.set(7, 100.0f), a.set(8, -100.0f), a.set(10, std::numeric_limits<float>::infinity());
    a.set(11, -std::numeric_limits<float>::infinity());
    std::vector<float> want;
    for (int64_t i = 0; i < a.size(); i++) {
      double v = a.get(i) + b.get(i);
      want.push_back(static_cast<float>(v * (1 / (1 + std::exp(-v)))));  // -inf * sigmoid(-inf) = -inf * 0: NaN
    }
    Schedule s({M});
    s.compute_inline(s.stage_of(S));
    s.compute_inline(s.stage_of(G));
    auto parts = s.split(s.stage_of(M), "j", 8);
    s.vectorize(s.stage_of(M), parts.second);
    Kernel k = Kernel::build(s);
    // A NaN test compares a value's magnitude bits with +inf's, 0x7f800000 = 2139095040.
    EXPECT_EQ(k.lowered_stmt().find("2139095040"), std::string::npos) << k.lowered_stmt();
    Schedule alone({G});
    alone.compute_inline(alone.stage_of(S));
    EXPECT_NE(Kernel::build(alone).lowered_stmt().find("2139095040"), std::string::npos) << "sigmoid alone keeps it";
    NDArray got = k.run({a, b})[0];
    for (int64_t i = 0; i < got.size(); i++) {
      if (std::isnan(want[i])) EXPECT_TRUE(std::isnan(got.get(i))) << "element " << i << ": " << got.get(i);
      else if (std::isinf(want[i])) EXPECT_EQ(got.get(i), want[i]) << "element " << i;
      else EXPECT_NEAR(got.get(i), want[i], 1e-6 + 1e-6 * std::fabs(want[i])) << "element " << i;
    }
  }
}

// is_nan / is_inf of an inlined sum: a compare on a fast-math result would fold to false.
TEST(NaN, IsNanIsInfOfInlinedAdd) {
  const float kInf = std::numeric_limits<float>::infinity();
  Tensor A = placeholder({2, 16}, float32(), "A"), B = placeholder({2, 16}, float32(), "B");
  Tensor S = ops::add(A, B, "sum");
  Tensor N = compute(S.shape(), [&](const std::vector<Var> &i) { return is_nan(S(i[0], i[1])); }, "isnan");
  Tensor I = compute(S.shape(), [&](const std::vector<Var> &i) { return is_inf(S(i[0], i[1])); }, "isinf");
  EXPECT_EQ(N.dtype(), boolean());
  NDArray a = with_nans({2, 16}, 3), b = test::random({2, 16}, float32(), 4, -3, 3);
  a.set(3, kInf);
  b.set(4, -kInf);
  a.set(6, kInf);
  b.set(6, -kInf);  // inf + -inf: NaN, not inf
  std::vector<float> want_nan, want_inf;
  for (int64_t i = 0; i < a.size(); i++) {
    double v = static_cast<float>(a.get(i) + b.get(i));
    want_nan.push_back(std::isnan(v) ? 1 : 0);
    want_inf.push_back(std::isinf(v) ? 1 : 0);
  }
  EXPECT_EQ(want_nan[6], 1);
  EXPECT_EQ(want_inf[3], 1);
  expect_nan_exact({N}, {A, B}, {a, b}, want_nan);
  expect_nan_exact({I}, {A, B}, {a, b}, want_inf);
  Schedule s({N});
  s.compute_inline(s.stage_of(S));
  NDArray got = Kernel::build(s).run({a, b})[0];
  for (int64_t i = 0; i < got.size(); i++) EXPECT_EQ(got.get(i), want_nan[static_cast<size_t>(i)]) << "element " << i;
}

TEST(NaN, Reductions) {
  Tensor X = placeholder({2, 16}, float32(), "X");
  NDArray x = test::random({2, 16}, float32(), 9, -3, 3);
  x.set(7, kNaN);  // row 0 only; row 1 stays finite
  for (bool is_max : {true, false}) {
    SCOPED_TRACE(is_max ? "reduce_max" : "reduce_min");
    Tensor Y = is_max ? ops::reduce_max(X, {1}, true) : ops::reduce_min(X, {1}, true);
    double m = is_max ? -INFINITY : INFINITY;
    for (int64_t j = 16; j < 32; j++) m = is_max ? std::max(m, x.get(j)) : std::min(m, x.get(j));
    expect_nan_exact({Y}, {X}, {x}, {kNaN, static_cast<float>(m)});
  }
  // Down the columns of a 4 x 16 array, the update vectorized: a NaN first (column 2) or last
  // (column 5) in the reduction order. A max that keeps one operand on NaN passes one, not both.
  Tensor C = placeholder({4, 16}, float32(), "C");
  NDArray c = test::random({4, 16}, float32(), 10, -3, 3);
  c.set(2, kNaN);
  c.set(3 * 16 + 5, kNaN);
  std::vector<float> want;
  for (int64_t j = 0; j < 16; j++) {
    double m = -INFINITY;
    for (int64_t i = 0; i < 4; i++) m = std::max(m, c.get(i * 16 + j));
    want.push_back(j == 2 || j == 5 ? kNaN : static_cast<float>(m));
  }
  expect_nan_exact({ops::reduce_max(C, {0}, true)}, {C}, {c}, want);
}

TEST(NaN, SoftmaxRow) {
  Tensor X = placeholder({2, 16}, float32(), "X");
  NDArray x = test::random({2, 16}, float32(), 11, -3, 3);
  x.set(3, kNaN);
  std::vector<float> want(32, kNaN);
  double mx = -INFINITY, sum = 0;
  for (int64_t j = 16; j < 32; j++) mx = std::max(mx, x.get(j));
  for (int64_t j = 16; j < 32; j++) sum += std::exp(x.get(j) - mx);
  for (int64_t j = 16; j < 32; j++) want[j] = static_cast<float>(std::exp(x.get(j) - mx) / sum);
  expect_nan_exact({ops::softmax(X, 1)}, {X}, {x}, want);
}

TEST(NaN, MaxPoolWindow) {
  // 1x1x4x16, 2x2 windows, stride 2: the NaN at (0, 3) is in output (0, 1) only.
  Tensor X = placeholder({1, 1, 4, 16}, float32(), "X");
  NDArray x = test::random({1, 1, 4, 16}, float32(), 12, -3, 3);
  x.set(3, kNaN);
  Tensor Y = ops::max_pool2d(X, {2, 2}, {2, 2});
  std::vector<float> want;
  for (int oh = 0; oh < 2; oh++)
    for (int ow = 0; ow < 8; ow++) {
      double m = -INFINITY;
      for (int dh = 0; dh < 2; dh++)
        for (int dw = 0; dw < 2; dw++) {
          double v = x.get((2 * oh + dh) * 16 + 2 * ow + dw);
          m = std::isnan(v) || std::isnan(m) ? NAN : std::max(m, v);
        }
      want.push_back(static_cast<float>(m));
    }
  ASSERT_TRUE(std::isnan(want[1]));
  expect_nan_exact({Y}, {X}, {x}, want);
}

}  // namespace
}  // namespace tetune
