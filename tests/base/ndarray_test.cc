// NDArray::get_int: exact int64 reads where get()'s double would round.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "base/ndarray.h"

namespace tetune {
namespace {

TEST(NDArray, GetIntIsExactForInt64Extremes) {
  NDArray a({4}, int64());
  a.data<int64_t>()[0] = INT64_MAX;
  a.data<int64_t>()[1] = INT64_MIN;
  a.data<int64_t>()[2] = (int64_t(1) << 53) + 1;  // not representable as a double
  a.data<int64_t>()[3] = -7;
  EXPECT_EQ(a.get_int(0), INT64_MAX);
  EXPECT_EQ(a.get_int(1), INT64_MIN);
  EXPECT_EQ(a.get_int(2), (int64_t(1) << 53) + 1);
  EXPECT_EQ(a.get_int(3), -7);
}

TEST(NDArray, GetIntSaturatesUint64AndFloats) {
  NDArray u({2}, DType{DType::UInt, 64});
  u.data<uint64_t>()[0] = UINT64_MAX;
  u.data<uint64_t>()[1] = 42;
  EXPECT_EQ(u.get_int(0), INT64_MAX);
  EXPECT_EQ(u.get_int(1), 42);
  NDArray f({4}, float32());
  f.data<float>()[0] = -2.75f;
  f.data<float>()[1] = 1e30f;
  f.data<float>()[2] = -1e30f;
  f.data<float>()[3] = NAN;
  EXPECT_EQ(f.get_int(0), -2);
  EXPECT_EQ(f.get_int(1), INT64_MAX);
  EXPECT_EQ(f.get_int(2), INT64_MIN);
  EXPECT_EQ(f.get_int(3), 0);
  NDArray b({2}, boolean());
  b.data<uint8_t>()[0] = 1;
  b.data<uint8_t>()[1] = 0;
  EXPECT_EQ(b.get_int(0), 1);
  EXPECT_EQ(b.get_int(1), 0);
}

}  // namespace
}  // namespace tetune
