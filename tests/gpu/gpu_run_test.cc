// Runs CUDA kernels and compares with the CPU; skips cleanly without an NVIDIA driver/GPU.
#include <gtest/gtest.h>

#include "schedules/gpu_reduction_schedule.h"
#include "schedules/gpu_schedules.h"
#include "codegen/kernel.h"
#include "base/errors.h"
#include "te/ops/conv.h"
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

TEST(GpuRun, GemmRegisterTilesMatchCpuReference) {
  SKIP_WITHOUT_GPU();
  auto c = testing::gemm_case(256, 256, 256);
  auto out = Kernel::build(gpu_gemm_register_schedule(c.output), Target{"cuda"}).run(c.data);
  std::string where;
  EXPECT_TRUE(all_close(out[0], c.expected, 1e-4, 1e-4, &where)) << where;
  // Extents the tiles do not divide: guarded tails in rows, columns and k.
  auto odd = testing::gemm_case(200, 136, 70);
  GpuGemmRegisterTiles t;
  t.tile_i = 8;
  t.tile_j = 8;
  t.threads_i = 4;
  t.threads_j = 8;
  t.k_unroll = 8;
  for (bool stage : {false, true}) {
    t.stage = stage;
    auto out2 = Kernel::build(gpu_gemm_register_schedule(odd.output, t), Target{"cuda"}).run(odd.data);
    EXPECT_TRUE(all_close(out2[0], odd.expected, 1e-4, 1e-4, &where)) << "stage " << stage << ": " << where;
  }
}

TEST(GpuRun, ConvMatchesCpuReference) {
  SKIP_WITHOUT_GPU();
  auto c = testing::conv_case(1, 16, 28, 28, 32);
  auto out = Kernel::build(gpu_simple_schedule({c.output}, 128), Target{"cuda"}).run(c.data);
  std::string where;
  EXPECT_TRUE(all_close(out[0], c.expected, 1e-4, 1e-4, &where)) << where;
}

TEST(GpuRun, ReductionScheduleConvMatchesCpu) {
  SKIP_WITHOUT_GPU();
  // conv2d 1x64x56x56, 64 3x3 filters, pad 1 (the operator library's, pad inlined and staged in shared memory).
  Tensor x = placeholder({1, 64, 56, 56}, float32(), "x"), w = placeholder({64, 64, 3, 3}, float32(), "w");
  Tensor y = ops::conv2d(x, w, Tensor(), {1, 1}, {1, 1, 1, 1});
  GpuReductionTiles t;  // block tile c 32 x h 4 x w 8, 256 threads, 8 channels x 3 x 3 per reduction step
  t.spatial["c"] = {2, 8, 2};
  t.spatial["h"] = {1, 4, 1};
  t.spatial["w"] = {1, 8, 1};
  t.reduce["rc"] = {2, 4};
  t.reduce["ry"] = {1, 3};
  t.reduce["rx"] = {3, 1};
  std::vector<NDArray> in = {NDArray::random({1, 64, 56, 56}, float32(), 5), NDArray::random({64, 64, 3, 3}, float32(), 6)};
  auto cpu = Kernel::build(Schedule({y})).run(in);
  auto gpu = Kernel::build(gpu_reduction_schedule({y}, t), Target{"cuda"}).run(in);
  std::string where;
  EXPECT_TRUE(all_close(gpu[0], cpu[0], 1e-4, 1e-4, &where)) << where;
  // The same conv fused with bias + relu (the conv is the accumulator, no cache_write).
  auto c = testing::conv_case(1, 16, 28, 28, 32);
  GpuReductionTiles f;
  f.spatial["k"] = {1, 8, 4};
  f.spatial["h"] = {1, 4, 1};
  f.spatial["w"] = {2, 7, 1};
  f.reduce["rc"] = {1, 4};
  auto fused = Kernel::build(gpu_reduction_schedule({c.output}, f), Target{"cuda"}).run(c.data);
  EXPECT_TRUE(all_close(fused[0], c.expected, 1e-4, 1e-4, &where)) << where;
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
