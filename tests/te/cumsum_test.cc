// ops::cumsum against plain loops of the ONNX formula (Operators.md CumSum),
// all four exclusive / reverse combinations, along inner and outer axes.
#include <gtest/gtest.h>

#include <cmath>

#include "base/errors.h"
#include "te/ops/cumsum.h"
#include "tests/te/op_test_util.h"

namespace tetune {
namespace {

// Reference along axis 1 of x viewed as [outer, n, inner].
NDArray reference(const NDArray &x, int axis, bool exclusive, bool reverse) {
  int64_t outer = 1, inner = 1, n = x.shape()[axis];
  for (int d = 0; d < axis; d++) outer *= x.shape()[d];
  for (size_t d = axis + 1; d < x.shape().size(); d++) inner *= x.shape()[d];
  NDArray y(x.shape(), x.dtype());
  for (int64_t o = 0; o < outer; o++)
    for (int64_t c = 0; c < inner; c++) {
      double acc = 0;
      for (int64_t s = 0; s < n; s++) {
        int64_t i = reverse ? n - 1 - s : s, at = (o * n + i) * inner + c;
        if (exclusive) {
          y.set(at, acc);
          acc += x.get(at);
        } else {
          acc += x.get(at);
          y.set(at, acc);
        }
      }
    }
  return y;
}

void check(const Shape &shape, int64_t axis, bool exclusive, bool reverse, DType dt = float32()) {
  Tensor x = placeholder(shape, dt, "x");
  NDArray data = dt.is_float() ? test::random(shape, dt, 3) : test::random(shape, dt, 3, -50, 50);
  NDArray got = test::evaluate({ops::cumsum(x, axis, exclusive, reverse)}, {x}, {data})[0];
  int ax = static_cast<int>(axis < 0 ? axis + static_cast<int64_t>(shape.size()) : axis);
  test::expect_close(got, reference(data, ax, exclusive, reverse), dt);
}

TEST(CumSum, AllModesAlongEachAxis) {
  for (bool exclusive : {false, true})
    for (bool reverse : {false, true}) {
      check({7}, 0, exclusive, reverse);
      check({3, 5, 4}, 1, exclusive, reverse);
      check({3, 5, 4}, 0, exclusive, reverse);
      check({3, 5, 4}, -1, exclusive, reverse);
    }
}

TEST(CumSum, IntegersAreExact) {
  check({4, 6}, 1, false, false, int64());
  check({4, 6}, 1, true, true, int32());
}

TEST(CumSum, NaNReachesOnlyTheOutputsThatIncludeIt) {
  Tensor x = placeholder({5}, float32(), "x");
  NDArray d = test::from_vec({5}, {1, 2, NAN, 4, 5});
  NDArray fwd = test::evaluate({ops::cumsum(x, 0)}, {x}, {d})[0];
  EXPECT_EQ(fwd.get(1), 3);
  EXPECT_TRUE(std::isnan(fwd.get(2)) && std::isnan(fwd.get(4)));
  NDArray rev = test::evaluate({ops::cumsum(x, 0, true, true)}, {x}, {d})[0];  // sums of x[j], j > i
  EXPECT_TRUE(std::isnan(rev.get(0)) && std::isnan(rev.get(1)));
  EXPECT_EQ(rev.get(2), 9);
  EXPECT_EQ(rev.get(4), 0);
}

TEST(CumSum, AxisOutOfRangeIsRejected) {
  Tensor x = placeholder({3, 4}, float32(), "x");
  EXPECT_THROW(ops::cumsum(x, 2), AttributeError);
  EXPECT_THROW(ops::cumsum(x, -3), AttributeError);
}

}  // namespace
}  // namespace tetune
