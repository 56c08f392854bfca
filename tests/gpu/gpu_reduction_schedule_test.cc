// The Ansor-style CUDA tiling of one reduction (codegen/gpu_reduction_schedule.h)
// without a GPU: which DAGs it applies to, the loop structure it builds, the
// PTX it compiles to (shared memory, barriers; ptxas accepts it for sm_90),
// limit violations rejected before compiling, and the correctness of the same
// splits, orders and compute locations run on the CPU with the GPU bindings
// left out (Halide runs no GPU schedule on the host).
#include <gtest/gtest.h>

#include "schedules/gpu_reduction_schedule.h"
#include "codegen/kernel.h"
#include "schedule/gpu_limits.h"
#include "schedule/trace.h"
#include "base/errors.h"
#include "te/ops/conv.h"
#include "te/ops/matmul.h"
#include "te/ops/softmax.h"
#include "tests/gpu/gpu_test_util.h"
#include "tests/schedule/reference_computes.h"

namespace tetune {
namespace {

// conv2d NCHW through the operator library: pad 1, 3x3, no bias (the reduction is the output).
Tensor conv(int C, int HW, int K) {
  Tensor x = placeholder({1, C, HW, HW}, float32(), "x"), w = placeholder({K, C, 3, 3}, float32(), "w");
  return ops::conv2d(x, w, Tensor(), {1, 1}, {1, 1, 1, 1});
}

Tensor bmm(int B, int M, int N, int K) {
  return ops::batch_matmul(placeholder({B, M, K}, float32(), "A"), placeholder({B, K, N}, float32(), "B"));
}

// conv 1x64x56x56, K=64: block tile k 32 x h 4 x w 8 (256 threads), 8 channels x 3 x 3 per step.
GpuReductionTiles conv_tiles() {
  GpuReductionTiles t;
  t.spatial["c"] = {2, 8, 2};
  t.spatial["h"] = {1, 4, 1};
  t.spatial["w"] = {1, 8, 1};
  t.reduce["rc"] = {2, 4};
  t.reduce["ry"] = {1, 3};
  t.reduce["rx"] = {3, 1};
  return t;
}

// The schedule without its GPU bindings: the same loops, run serially on the CPU.
Schedule without_bindings(const std::vector<Tensor> &outputs, const Schedule &s) {
  std::vector<Step> steps;
  for (const auto &st : s.trace())
    if (!std::holds_alternative<BindStep>(st)) steps.push_back(st);
  return replay(outputs, steps);
}

// compile_object for CUDA; returns the PTX after checking that ptxas accepts it for sm_90 (when ptxas is here).
std::string compile_and_assemble(const Schedule &s, const std::string &name) {
  std::string prefix = gputest::out_dir(name) + "/" + name;
  compile_object(s, prefix, name, Target{"cuda"});
  std::string ptx = gputest::read_file(prefix + ".ptx");
  EXPECT_NE(ptx.find(".visible .entry"), std::string::npos);
  if (gputest::have_ptxas()) {
    std::string log;
    EXPECT_EQ(gputest::run_ptxas(prefix + ".ptx", "sm_90", &log), 0) << "ptxas -arch=sm_90 failed on " << prefix << ".ptx:\n" << log;
  }
  return ptx;
}

// Shared memory, barriers between the cooperative loads and their use, one fused block and thread index.
void expect_shared_tiles(const std::string &ptx) {
  EXPECT_NE(ptx.find(".shared"), std::string::npos);
  EXPECT_NE(ptx.find("bar.sync"), std::string::npos) << "cooperative loads need barriers";
  EXPECT_NE(ptx.find("%ctaid.x"), std::string::npos);
  EXPECT_NE(ptx.find("%tid.x"), std::string::npos);
  EXPECT_EQ(ptx.find("%ctaid.y"), std::string::npos);
  EXPECT_EQ(ptx.find("%tid.y"), std::string::npos);
}

// batch_matmul [4, 64, 32] x [4, 32, 48]: block tile 1 x 32 x 16 (128 threads), k step 8.
GpuReductionTiles bmm_tiles() {
  GpuReductionTiles t;
  t.spatial["i"] = {2, 8, 2};
  t.spatial["j"] = {1, 16, 1};
  t.reduce["k"] = {2, 4};
  return t;
}

// The GPU schedule's loops without bindings, run on the CPU, against the default schedule.
void expect_cpu_run_matches_default(const Tensor &out, const GpuReductionTiles &tiles) {
  Schedule plain({out});
  std::vector<NDArray> in;
  for (size_t i = 0; i < plain.inputs().size(); i++)
    in.push_back(NDArray::random(plain.inputs()[i].shape(), float32(), 40 + static_cast<int>(i)));
  auto want = Kernel::build(plain).run(in);
  auto got = Kernel::build(without_bindings({out}, gpu_reduction_schedule({out}, tiles))).run(in);
  std::string where;
  EXPECT_TRUE(all_close(got[0], want[0], 1e-4, 1e-4, &where)) << out.name() << ": " << where;
}

TEST(GpuReductionSchedule, FindsOneReductionWithItsFusedConsumer) {
  auto c = find_gpu_reduction({conv(64, 56, 64)});
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->reduction, "conv2d");
  EXPECT_EQ(c->output, "conv2d");
  EXPECT_EQ(c->inlined, std::vector<std::string>{"conv2d.pad"});
  using Axes = std::vector<std::pair<std::string, int64_t>>;
  EXPECT_EQ(c->spatial, (Axes{{"n", 1}, {"c", 64}, {"h", 56}, {"w", 56}}));
  EXPECT_EQ(c->reduce, (Axes{{"rc", 64}, {"ry", 3}, {"rx", 3}}));
  auto fused = find_gpu_reduction({testing::conv_case(1, 16, 28, 28, 32).output});  // pad, conv, bias + relu
  ASSERT_TRUE(fused.has_value());
  EXPECT_EQ(fused->reduction, "conv");
  EXPECT_EQ(fused->output, "relu");
  auto b = find_gpu_reduction({bmm(4, 64, 48, 32)});
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->spatial.size(), 3u);
  EXPECT_EQ(b->reduce.size(), 1u);
  // Softmax: two reductions; an elementwise DAG: none.
  EXPECT_FALSE(find_gpu_reduction({ops::softmax(placeholder({8, 100}, float32(), "s"))}).has_value());
  Tensor x = placeholder({16}, float32(), "e");
  EXPECT_FALSE(find_gpu_reduction({compute({16}, [&](const std::vector<Var> &i) { return x(i[0]) * 2.0f; }, "twice")})
                   .has_value());
}

