// Issue 21, item 7: a shape too large to compile or to hold in memory is one
// ShapeError naming the input, the tensor and its size (not a Halide
// assertion or std::bad_alloc).
#include "codegen/buffer_limits.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/errors.h"

namespace tetune {
namespace {

std::string error_of(const std::vector<Tensor> &ts) {
  try {
    check_tensor_sizes(ts, "--shape X: op");
  } catch (const ShapeError &e) {
    return e.what();
  }
  return "";
}

TEST(BufferLimitsTest, TensorBytesSaturatesInsteadOfOverflowing) {
  EXPECT_EQ(tensor_bytes({1024, 1024}, float32()), 4 << 20);
  EXPECT_EQ(tensor_bytes({int64_t(1) << 40, int64_t(1) << 40}, float32()), std::numeric_limits<int64_t>::max());
}

TEST(BufferLimitsTest, OneBufferPastHalidesIndexRangeNamesTheTensor) {
  // 2^29 floats = 2^31 bytes: one byte past what a Halide 14 buffer indexes.
  Tensor ok = placeholder({(int64_t(1) << 29) - 1}, float32(), "fits");
  Tensor big = placeholder({int64_t(1) << 15, int64_t(1) << 14}, float32(), "A");
  EXPECT_EQ(error_of({ok}), "");
  std::string what = error_of({ok, big});
  EXPECT_NE(what.find("--shape X: op: tensor 'A' (32768x16384 float32) is 2.1 GB"), std::string::npos) << what;
}

TEST(BufferLimitsTest, TensorsThatTogetherExceedMemoryNameTheTotal) {
  int64_t ram = physical_memory_bytes();
  if (ram <= 0) GTEST_SKIP() << "sysconf reports no physical memory size";
  // Each tensor fits one buffer (1 GB); together they are more than this machine holds.
  std::vector<Tensor> ts;
  for (int64_t total = 0; total <= ram; total += int64_t(1) << 30)
    ts.push_back(placeholder({int64_t(1) << 28}, float32(), "t" + std::to_string(ts.size())));
  std::string what = error_of(ts);
  EXPECT_NE(what.find("--shape X: op needs "), std::string::npos) << what;
  EXPECT_NE(what.find("more than this machine's " + format_bytes(ram) + " of memory"), std::string::npos) << what;
  ts.pop_back();
  ts.resize(1);
  EXPECT_EQ(error_of(ts), "");
}

}  // namespace
}  // namespace tetune
