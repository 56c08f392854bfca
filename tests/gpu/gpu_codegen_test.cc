// CUDA code generation without a GPU: PTX written by compile_object, assembled by ptxas.
#include <gtest/gtest.h>

#include "schedules/gpu_schedules.h"
#include "codegen/kernel.h"
#include "base/errors.h"
#include "te/ops/elementwise.h"
#include "tests/gpu/gpu_test_util.h"
#include "tests/schedule/reference_computes.h"

namespace tetune {
namespace {

Tensor matmul(int M, int N, int K) {
  Tensor A = placeholder({M, K}, float32(), "A");
  Tensor B = placeholder({K, N}, float32(), "B");
  IterVar k = reduce_axis(K, "k");
  return compute({M, N}, [&](const std::vector<Var> &i) { return sum(A(i[0], k.var) * B(k.var, i[1]), {k}); }, "C", "matmul",
                 {"i", "j"});
}

Tensor fused_elementwise() {
  Tensor X = placeholder({1, 64, 56, 56}, float32(), "X");
  Tensor Y = placeholder({1, 64, 56, 56}, float32(), "Y");
  return ops::sigmoid(ops::relu(ops::add(X, Y)));
}

// compile_object for CUDA, then ptxas for sm_90 (and sm_86, what Halide targets).
std::string compile_and_assemble(const Schedule &s, const std::string &name) {
  std::string dir = gputest::out_dir(name);
  std::string prefix = dir + "/" + name;
  compile_object(s, prefix, name, Target{"cuda"});
  EXPECT_FALSE(gputest::read_file(prefix + ".o").empty());
  std::string header = gputest::read_file(prefix + ".h");
  EXPECT_NE(header.find("int " + name + "("), std::string::npos);
  std::string ptx = gputest::read_file(prefix + ".ptx");
  EXPECT_NE(ptx.find(".visible .entry"), std::string::npos);
  EXPECT_EQ(ptx.find('\0'), std::string::npos);
  if (!gputest::have_ptxas()) return ptx;
  for (const char *arch : {"sm_90", "sm_86"}) {
    std::string log;
    int rc = gputest::run_ptxas(prefix + ".ptx", arch, &log);
    EXPECT_EQ(rc, 0) << "ptxas -arch=" << arch << " failed on " << prefix << ".ptx:\n" << log;
    std::cout << "[ptxas " << arch << " " << name << "] " << log.substr(0, 600) << "\n";
  }
  return ptx;
}

TEST(GpuCodegen, GemmSharedMemoryTilesAssemble) {
  SKIP_WITHOUT_PTXAS();
  Schedule s = gpu_gemm_schedule(matmul(256, 256, 256));
  std::string ptx = compile_and_assemble(s, "gemm256");
  EXPECT_NE(ptx.find(".shared"), std::string::npos) << "A/B/C.local tiles should be in shared memory";
  EXPECT_NE(ptx.find("bar.sync"), std::string::npos) << "cooperative loads need barriers";
  EXPECT_NE(ptx.find("%ctaid.y"), std::string::npos);
  EXPECT_NE(ptx.find("%tid.y"), std::string::npos);
}

TEST(GpuCodegen, GemmRegisterTilesAssembleWithoutSharedOrLocalMemory) {
  SKIP_WITHOUT_PTXAS();
  Schedule s = gpu_gemm_register_schedule(matmul(256, 256, 256));  // 4x4 per thread, 4x16 threads, A and B staged
  std::string ptx = compile_and_assemble(s, "gemm256_reg");
  EXPECT_EQ(ptx.find(".shared"), std::string::npos) << "this structure stages nothing in shared memory";
  EXPECT_EQ(ptx.find("bar.sync"), std::string::npos);
  EXPECT_EQ(ptx.find(".local"), std::string::npos) << "the accumulator must not live in local memory";
  EXPECT_NE(ptx.find(".v4.f32"), std::string::npos) << "4 columns per thread: float4 accesses";
  const char *base = std::getenv("TEST_TMPDIR");
  std::string log;
  ASSERT_EQ(gputest::run_ptxas(std::string(base ? base : "/tmp") + "/gpu_gemm256_reg/gemm256_reg.ptx", "sm_90", &log), 0)
      << log;
  EXPECT_NE(log.find("0 bytes spill stores"), std::string::npos) << log;
  GpuGemmRegisterTiles bad;
  bad.threads_i = 0;
  EXPECT_THROW(gpu_gemm_register_schedule(matmul(64, 64, 64), bad), ScheduleError);
  EXPECT_THROW(gpu_gemm_register_schedule(fused_elementwise()), ScheduleError);
}

TEST(GpuCodegen, ConvBiasReluAssembles) {
  SKIP_WITHOUT_PTXAS();
  auto c = testing::conv_case(1, 16, 28, 28, 32);
  Schedule s = gpu_simple_schedule({c.output}, 128);
  EXPECT_EQ(s.stage("pad").attach.kind, Attach::Inline);
  EXPECT_EQ(s.stage("conv").attach.kind, Attach::At);
  std::string ptx = compile_and_assemble(s, "conv");
  EXPECT_NE(ptx.find("%ctaid.x"), std::string::npos);
}

TEST(GpuCodegen, FusedElementwiseAssembles) {
  SKIP_WITHOUT_PTXAS();
  Schedule s = gpu_simple_schedule({fused_elementwise()}, 256);
  std::string ptx = compile_and_assemble(s, "add_relu_sigmoid");
  // One kernel: add and relu are inlined into sigmoid.
  size_t n = 0;
  for (size_t p = ptx.find(".visible .entry"); p != std::string::npos; p = ptx.find(".visible .entry", p + 1)) n++;
  EXPECT_EQ(n, 1u);
}

TEST(GpuCodegen, LimitViolationsRaiseBeforeCompiling) {
  Schedule threads = gpu_gemm_schedule(matmul(256, 256, 256), GpuGemmTiles{128, 2, 16});
  std::string dir = gputest::out_dir("limits");
  EXPECT_THROW(compile_object(threads, dir + "/t", "t", Target{"cuda"}), ScheduleError);
  EXPECT_THROW(Kernel::build(threads, Target{"cuda"}), ScheduleError);
  Schedule shared = gpu_gemm_schedule(matmul(256, 256, 256), GpuGemmTiles{128, 8, 16});
  EXPECT_THROW(compile_object(shared, dir + "/s", "s", Target{"cuda"}), ScheduleError);
  Schedule unbound({matmul(64, 64, 64)});
  EXPECT_THROW(Kernel::build(unbound, Target{"cuda"}), ScheduleError);
  // The CPU path ignores GPU limits.
  EXPECT_NO_THROW(Kernel::build(unbound));
}

TEST(GpuCodegen, BuildForCudaCompilesAndRunRaisesWithoutGpu) {
  Schedule s = gpu_gemm_schedule(matmul(64, 64, 64), GpuGemmTiles{32, 4, 8});
  Kernel k = Kernel::build(s, Target{"cuda"});
  // The GPU loops are offloaded: the host statement launches them through the CUDA runtime.
  EXPECT_NE(k.lowered_stmt().find("halide_cuda_run"), std::string::npos);
  std::string why;
  if (cuda_device_available(&why)) GTEST_SKIP() << "a GPU is present; gpu_run_test covers running";
  NDArray a = NDArray::random({64, 64}, float32(), 1), b = NDArray::random({64, 64}, float32(), 2);
  try {
    k.run({a, b});
    FAIL() << "run without a GPU should raise";
  } catch (const RuntimeError &e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA driver/GPU found"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tetune