TEST(GpuReductionSchedule, ConvHasTheMultiLevelStructure) {
  Tensor out = conv(64, 56, 64);
  Schedule s = gpu_reduction_schedule({out}, conv_tiles());
  const StageInfo &o = s.stage("conv2d");
  ASSERT_GE(o.leaves.size(), 2u);
  // Blocks: 1 x 64/32 x 56/4 x 56/8 fused; threads: 8 x 4 x 8 fused.
  EXPECT_EQ(o.leaves[0].annotation, "blockIdx.x");
  EXPECT_EQ(o.leaves[0].extent, 1 * 2 * 14 * 7);
  EXPECT_EQ(o.leaves[1].annotation, "threadIdx.x");
  EXPECT_EQ(o.leaves[1].extent, 256);
  const StageInfo &acc = s.stage("conv2d.local");
  EXPECT_EQ(acc.attach.stage, "conv2d");
  EXPECT_EQ(acc.attach.axis, o.leaves[0].name);
  // Accumulator: the three k-outer loops (64/8, 3/3, 3/3), then the threads.
  ASSERT_GE(acc.leaves.size(), 4u);
  for (int i = 0; i < 3; i++) EXPECT_TRUE(acc.leaves[i].is_reduce) << acc.leaves[i].name;
  EXPECT_EQ(acc.leaves[0].extent, 8);
  EXPECT_EQ(acc.leaves[3].annotation, "threadIdx.x");
  EXPECT_EQ(acc.leaves[3].extent, 256);
  // The padded input and the weights are staged per reduction step at block level, in shared memory:
  // pad tile 8 channels x (4+2) x (8+2), weight tile 32 x 8 x 3 x 3 floats; the accumulator 32 x 4 x 8.
  for (const char *c : {"conv2d.pad.cache", "w.cache"}) {
    const StageInfo &st = s.stage(c);
    EXPECT_EQ(st.attach.stage, "conv2d.local") << c;
    EXPECT_EQ(st.attach.axis, acc.leaves[2].name) << c;
    EXPECT_TRUE(gpu_level(s, "conv2d.local", acc.leaves[2].name).block_level()) << c;
  }
  EXPECT_EQ(shared_bytes(s, "conv2d.pad.cache"), 8 * 6 * 10 * 4);
  EXPECT_EQ(shared_bytes(s, "w.cache"), 32 * 8 * 3 * 3 * 4);
  EXPECT_EQ(shared_bytes(s, "conv2d.local"), 32 * 4 * 8 * 4);
  EXPECT_NO_THROW(check_gpu_schedule(s));
  // The trace replays to the same schedule.
  EXPECT_EQ(replay({out}, s.trace()).trace(), s.trace());
}

