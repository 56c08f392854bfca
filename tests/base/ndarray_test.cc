// NDArray::get_int: exact int64 reads where get()'s double would round; where arrays live (host_memory).
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

// Arrays a kernel streams page as the exported runtime's do (base/host_memory.h): from 2 MiB on they start on a
// huge page, so that a tuner's measurement and a model run see the same TLB reach; smaller ones on a cache line.
// max_abs: the largest magnitude, NaN skipped (a tolerance scaled by it stays finite); 0 for no elements.
TEST(NDArray, MaxAbsSkipsNaN) {
  NDArray a({4}, float32());
  float *v = a.data<float>();
  v[0] = 1.5f, v[1] = -3.25f, v[2] = NAN, v[3] = 2.0f;
  EXPECT_EQ(max_abs(a), 3.25);
  EXPECT_EQ(max_abs(NDArray({0}, float32())), 0.0);
  EXPECT_EQ(scaled_max_error(a, a), 0.0);
}

TEST(NDArray, LargeArraysStartOnAHugePage) {
  NDArray big({int64_t{1} << 20}, float32());  // 4 MiB
  NDArray exact({static_cast<int64_t>(kHugePageBytes / 4)}, float32());
  NDArray small({1000}, float32());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(big.raw()) % kHugePageBytes, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(exact.raw()) % kHugePageBytes, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small.raw()) % 64, 0u);
  EXPECT_EQ(big.get(big.size() - 1), 0.0);  // zero-filled to the end
}

TEST(HostMemory, RoundsUpAndAligns) {
  for (size_t bytes : {size_t{0}, size_t{1}, size_t{65}, kHugePageBytes - 1, kHugePageBytes, kHugePageBytes + 1}) {
    void *p = allocate_host_memory(bytes);
    ASSERT_NE(p, nullptr) << bytes;
    const size_t align = bytes >= kHugePageBytes ? kHugePageBytes : 64;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % align, 0u) << bytes;
    if (bytes) static_cast<volatile char *>(p)[bytes - 1] = 1;  // the last byte is ours
    free_host_memory(p);
  }
}

}  // namespace
}  // namespace tetune
