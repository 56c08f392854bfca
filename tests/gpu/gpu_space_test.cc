// The CUDA search space "gpu" without a GPU: its points give schedules within
// the target's limits whose PTX ptxas accepts for sm_90, points over the
// limits are rejected before compiling, single reductions (conv2d, batched
// matmul) get the multi-level tiling sketch and other tasks the generic one.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "autotune/policy/space.h"
#include "workload/task.h"
#include "codegen/kernel.h"
#include "schedule/trace.h"
#include "base/errors.h"
#include "te/ops/conv.h"
#include "te/ops/matmul.h"
#include "te/ops/pool.h"
#include "te/ops/reduce.h"
#include "te/ops/softmax.h"
#include "tests/gpu/gpu_test_util.h"

namespace tetune {
namespace {

tetune::Task cuda_gemm(int n) {
  Tensor A = placeholder({n, n}, float32(), "A"), B = placeholder({n, n}, float32(), "B");
  IterVar k = reduce_axis(n, "k");
  Tensor C = compute({n, n}, [&](const std::vector<Var> &i) { return sum(A(i[0], k.var) * B(k.var, i[1]), {k}); }, "C",
                     "matmul", {"i", "j"});
  return tetune::make_task("gemm_cuda", {C}, Target{"cuda"}, 1);
}

TEST(GpuSpace, GemmPointsCompileToPtxThatPtxasAccepts) {
  tetune::Task t = cuda_gemm(256);
  auto space = autotune::policy::make_space("gpu", t);
  std::mt19937_64 rng(5);
  std::string dir = gputest::out_dir("space_gemm");
  int valid = 0, rejected = 0;
  std::map<int, int> valid_of_sketch;
  for (int i = 0; i < 80 && (valid_of_sketch[0] < 3 || valid_of_sketch[3] < 3); i++) {
    autotune::Candidate p = space->sample(rng);
    ASSERT_TRUE(p.sketch == 0 || p.sketch == 3) << p.key();  // shared-memory tiles, or register tiles
    if (valid_of_sketch[p.sketch] >= 3) continue;
    std::vector<Step> steps;
    try {
      steps = space->steps(p);
    } catch (const ScheduleError &) {
      rejected++;
      continue;
    }
    Schedule s = replay(t.outputs, steps);
    std::string name = "gemm_p" + std::to_string(valid);
    compile_object(s, dir + "/" + name, name, t.target);
    std::string ptx = gputest::read_file(dir + "/" + name + ".ptx");
    if (p.sketch == 0)
      EXPECT_NE(ptx.find(".shared"), std::string::npos) << p.key();  // k tiles staged in shared memory
    else
      EXPECT_EQ(ptx.find(".shared"), std::string::npos) << p.key();  // accumulator in registers, inputs through L1
    if (gputest::have_ptxas()) {
      std::string log;
      EXPECT_EQ(gputest::run_ptxas(dir + "/" + name + ".ptx", "sm_90", &log), 0) << p.key() << "\n" << log;
    }
    valid++;
    valid_of_sketch[p.sketch]++;
  }
  EXPECT_EQ(valid_of_sketch[0], 3);
  EXPECT_EQ(valid_of_sketch[3], 3);
  if (!gputest::have_ptxas()) std::cout << "[ptxas not found: PTX written but not assembled]\n";
  // 128x128 block tile with 1x1 per thread = 16384 threads per block: over the limit.
  autotune::Candidate big;
  big.sketch = 0;
  big.params = {{"block", 128}, {"thread", 1}, {"k_step", 8}};
  EXPECT_THROW(space->steps(big), ScheduleError);
  (void)rejected;
}

// Samples points of a sketch-2 task until `want` are within the limits; each is compiled to PTX that
// must use shared memory and assemble for sm_90. Every other point must fail only on a GPU limit.
void expect_reduction_points_compile(const tetune::Task &t, const std::string &name, int want) {
  auto space = autotune::policy::make_space("gpu", t);
  std::mt19937_64 rng(11);
  std::string dir = gputest::out_dir(name);
  int valid = 0, tried = 0;
  for (; tried < 100 && valid < want; tried++) {
    autotune::Candidate p = space->sample(rng);
    EXPECT_EQ(p.sketch, 2) << p.key();
    std::vector<Step> steps;
    try {
      steps = space->steps(p);
    } catch (const ScheduleError &e) {
      EXPECT_EQ(std::string(e.what()).rfind("GPU schedule:", 0), 0u) << p.key() << ": " << e.what();  // a limit, not a bad tiling
      continue;
    }
    Schedule s = replay(t.outputs, steps);
    std::string fn = name + "_p" + std::to_string(valid);
    compile_object(s, dir + "/" + fn, fn, t.target);
    std::string ptx = gputest::read_file(dir + "/" + fn + ".ptx");
    EXPECT_NE(ptx.find(".shared"), std::string::npos) << p.key();
    if (gputest::have_ptxas()) {
      std::string log;
      EXPECT_EQ(gputest::run_ptxas(dir + "/" + fn + ".ptx", "sm_90", &log), 0) << p.key() << "\n" << log;
    }
    valid++;
  }
  EXPECT_EQ(valid, want) << "after " << tried << " samples";
  std::cout << "[" << name << ": " << valid << " valid points in " << tried << " samples]\n";
}

TEST(GpuSpace, ConvPointsAreMultiLevelTilingsThatCompile) {
  Tensor x = placeholder({1, 64, 56, 56}, float32(), "x"), w = placeholder({64, 64, 3, 3}, float32(), "w");
  Tensor y = ops::conv2d(x, w, Tensor(), {1, 1}, {1, 1, 1, 1});
  expect_reduction_points_compile(tetune::make_task("conv_cuda", {y}, Target{"cuda"}, 1), "space_conv", 3);
}

TEST(GpuSpace, BatchMatmulPointsAreMultiLevelTilingsThatCompile) {
  Tensor y = ops::batch_matmul(placeholder({8, 128, 64}, float32(), "A"), placeholder({8, 64, 96}, float32(), "B"));
  expect_reduction_points_compile(tetune::make_task("bmm_cuda", {y}, Target{"cuda"}, 1), "space_bmm", 2);
}

TEST(GpuSpace, GemmMutationsKeepTheSketchAndCrossoversStayWithinOne) {
  tetune::Task t = cuda_gemm(256);
  auto space = autotune::policy::make_space("gpu", t);
  std::mt19937_64 rng(9);
  std::map<int, autotune::Candidate> first;
  for (int i = 0; i < 50 && first.size() < 2; i++) {
    autotune::Candidate p = space->sample(rng);
    first.emplace(p.sketch, p);
  }
  ASSERT_EQ(first.size(), 2u);
  const autotune::Candidate &shared = first.at(0), &reg = first.at(3);
  EXPECT_EQ(shared.params.size(), 3u);  // block, thread, k_step
  EXPECT_EQ(reg.params.size(), 6u);     // tile_i, tile_j, threads_i, threads_j, k_unroll, stage
  for (int i = 0; i < 40; i++) {
    for (const auto *p : {&shared, &reg}) {
      autotune::Candidate m = space->mutate(*p, rng);
      EXPECT_EQ(m.sketch, p->sketch);
      EXPECT_EQ(m.params.size(), p->params.size()) << m.key();
      for (const auto &[name, v] : m.params) EXPECT_TRUE(p->params.count(name)) << name;
    }
    EXPECT_EQ(space->crossover(reg, shared, rng).key(), reg.key());  // different sketches: no mixing
    autotune::Candidate other = space->mutate(reg, rng);
    autotune::Candidate child = space->crossover(reg, other, rng);
    for (const auto &[name, v] : child.params) EXPECT_TRUE(v == reg.params.at(name) || v == other.params.at(name)) << name;
  }
}

TEST(GpuSpace, ReductionMutationsAndCrossoversStillTileExactly) {
  Tensor x = placeholder({2, 32, 28, 28}, float32(), "x"), w = placeholder({48, 32, 3, 3}, float32(), "w");
  tetune::Task t = tetune::make_task("conv_cuda", {ops::conv2d(x, w, Tensor(), {1, 1}, {1, 1, 1, 1})}, Target{"cuda"}, 1);
  auto space = autotune::policy::make_space("gpu", t);
  std::mt19937_64 rng(3);
  autotune::Candidate a = space->sample(rng), b = space->sample(rng);
  const size_t nparams = a.params.size();
  EXPECT_EQ(nparams, 4u * 3 + 3u * 2);  // n, c, h, w: vthread, thread, inner; rc, ry, rx: mid, inner
  for (int i = 0; i < 60; i++) {
    autotune::Candidate c = i % 2 ? space->mutate(a, rng) : space->crossover(a, b, rng);
    EXPECT_EQ(c.sketch, 2);
    EXPECT_EQ(c.params.size(), nparams) << c.key();
    try {
      space->steps(c);
    } catch (const ScheduleError &e) {
      EXPECT_EQ(std::string(e.what()).rfind("GPU schedule:", 0), 0u) << c.key() << ": " << e.what();
    }
    (i % 2 ? a : b) = c;
  }
}

// Single reductions of the operator library: a point within the limits compiles to PTX, and its loops
// (without the GPU bindings, run on the CPU) compute what the default schedule computes.
TEST(GpuSpace, OperatorLibraryReductionsGetCorrectTilings) {
  Tensor x = placeholder({2, 16, 14, 14}, float32(), "x");
  Tensor w = placeholder({24, 16, 3, 3}, float32(), "w"), wg = placeholder({16, 4, 3, 3}, float32(), "wg");
  Tensor wt = placeholder({16, 8, 4, 4}, float32(), "wt"), bias = placeholder({24}, float32(), "bias");
  Tensor d = placeholder({12, 40}, float32(), "d"), dw = placeholder({24, 40}, float32(), "dw"), db = placeholder({24}, float32(), "db");
  std::vector<std::pair<std::string, Tensor>> ops_ = {
      {"conv_bias_stride2", ops::conv2d(x, w, bias, {2, 2}, {1, 1, 1, 1})},
      {"conv_groups", ops::conv2d(x, wg, Tensor(), {1, 1}, {1, 1, 1, 1}, {1, 1}, 4)},
      {"conv_transpose", ops::conv2d_transpose(x, wt, Tensor(), {2, 2}, {1, 1, 1, 1})},
      {"dense_bias", ops::dense(d, dw, db)},
      {"max_pool", ops::max_pool2d(x, {3, 3}, {2, 2}, {1, 1, 1, 1})},
      {"avg_pool", ops::avg_pool2d(x, {2, 2}, {2, 2})},
      {"global_avg_pool", ops::global_avg_pool2d(x)},
      {"reduce_sum", ops::reduce_sum(x, {1, 3}, false)},
  };
  for (const auto &[name, out] : ops_) {
    tetune::Task t = tetune::make_task(name, {out}, Target{"cuda"}, 1);
    auto space = autotune::policy::make_space("gpu", t);
    std::mt19937_64 rng(7);
    std::vector<Step> steps;
    for (int i = 0; i < 50 && steps.empty(); i++) {
      autotune::Candidate p = space->sample(rng);
      ASSERT_EQ(p.sketch, 2) << name;
      try {
        steps = space->steps(p);
      } catch (const ScheduleError &e) {
        EXPECT_EQ(std::string(e.what()).rfind("GPU schedule:", 0), 0u) << name << " " << p.key() << ": " << e.what();
      }
    }
    ASSERT_FALSE(steps.empty()) << name << ": no point within the limits in 50 samples";
    std::string dir = gputest::out_dir("ops_" + name);
    compile_object(replay(t.outputs, steps), dir + "/k", "k", t.target);
    EXPECT_NE(gputest::read_file(dir + "/k.ptx").find(".shared"), std::string::npos) << name;
    std::vector<Step> serial;
    for (const auto &st : steps)
      if (!std::holds_alternative<BindStep>(st)) serial.push_back(st);
    Schedule plain(t.outputs);
    std::vector<NDArray> in;
    for (size_t i = 0; i < plain.inputs().size(); i++)
      in.push_back(NDArray::random(plain.inputs()[i].shape(), float32(), 60 + static_cast<int>(i)));
    auto want = Kernel::build(plain).run(in);
    auto got = Kernel::build(replay(t.outputs, serial)).run(in);
    std::string where;
    EXPECT_TRUE(all_close(got[0], want[0], 1e-4, 1e-4, &where)) << name << ": " << where;
  }
}

TEST(GpuSpace, OtherTasksGetTheGenericSketch) {
  Tensor x = placeholder({8, 1000}, float32(), "x");
  tetune::Task t = tetune::make_task("softmax_cuda", {ops::softmax(x)}, Target{"cuda"}, 1);
  auto space = autotune::policy::make_space("gpu", t);
  std::mt19937_64 rng(1);
  autotune::Candidate p = space->sample(rng);
  EXPECT_EQ(p.sketch, 1);
  Schedule s = replay(t.outputs, space->steps(p));
  std::string dir = gputest::out_dir("space_softmax");
  compile_object(s, dir + "/sm", "sm", t.target);
  if (gputest::have_ptxas()) {
    std::string log;
    EXPECT_EQ(gputest::run_ptxas(dir + "/sm.ptx", "sm_90", &log), 0) << log;
  }
  autotune::Candidate q = space->mutate(p, rng);
  EXPECT_EQ(q.params.size(), 1u);
}

}  // namespace
}  // namespace tetune
