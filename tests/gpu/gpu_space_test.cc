// The CUDA search space "gpu" without a GPU: its points give schedules within
// the target's limits whose PTX ptxas accepts for sm_90, points over the
// limits are rejected before compiling, and non-matmul tasks get the generic
// sketch.
#include <gtest/gtest.h>

#include <random>

#include "autotune/policy/space.h"
#include "autotune/task.h"
#include "codegen/kernel.h"
#include "schedule/trace.h"
#include "te/errors.h"
#include "te/ops/softmax.h"
#include "tests/gpu/gpu_test_util.h"

namespace tetune {
namespace {

autotune::Task cuda_gemm(int n) {
  Tensor A = placeholder({n, n}, float32(), "A"), B = placeholder({n, n}, float32(), "B");
  IterVar k = reduce_axis(n, "k");
  Tensor C = compute({n, n}, [&](const std::vector<Var> &i) { return sum(A(i[0], k.var) * B(k.var, i[1]), {k}); }, "C",
                     "matmul", {"i", "j"});
  return autotune::make_task("gemm_cuda", {C}, Target{"cuda"}, 1);
}

TEST(GpuSpace, GemmPointsCompileToPtxThatPtxasAccepts) {
  autotune::Task t = cuda_gemm(256);
  auto space = autotune::policy::make_space("gpu", t);
  std::mt19937_64 rng(5);
  std::string dir = gputest::out_dir("space_gemm");
  int valid = 0, rejected = 0;
  for (int i = 0; i < 40 && valid < 3; i++) {
    autotune::policy::Point p = space->sample(rng);
    EXPECT_EQ(p.sketch, 0);
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
    EXPECT_NE(ptx.find(".shared"), std::string::npos) << p.key();  // k tiles staged in shared memory
    if (gputest::have_ptxas()) {
      std::string log;
      EXPECT_EQ(gputest::run_ptxas(dir + "/" + name + ".ptx", "sm_90", &log), 0) << p.key() << "\n" << log;
    }
    valid++;
  }
  EXPECT_EQ(valid, 3);
  if (!gputest::have_ptxas()) std::cout << "[ptxas not found: PTX written but not assembled]\n";
  // 128x128 block tile with 1x1 per thread = 16384 threads per block: over the limit.
  autotune::policy::Point big;
  big.sketch = 0;
  big.params = {{"block", 128}, {"thread", 1}, {"k_step", 8}};
  EXPECT_THROW(space->steps(big), ScheduleError);
  (void)rejected;
}

TEST(GpuSpace, OtherTasksGetTheGenericSketch) {
  Tensor x = placeholder({8, 1000}, float32(), "x");
  autotune::Task t = autotune::make_task("softmax_cuda", {ops::softmax(x)}, Target{"cuda"}, 1);
  auto space = autotune::policy::make_space("gpu", t);
  std::mt19937_64 rng(1);
  autotune::policy::Point p = space->sample(rng);
  EXPECT_EQ(p.sketch, 1);
  Schedule s = replay(t.outputs, space->steps(p));
  std::string dir = gputest::out_dir("space_softmax");
  compile_object(s, dir + "/sm", "sm", t.target);
  if (gputest::have_ptxas()) {
    std::string log;
    EXPECT_EQ(gputest::run_ptxas(dir + "/sm.ptx", "sm_90", &log), 0) << log;
  }
  autotune::policy::Point q = space->mutate(p, rng);
  EXPECT_EQ(q.params.size(), 1u);
}

}  // namespace
}  // namespace tetune
