// codegen's NaN pass (codegen/nan_semantics.h) tests each non-constant operand of a float max / min
// for NaN, except in a product x * f, which is NaN wherever x is: there drop_nan_tests_of leaves
// out f's tests of values that are NaN only where x is (HardSwish's clamp of x, the swish
// x * sigmoid(x)'s exp(-x)). Checked on the rewritten expressions: a test
// shows up as a select on the operand's bits.
#include <gtest/gtest.h>

#include <Halide.h>

#include "codegen/nan_semantics.h"
#include "codegen/vector_math.h"

namespace tetune {
namespace {

using Halide::Expr;

// Number of Select nodes in e (each NaN test the pass adds is one).
int selects(const Expr &e) {
  struct Count : Halide::Internal::IRVisitor {
    int n = 0;
    using IRVisitor::visit;
    void visit(const Halide::Internal::Select *op) override {
      n++;
      IRVisitor::visit(op);
    }
  } c;
  e.accept(&c);
  return c.n;
}

Expr clamp01(const Expr &e) { return Halide::max(Halide::min(e, 1.0f), 0.0f); }

TEST(NanMinMax, HardSwishClampIsLeftAsItIs) {
  Halide::Var x("x");
  Expr v = Halide::cast<float>(x) * 0.25f;  // a non-constant float
  EXPECT_EQ(selects(codegen::nan_propagating_min_max(v * clamp01(v * (1.0f / 6) + 0.5f))), 0);
  EXPECT_EQ(selects(codegen::nan_propagating_min_max(clamp01(v / 6.0f + 0.5f) * v)), 0) << "either operand order";
  EXPECT_EQ(selects(codegen::nan_propagating_min_max(v * clamp01(v))), 0);
  // The form Halide's simplifier gives HardSigmoid: the clamp inside, the shift outside.
  Expr simplified = Halide::max(Halide::min(v * (1.0f / 6), 0.5f), -0.5f) + 0.5f;
  EXPECT_EQ(selects(codegen::nan_propagating_min_max(simplified * v)), 0);
}

TEST(NanMinMax, OtherClampsAreTested) {
  Halide::Var x("x"), y("y");
  Expr v = Halide::cast<float>(x) * 0.25f, w = Halide::cast<float>(y) * 0.5f;
  EXPECT_GT(selects(codegen::nan_propagating_min_max(clamp01(v))), 0) << "HardSigmoid alone";
  EXPECT_GT(selects(codegen::nan_propagating_min_max(w * clamp01(v + 0.5f))), 0) << "a clamp of another value";
  // x * 0 is NaN at x = +-inf, where x is not: the clamp would turn that NaN into a number.
  EXPECT_GT(selects(codegen::nan_propagating_min_max(v * clamp01(v * 0.0f + 0.5f))), 0);
  EXPECT_GT(selects(codegen::nan_propagating_min_max(v * clamp01(v * w))), 0) << "scaled by a non-constant";
  // The clamped value's own max (a Relu before HardSwish) keeps its test, in both of its uses.
  Expr relu = Halide::max(v, 0.0f);
  const int relu_tests = selects(codegen::nan_propagating_min_max(relu));
  EXPECT_EQ(relu_tests, 1);
  EXPECT_EQ(selects(codegen::nan_propagating_min_max(relu * clamp01(relu / 6.0f + 0.5f))), 2 * relu_tests);
}

TEST(DropNanTestsOf, TheProductsOtherOperandKeepsNoTestOfX) {
  Halide::Var x("x"), y("y");
  Expr v = Halide::cast<float>(x) * 0.25f, w = Halide::cast<float>(y) * 0.5f;
  Expr sigmoid = 1.0f / (1.0f + codegen::vector_exp(-v));  // te::sigmoid, lowered
  const int tests = selects(sigmoid);
  EXPECT_EQ(selects(codegen::drop_nan_tests_of(sigmoid, v)), tests - 1) << "exp(-x)'s NaN test, its range selects kept";
  EXPECT_EQ(selects(codegen::drop_nan_tests_of(sigmoid, w)), tests) << "a test of another value";
  Expr log_v = codegen::keep_nan(v, Halide::log(v));
  EXPECT_EQ(selects(codegen::drop_nan_tests_of(log_v, v)), 0);
  auto log_test = [](const Expr &u) { return codegen::keep_nan(u, Halide::log(u)); };
  EXPECT_EQ(selects(codegen::drop_nan_tests_of(log_test(v * 2.0f - 1.0f), v)), 0) << "2x - 1 is NaN only where x is";
  EXPECT_EQ(selects(codegen::drop_nan_tests_of(log_test(v * 0.0f), v)), 1) << "x * 0 is NaN at x = inf too";
  EXPECT_EQ(selects(codegen::drop_nan_tests_of(log_test(v + w), v)), 1) << "x + y is NaN where y is";
  EXPECT_EQ(selects(codegen::drop_nan_tests_of(log_test(Halide::cast<float>(x)), v)), 1) << "x's operand, not x";
}

// The NaN test of a test: a clamp's max of a min, as the pass rewrites it,
// is NaN only where x is, so x times it keeps neither test (HardSwish).
TEST(DropNanTestsOf, NestedTestsOfAClampOfX) {
  Halide::Var x("x"), y("y");
  Expr v = Halide::cast<float>(x) * 0.25f, w = Halide::cast<float>(y) * 0.5f;
  Expr tested_clamp = codegen::nan_propagating_min_max(clamp01(v * 0.5f + 0.5f));
  ASSERT_GT(selects(tested_clamp), 0);
  EXPECT_EQ(selects(codegen::drop_nan_tests_of(tested_clamp, v)), 0);
  EXPECT_EQ(selects(codegen::drop_nan_tests_of(tested_clamp, w)), selects(tested_clamp));
  // The min's operand is NaN where x or y is: both tests stay.
  Expr of_two = codegen::nan_propagating_min_max(clamp01(v + w));
  EXPECT_EQ(selects(codegen::drop_nan_tests_of(of_two, v)), selects(of_two));
}

}  // namespace
}  // namespace tetune
