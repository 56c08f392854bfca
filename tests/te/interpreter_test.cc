// Core TE language and interpreter semantics.
#include <cmath>

#include "base/errors.h"
#include "te/ops/elementwise.h"
#include "te/structural_hash.h"
#include "tests/te/op_test_util.h"

namespace tetune {
namespace {

using test::evaluate;

template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

TEST(Interpreter, ElementwiseAndBroadcastLoop) {
  Tensor A = placeholder({7, 13}, float32(), "A");
  Tensor B = compute({7, 13}, [&](const std::vector<Var> &i) { return A(i[0], i[1]) * 2.0f + 1.0f; }, "B");
  NDArray a = test::random({7, 13});
  auto out = evaluate({B}, {A}, {a});
  std::vector<float> ref;
  for (float v : test::to_vec(a)) ref.push_back(v * 2 + 1);
  test::expect_close(out[0], ref, {7, 13});
}

TEST(Interpreter, IntegerDivModHalideSemantics) {
  Tensor A = placeholder({6}, int32(), "A");
  Tensor B = placeholder({6}, int32(), "B");
  Tensor D = compute({6}, [&](const std::vector<Var> &i) { return A(i[0]) / B(i[0]); }, "D");
  Tensor M = compute({6}, [&](const std::vector<Var> &i) { return A(i[0]) % B(i[0]); }, "M");
  NDArray a = test::from_vec({6}, {7, -7, 7, -7, 5, 0}, int32());
  NDArray b = test::from_vec({6}, {2, 2, -2, -2, 0, 3}, int32());
  auto out = evaluate({D, M}, {A, B}, {a, b});
  // Euclidean: 0 <= r < |b|, a = q*b + r; x/0 = 0, x%0 = 0.
  EXPECT_EQ(test::to_vec(out[0]), (std::vector<float>{3, -4, -3, 4, 0, 0}));
  EXPECT_EQ(test::to_vec(out[1]), (std::vector<float>{1, 1, 1, 1, 0, 0}));
}

TEST(Interpreter, FloatModIsFloored) {
  Tensor A = placeholder({3}, float32(), "A");
  Tensor M = compute({3}, [&](const std::vector<Var> &i) { return A(i[0]) % 2.0f; }, "M");
  auto out = evaluate({M}, {A}, {test::from_vec({3}, {5.5f, -0.5f, 4.0f})});
  EXPECT_EQ(test::to_vec(out[0]), (std::vector<float>{1.5f, 1.5f, 0.0f}));
}

TEST(Interpreter, CastTruncatesTowardZeroAndWraps) {
  Tensor A = placeholder({5}, float32(), "A");
  Tensor C = compute({5}, [&](const std::vector<Var> &i) { return cast(int32(), A(i[0])); }, "C");
  Tensor I = placeholder({3}, int32(), "I");
  Tensor W = compute({3}, [&](const std::vector<Var> &i) { return cast(int8(), I(i[0])); }, "W");
  Tensor R = compute({5}, [&](const std::vector<Var> &i) { return round(A(i[0])); }, "R");
  auto out = evaluate({C, W, R}, {A, I}, {test::from_vec({5}, {2.7f, -2.7f, 0.5f, 1.5f, -3.5f}), test::from_vec({3}, {127, 128, -129}, int32())});
  EXPECT_EQ(test::to_vec(out[0]), (std::vector<float>{2, -2, 0, 1, -3}));
  EXPECT_EQ(test::to_vec(out[1]), (std::vector<float>{127, -128, 127}));
  EXPECT_EQ(test::to_vec(out[2]), (std::vector<float>{3, -3, 0, 2, -4}));  // half to even
}

TEST(Interpreter, SelectAndComparisons) {
  Tensor A = placeholder({4}, float32(), "A");
  Tensor S = compute({4}, [&](const std::vector<Var> &i) { return select(A(i[0]) > 0.0f && Expr(i[0]) < 3, A(i[0]), -1.0f); }, "S");
  auto out = evaluate({S}, {A}, {test::from_vec({4}, {1, -2, 3, 4})});
  EXPECT_EQ(test::to_vec(out[0]), (std::vector<float>{1, -1, 3, -1}));
}

TEST(Interpreter, ReductionsWithIdentity) {
  Tensor A = placeholder({3, 5}, float32(), "A");
  auto red = [&](ReduceOp op, const char *name) {
    return compute({3}, [&](const std::vector<Var> &i) { IterVar k = reduce_axis(5, "k"); return reduce(op, A(i[0], k.var), {k}); }, name);
  };
  Tensor S = red(ReduceOp::Sum, "S"), P = red(ReduceOp::Prod, "P"), Mx = red(ReduceOp::Max, "Mx"), Mn = red(ReduceOp::Min, "Mn");
  NDArray a = test::random({3, 5}, float32(), 3);
  auto out = evaluate({S, P, Mx, Mn}, {A}, {a});
  auto v = test::to_vec(a);
  std::vector<float> s(3, 0), p(3, 1), mx(3, -INFINITY), mn(3, INFINITY);
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 5; k++) {
      float x = v[i * 5 + k];
      s[i] += x; p[i] *= x; mx[i] = std::max(mx[i], x); mn[i] = std::min(mn[i], x);
    }
  test::expect_close(out[0], s, {3});
  test::expect_close(out[1], p, {3});
  test::expect_close(out[2], mx, {3});
  test::expect_close(out[3], mn, {3});
}

TEST(Interpreter, IntegerOverflowWraps) {
  Tensor A = placeholder({2}, int8(), "A");
  Tensor B = compute({2}, [&](const std::vector<Var> &i) { return A(i[0]) + A(i[0]); }, "B");
  auto out = evaluate({B}, {A}, {test::from_vec({2}, {100, -100}, int8())});
  EXPECT_EQ(test::to_vec(out[0]), (std::vector<float>{-56, 56}));
}

TEST(Interpreter, OutOfRangeAccessNamesTensor) {
  Tensor A = placeholder({4}, float32(), "Ain");
  Tensor B = compute({4}, [&](const std::vector<Var> &i) { return A(Expr(i[0]) + 1); }, "B");
  std::string msg = error_of([&] { evaluate({B}, {A}, {test::random({4})}); });
  EXPECT_NE(msg.find("'Ain'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("index 4"), std::string::npos) << msg;
}

TEST(Interpreter, OutOfRangeInUntakenSelectBranchIsRejected) {
  Tensor A = placeholder({4}, float32(), "A");
  Tensor B = compute({4}, [&](const std::vector<Var> &i) { return select(Expr(i[0]) < 3, A(Expr(i[0]) + 1), 0.0f); }, "B");
  EXPECT_THROW(evaluate({B}, {A}, {test::random({4})}), Error);
}

TEST(Interpreter, InputMismatchesRaiseShapeError) {
  Tensor A = placeholder({2, 3}, float32(), "Ain");
  Tensor Bp = placeholder({2, 3}, float32(), "Bin");
  Tensor C = compute({2, 3}, [&](const std::vector<Var> &i) { return A(i[0], i[1]) + Bp(i[0], i[1]); }, "C");
  std::string msg;
  try { evaluate({C}, {A, Bp}, {test::random({3, 2}), test::random({2, 3})}); } catch (const ShapeError &e) { msg = e.what(); }
  EXPECT_NE(msg.find("'Ain'"), std::string::npos) << msg;
  msg.clear();
  try { evaluate({C}, {A, Bp}, {test::random({2, 3}), test::random({2, 3}, float16())}); } catch (const ShapeError &e) { msg = e.what(); }
  EXPECT_NE(msg.find("'Bin'"), std::string::npos) << msg;
  msg.clear();
  try { evaluate({C}, {A}, {test::random({2, 3})}); } catch (const ShapeError &e) { msg = e.what(); }
  EXPECT_NE(msg.find("'Bin'"), std::string::npos) << msg;
  EXPECT_THROW(evaluate({C}, {A, Bp}, {test::random({2, 3})}), ShapeError);
}

TEST(Core, DTypeMismatchRaisesDTypeError) {
  Tensor A = placeholder({2}, float32(), "A");
  Tensor B = placeholder({2}, float16(), "B");
  Tensor I = placeholder({2}, int32(), "I");
  EXPECT_THROW(compute({2}, [&](const std::vector<Var> &i) { return A(i[0]) + B(i[0]); }, "C"), DTypeError);
  EXPECT_THROW(compute({2}, [&](const std::vector<Var> &i) { return A(i[0]) * I(i[0]); }, "C"), DTypeError);
  EXPECT_THROW(ops::add(A, B), DTypeError);
  EXPECT_THROW(compute({2}, [&](const std::vector<Var> &i) { return exp(I(i[0])); }, "C"), DTypeError);
}

TEST(Core, WrongRankAccessNamesTensor) {
  Tensor A = placeholder({2, 3}, float32(), "Arank");
  std::string msg;
  try { compute({2}, [&](const std::vector<Var> &i) { return A(i[0]); }, "C"); } catch (const ShapeError &e) { msg = e.what(); }
  EXPECT_NE(msg.find("'Arank'"), std::string::npos) << msg;
}

TEST(Core, NestedReductionRejected) {
  Tensor A = placeholder({4, 4}, float32(), "A");
  EXPECT_THROW(compute({4}, [&](const std::vector<Var> &i) {
                 IterVar k = reduce_axis(4, "k");
                 return sum(A(i[0], k.var), {k}) + 1.0f;
               }, "C"), Error);
  EXPECT_THROW(compute({4}, [&](const std::vector<Var> &i) {
                 IterVar k = reduce_axis(4, "k"), k2 = reduce_axis(4, "k2");
                 return sum(max(A(i[0], k.var), {k}) * A(i[0], k2.var), {k2});
               }, "C"), Error);
}

TEST(Core, WorkloadKeyIgnoresNamesButNotShapes) {
  auto build = [](int64_t n, const std::string &prefix) {
    Tensor A = placeholder({n, 8}, float32(), prefix + "A");
    Tensor B = placeholder({8, 5}, float32(), prefix + "B");
    Tensor C = compute({n, 5}, [&](const std::vector<Var> &i) {
      IterVar k = reduce_axis(8, prefix + "k");
      return sum(A(i[0], k.var) * B(k.var, i[1]), {k});
    }, prefix + "C", "", {prefix + "i", prefix + "j"});
    return C;
  };
  EXPECT_EQ(workload_key({build(4, "x")}), workload_key({build(4, "other")}));
  EXPECT_NE(workload_key({build(4, "x")}), workload_key({build(6, "x")}));
  EXPECT_EQ(workload_key({build(4, "x")}).size(), 16u);
}

// Low-precision and integer dtypes through cast and add.
TEST(Core, LowPrecisionDTypesThroughCastAndAdd) {
  for (DType dt : {float16(), bfloat16(), float64(), int8(), uint8(), int16(), uint16(), int32(), uint32(), int64(),
                   uint64()}) {
    SCOPED_TRACE(dt.str());
    Tensor A = placeholder({3, 5}, float32(), "A");
    Tensor B = placeholder({3, 5}, dt, "B");
    Tensor c = ops::cast(A, dt);
    Tensor s = ops::add(c, B);
    double lo = dt.is_uint() ? 0 : -20, hi = 20;
    NDArray a = test::random({3, 5}, float32(), 5, lo, hi), b = test::random({3, 5}, dt, 6, lo, hi);
    auto out = evaluate({s, c}, {A, B}, {a, b});
    NDArray ref(Shape{3, 5}, dt), refc(Shape{3, 5}, dt);
    for (int64_t i = 0; i < 15; i++) {
      NDArray one(Shape{1}, dt);
      double x = a.get(i);
      one.set(0, dt.is_float() ? x : std::trunc(x));  // cast: round / truncate
      refc.set(i, one.get(0));
      ref.set(i, one.get(0) + b.get(i));
    }
    test::expect_close(out[1], refc, dt);
    test::expect_close(out[0], ref, dt);
  }
  // bool: cast to bool is x != 0; bool -> float is 0 / 1.
  Tensor A = placeholder({4}, float32(), "A");
  Tensor b = ops::cast(A, boolean());
  Tensor f = ops::cast(b, float32());
  auto out = evaluate({b, f}, {A}, {test::from_vec({4}, {0, 0.5f, -2, 0})});
  EXPECT_EQ(out[0].dtype(), boolean());
  EXPECT_EQ(test::to_vec(out[1]), (std::vector<float>{0, 1, 1, 0}));
}

TEST(Core, DTypeNamesRoundTrip) {
  for (DType dt : {float64(), float32(), float16(), bfloat16(), int8(), int16(), int32(), int64(), uint8(), uint16(),
                   uint32(), uint64(), boolean()})
    EXPECT_EQ(DType::parse(dt.str()), dt) << dt.str();
  EXPECT_EQ(float64().bytes(), 8);
  EXPECT_EQ(uint16().bytes(), 2);
  EXPECT_THROW(DType::parse("int4"), DTypeError);
}

TEST(Core, Float16RoundsLikeStorage) {
  Tensor A = placeholder({3}, float32(), "A");
  Tensor h = ops::cast(A, float16());
  auto out = evaluate({h}, {A}, {test::from_vec({3}, {1.0f + 1.0f / 4096, 65519.0f, 3.14159f})});
  EXPECT_EQ(test::to_vec(out[0]), (std::vector<float>{1.0f, 65504.0f, half_to_float(float_to_half(3.14159f))}));
}

}  // namespace
}  // namespace tetune
