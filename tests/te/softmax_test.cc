// tetune::ops softmax / log_softmax vs plain loops.
#include <cmath>

#include "base/errors.h"
#include "te/ops/softmax.h"
#include "tests/te/op_test_util.h"

namespace tetune {
namespace {

using test::evaluate;

std::vector<float> softmax_ref(const std::vector<float> &x, const Shape &s, int ax, bool log_form) {
  int64_t outer = 1, inner = 1, n = s[ax];
  for (int d = 0; d < ax; d++) outer *= s[d];
  for (size_t d = ax + 1; d < s.size(); d++) inner *= s[d];
  std::vector<float> y(x.size());
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++) {
      double m = -INFINITY, sum = 0;
      for (int64_t k = 0; k < n; k++) m = std::max(m, double(x[(o * n + k) * inner + i]));
      for (int64_t k = 0; k < n; k++) sum += std::exp(x[(o * n + k) * inner + i] - m);
      for (int64_t k = 0; k < n; k++) {
        double v = x[(o * n + k) * inner + i];
        y[(o * n + k) * inner + i] = static_cast<float>(log_form ? v - m - std::log(sum) : std::exp(v - m) / sum);
      }
    }
  return y;
}

TEST(Softmax, AxesAndStability) {
  for (Shape s : {Shape{7, 13}, Shape{2, 3, 5}, Shape{11}}) {
    int r = static_cast<int>(s.size());
    for (int axis = -r; axis < r; axis++) {
      SCOPED_TRACE(shape_str(s) + " axis " + std::to_string(axis));
      Tensor X = placeholder(s, float32(), "X");
      NDArray x = test::random(s, float32(), 3, -40, 40);
      x.set(0, 500.0);  // would overflow exp without the max subtraction
      auto vx = test::to_vec(x);
      int ax = axis < 0 ? axis + r : axis;
      Tensor Y = ops::softmax(X, axis, "sm");
      Tensor L = ops::log_softmax(X, axis, "lsm");
      auto out = evaluate({Y, L}, {X}, {x});
      test::expect_close(out[0], softmax_ref(vx, s, ax, false), s);
      test::expect_close(out[1], softmax_ref(vx, s, ax, true), s);
    }
  }
}

TEST(Softmax, StagesAndErrors) {
  Tensor X = placeholder({4, 6}, float32(), "X");
  Tensor Y = ops::softmax(X, -1, "sm");
  EXPECT_EQ(Y->tag, "softmax");
  std::vector<std::string> names;
  for (const auto &t : post_order({Y})) names.push_back(t.name());
  EXPECT_EQ(names, (std::vector<std::string>{"X", "sm.max", "sm.exp", "sm.sum", "sm"}));
  EXPECT_THROW(ops::softmax(X, 2), AttributeError);
  EXPECT_THROW(ops::softmax(placeholder({3}, int32(), "I")), DTypeError);
  // float16 input.
  Tensor H = placeholder({3, 5}, float16(), "H");
  NDArray h = test::random({3, 5}, float16(), 4, -3, 3);
  test::expect_close(evaluate({ops::softmax(H)}, {H}, {h})[0], softmax_ref(test::to_vec(h), {3, 5}, 1, false), {3, 5}, float16());
}

}  // namespace
}  // namespace tetune
