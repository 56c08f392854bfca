// Runs CUDA kernels and compares with the CPU; skips cleanly without an NVIDIA driver/GPU.
#include <gtest/gtest.h>

#include "codegen/gpu_schedules.h"
#include "codegen/kernel.h"
#include "te/errors.h"
#include "te/ops/elementwise.h"
#include "tests/gpu/gpu_test_util.h"
#include "tests/schedule/reference_computes.h"

namespace tetune {
namespace {

TEST(GpuRun, GemmMatchesCpuReference) {
  SKIP_WITHOUT_GPU();
  auto c = testing::gemm_case(256, 256, 256);
  Schedule s = gpu_gemm_schedule(c.output);
  auto out = Kernel::build(s, Target{"cuda"}).run(c.data);
  std::string where;
  EXPECT_TRUE(all_close(out[0], c.expected, 1e-4, 1e-4, &where)) << where;
}

TEST(GpuRun, ConvMatchesCpuReference) {
  SKIP_WITHOUT_GPU();
  auto c = testing::conv_case(1, 16, 28, 28, 32);
  auto out = Kernel::build(gpu_simple_schedule({c.output}, 128), Target{"cuda"}).run(c.data);
  std::string where;
  EXPECT_TRUE(all_close(out[0], c.expected, 1e-4, 1e-4, &where)) << where;
}

TEST(GpuRun, FusedElementwiseMatchesCpu) {
  SKIP_WITHOUT_GPU();
  Tensor X = placeholder({1, 64, 56, 56}, float32(), "X");
  Tensor Y = placeholder({1, 64, 56, 56}, float32(), "Y");
  Tensor Z = ops::sigmoid(ops::relu(ops::add(X, Y)));
  std::vector<NDArray> in = {NDArray::random({1, 64, 56, 56}, float32(), 3), NDArray::random({1, 64, 56, 56}, float32(), 4)};
  auto cpu = Kernel::build(Schedule({Z})).run(in);
  auto gpu = Kernel::build(gpu_simple_schedule({Z}), Target{"cuda"}).run(in);
  std::string where;
  EXPECT_TRUE(all_close(gpu[0], cpu[0], 1e-5, 1e-6, &where)) << where;
}

}  // namespace
}  // namespace tetune
