#include <gtest/gtest.h>

#include "schedules/gpu_schedules.h"
#include "schedule/gpu_limits.h"
#include "base/errors.h"

namespace tetune {
namespace {

Tensor matmul(int M, int N, int K) {
  Tensor A = placeholder({M, K}, float32(), "A");
  Tensor B = placeholder({K, N}, float32(), "B");
  IterVar k = reduce_axis(K, "k");
  return compute({M, N}, [&](const std::vector<Var> &i) { return sum(A(i[0], k.var) * B(k.var, i[1]), {k}); }, "C", "matmul",
                 {"i", "j"});
}

Tensor elementwise(Shape shape) {
  Tensor X = placeholder(shape, float32(), "X");
  return compute(shape, [&](const std::vector<Var> &i) { return X(i[0], i[1], i[2], i[3]) * Expr(2.0f); }, "Y", "elemwise", {"n", "c", "h", "w"});
}

std::string error_of(const Schedule &s, const GpuLimits &lim = GpuLimits{}) {
  try {
    check_gpu_schedule(s, lim);
  } catch (const ScheduleError &e) {
    return e.what();
  }
  return "";
}

TEST(GpuLimits, GemmScheduleFitsAndSharedMemoryIsEstimated) {
  Schedule s = gpu_gemm_schedule(matmul(256, 256, 256));
  EXPECT_TRUE(uses_gpu(s));
  EXPECT_EQ(error_of(s), "");
  EXPECT_EQ(shared_bytes(s, "A.cache"), 64 * 16 * 4);
  EXPECT_EQ(shared_bytes(s, "B.cache"), 16 * 64 * 4);
  EXPECT_EQ(shared_bytes(s, "C.local"), 64 * 64 * 4);
  EXPECT_TRUE(gpu_level(s, "C", s.stage("C").leaves[1].name).block_level());
  EXPECT_FALSE(gpu_level(s, "C", s.stage("C").leaves[2].name).block_level());
}

TEST(GpuLimits, AFusedConsumerLoopCoversEachPartOnItsOwnAxis) {
  // C.local at C's block loop; inside it C runs a fused 16x16 thread loop and a 4x4 serial tile:
  // the accumulator region is 64x64, not the fused 256 on each of i and j (the whole 256x256).
  Schedule s({matmul(256, 256, 256)});
  std::string local = s.cache_write("C");
  auto io = s.split("C", "i", 64), jo = s.split("C", "j", 64);
  auto ti = s.split("C", io.second, 4), tj = s.split("C", jo.second, 4);
  s.reorder("C", {io.first, jo.first, ti.first, tj.first, ti.second, tj.second});
  std::string block = s.fuse("C", io.first, jo.first), threads = s.fuse("C", ti.first, tj.first);
  s.bind("C", block, "blockIdx.x");
  s.bind("C", threads, "threadIdx.x");
  s.compute_at(local, "C", block);
  s.bind(local, s.fuse(local, "i", "j"), "threadIdx.x");  // a thread per element: 4096 > 1024
  EXPECT_EQ(shared_bytes(s, local), 64 * 64 * 4);
  EXPECT_NE(error_of(s).find("extent 4096 > max block dimension 1024"), std::string::npos) << error_of(s);
}

TEST(GpuLimits, TooManyThreadsPerBlock) {
  // 128x128 block tile with 2x2 per thread: 64x64 = 4096 threads.
  Schedule s = gpu_gemm_schedule(matmul(256, 256, 256), GpuGemmTiles{128, 2, 16});
  std::string e = error_of(s);
  EXPECT_NE(e.find("4096 threads per block"), std::string::npos) << e;
  EXPECT_NE(e.find("limit 1024"), std::string::npos) << e;

  Schedule s2 = gpu_simple_schedule({elementwise({1, 64, 56, 56})}, 2048);
  e = error_of(s2);
  EXPECT_NE(e.find("extent 2048 > max block dimension 1024"), std::string::npos) << e;
  EXPECT_NE(e.find("'Y'"), std::string::npos) << e;
}

TEST(GpuLimits, ThreadDimensionLimit) {
  Schedule s({elementwise({1, 64, 56, 56})});
  s.bind("Y", "c", "blockIdx.x");
  s.bind("Y", "h", "threadIdx.z");  // 56 > 64? no: fits
  EXPECT_EQ(error_of(s), "");
  GpuLimits small;
  small.max_block_dim[2] = 32;
  std::string e = error_of(s, small);
  EXPECT_NE(e.find("axis 'h' bound to threadIdx.z has extent 56 > max block dimension 32"), std::string::npos) << e;
}

TEST(GpuLimits, TooMuchSharedMemory) {
  // 128x128 accumulator tile in shared memory (64 KiB) + A/B tiles: over 48 KiB.
  Schedule s = gpu_gemm_schedule(matmul(256, 256, 256), GpuGemmTiles{128, 8, 16});
  std::string e = error_of(s);
  EXPECT_NE(e.find("bytes of shared memory"), std::string::npos) << e;
  EXPECT_NE(e.find("C.local=65536B"), std::string::npos) << e;
  EXPECT_NE(e.find("limit 49152"), std::string::npos) << e;
  GpuLimits big;
  big.max_shared_bytes = 228 * 1024;  // sm_90 opt-in maximum
  EXPECT_EQ(error_of(s, big), "");
}

TEST(GpuLimits, OutputWithoutBlockBinding) {
  Schedule s({matmul(64, 64, 64)});
  std::string e = error_of(s);
  EXPECT_NE(e.find("output stage 'C' has no loop bound to blockIdx"), std::string::npos) << e;
}

TEST(GpuLimits, ThreadOutsideBlock) {
  Schedule s({elementwise({1, 64, 56, 56})});
  s.bind("Y", "w", "threadIdx.x");
  std::string e = error_of(s);
  EXPECT_NE(e.find("binds axis 'w' to threadIdx.x outside any blockIdx loop"), std::string::npos) << e;
}

TEST(GpuLimits, BlockInsideThreadAndDimensionOrder) {
  Schedule s({elementwise({1, 64, 56, 56})});
  s.bind("Y", "c", "blockIdx.x");
  s.bind("Y", "h", "threadIdx.x");
  s.bind("Y", "w", "blockIdx.y");
  std::string e = error_of(s);
  EXPECT_NE(e.find("blockIdx.y inside a threadIdx loop"), std::string::npos) << e;

  Schedule s2({elementwise({1, 64, 56, 56})});
  s2.bind("Y", "c", "blockIdx.x");
  s2.bind("Y", "h", "blockIdx.y");
  e = error_of(s2);
  EXPECT_NE(e.find("bind blockIdx z, y, x from outer to inner"), std::string::npos) << e;
}

}  // namespace
}  // namespace tetune