TEST(GpuReductionSchedule, ConvBatchMatmulAndFusedConvCompileToSharedMemoryPtx) {
  if (!gputest::have_ptxas()) std::cout << "[ptxas not found at " << gputest::ptxas_path() << ": PTX not assembled]\n";
  expect_shared_tiles(compile_and_assemble(gpu_reduction_schedule({conv(64, 56, 64)}, conv_tiles()), "red_conv"));
  expect_shared_tiles(compile_and_assemble(gpu_reduction_schedule({bmm(4, 64, 48, 32)}, bmm_tiles()), "red_bmm"));
  GpuReductionTiles ft;  // conv 16 -> 32 channels, 28x28, + bias + relu: one kernel
  ft.spatial["k"] = {1, 8, 4};
  ft.spatial["h"] = {1, 4, 1};
  ft.spatial["w"] = {2, 7, 1};
  ft.reduce["rc"] = {1, 4};
  ft.reduce["ry"] = {1, 3};
  std::string ptx = compile_and_assemble(gpu_reduction_schedule({testing::conv_case(1, 16, 28, 28, 32).output}, ft), "red_fused");
  expect_shared_tiles(ptx);
  size_t kernels = 0;
  for (size_t p = ptx.find(".visible .entry"); p != std::string::npos; p = ptx.find(".visible .entry", p + 1)) kernels++;
  EXPECT_EQ(kernels, 1u);
}

TEST(GpuReductionSchedule, CpuRunsOfTheSameLoopsMatchTheReference) {
  auto c = testing::conv_case(1, 16, 12, 12, 8);  // pad, conv, bias + relu: the conv fused into relu
  GpuReductionTiles t;
  t.spatial["k"] = {2, 2, 2};
  t.spatial["h"] = {1, 3, 2};
  t.spatial["w"] = {2, 2, 1};
  t.reduce["rc"] = {2, 4};
  t.reduce["rx"] = {1, 3};
  Schedule s = gpu_reduction_schedule({c.output}, t);
  EXPECT_NO_THROW(check_gpu_schedule(s));
  auto out = Kernel::build(without_bindings({c.output}, s)).run(c.data);
  std::string where;
  EXPECT_TRUE(all_close(out[0], c.expected, 1e-4, 1e-4, &where)) << where;
  // The operator library's conv (the reduction is the output: cache_write) and batch_matmul.
  GpuReductionTiles ct;
  ct.spatial["c"] = {2, 4, 2};
  ct.spatial["w"] = {1, 5, 2};
  ct.reduce["rc"] = {2, 2};
  ct.reduce["ry"] = {3, 1};
  expect_cpu_run_matches_default(conv(8, 10, 16), ct);
  expect_cpu_run_matches_default(bmm(4, 64, 48, 32), bmm_tiles());
}

TEST(GpuReductionSchedule, BadTilesAreScheduleErrors) {
  Tensor out = conv(64, 56, 64);
  GpuReductionTiles t;
  t.spatial["h"] = {1, 5, 1};  // 5 does not divide 56
  EXPECT_THROW(gpu_reduction_schedule({out}, t), ScheduleError);
  t = GpuReductionTiles{};
  t.reduce["nope"] = {1, 1};
  EXPECT_THROW(gpu_reduction_schedule({out}, t), ScheduleError);
  t = GpuReductionTiles{};
  t.spatial["c"] = {0, 1, 1};
  EXPECT_THROW(gpu_reduction_schedule({out}, t), ScheduleError);
  EXPECT_THROW(gpu_reduction_schedule({ops::softmax(placeholder({8, 100}, float32(), "s"))}, t), ScheduleError);
}

TEST(GpuReductionSchedule, PointsOverTheLimitsAreRejectedBeforeCompiling) {
  Tensor out = conv(64, 56, 64);
  GpuReductionTiles threads = conv_tiles();
  threads.spatial["c"] = {1, 32, 1};  // 32 x 4 x 8 = 1024 threads: the limit itself
  threads.spatial["h"] = {1, 8, 1};   // 2048
  Schedule s = gpu_reduction_schedule({out}, threads);
  EXPECT_THROW(check_gpu_schedule(s), ScheduleError);
  std::string dir = gputest::out_dir("red_limits");
  EXPECT_THROW(compile_object(s, dir + "/t", "t", Target{"cuda"}), ScheduleError);
  GpuReductionTiles shared = conv_tiles();
  shared.reduce["rc"] = {8, 8};  // 64 channels per step: pad tile 64 x 6 x 10, weights 32 x 64 x 9 floats
  try {
    check_gpu_schedule(gpu_reduction_schedule({out}, shared));
    FAIL() << "expected a shared memory ScheduleError";
  } catch (const ScheduleError &e) {
    EXPECT_NE(std::string(e.what()).find("shared memory"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tetune
