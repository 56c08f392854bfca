// CUDA batches through tetune_measure_runner on this machine: with a GPU,
// the costs come from CUDA events (results.json says "cuda_event"); without
// one, the runner still runs the batch and every kernel fails with a
// runtime error that says why, untimed.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "autotune/remote/remote_measure.h"
#include "codegen/gpu_runtime.h"
#include "schedules/gpu_schedules.h"
#include "runtime/cuda_events.h"
#include "runtime/io.h"
#include "base/errors.h"
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

// Measures two gemm schedules remotely (kept under TEST_TMPDIR/name) and returns results.json of that batch.
nlohmann::json measure_two(const std::string &name, std::vector<autotune::MeasureResult> *res) {
  tetune::Task t = cuda_gemm(128);
  autotune::RemoteOptions ro;
  ro.runner = "runtime/tetune_measure_runner";  // runfiles of the test
  ro.work_dir = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  ro.keep = true;
  autotune::MeasureOptions mo;
  mo.repeat = 3;
  mo.min_repeat_ms = 2;
  autotune::RemoteMeasurer m(t, mo, ro);
  std::vector<autotune::MeasureInput> ins = {{gpu_gemm_schedule(t.outputs[0], GpuGemmTiles{32, 4, 8}).trace(), ""},
                                             {gpu_gemm_schedule(t.outputs[0], GpuGemmTiles{64, 4, 16}).trace(), ""}};
  *res = m.measure_batch(ins);
  return nlohmann::json::parse(rt::read_file_bytes(ro.work_dir + "/batch_1/results.json"));  // batch_0: the probe
}

TEST(GpuRemoteMeasure, CostsComeFromCudaEvents) {
  SKIP_WITHOUT_GPU();
  std::vector<autotune::MeasureResult> res;
  nlohmann::json j = measure_two("events", &res);
  ASSERT_EQ(res.size(), 2u);
  for (const auto &r : res) {
    EXPECT_TRUE(r.ok()) << r.error_msg;
    EXPECT_EQ(r.costs_ms.size(), 3u);
    for (double c : r.costs_ms) EXPECT_TRUE(std::isfinite(c) && c > 0) << c;
  }
  ASSERT_EQ(j.at("results").size(), 2u);
  for (const auto &x : j.at("results")) EXPECT_EQ(x.at("clock"), "cuda_event") << x.dump();
}

TEST(GpuRemoteMeasure, WithoutAGpuEachKernelFailsUntimedWithAReason) {
  std::string why;
  if (cuda_device_available(&why)) GTEST_SKIP() << "a GPU is present; CostsComeFromCudaEvents covers it";
  std::vector<autotune::MeasureResult> res;
  nlohmann::json j = measure_two("no_gpu", &res);
  ASSERT_EQ(res.size(), 2u);
  for (const auto &r : res) {
    EXPECT_EQ(r.error, tuning_log::ErrorCode::kRuntimeError) << r.error_msg;
    EXPECT_NE(r.error_msg.find("Halide error"), std::string::npos) << r.error_msg;
    EXPECT_TRUE(r.costs_ms.empty());
  }
  for (const auto &x : j.at("results")) EXPECT_EQ(x.at("clock"), "") << x.dump();
  // The batch's Halide runtime is asked for its context without creating one: none exists here.
  void *lib = dlopen((std::string(std::getenv("TEST_TMPDIR")) + "/no_gpu/batch_1/batch.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  try {
    rt::halide_cuda_stream(lib);
    FAIL() << "expected RuntimeError";
  } catch (const RuntimeError &e) {
    EXPECT_NE(std::string(e.what()).find("has no context yet"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tetune
