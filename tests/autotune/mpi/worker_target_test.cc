// TETUNE_MPI_TARGET (autotune/mpi/worker_target.h): the host by default; a smaller x86-64 target compiles the
// tasks for it and reports only its features; a target this CPU cannot run is refused naming the variable.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <vector>

#include "autotune/mpi/worker_target.h"
#include "base/errors.h"
#include "codegen/host_target.h"
#include "tests/autotune/gemm_task.h"

namespace tetune {
namespace autotune {
namespace mpi {
namespace {

std::set<std::string> features(const tuning_log::TargetInfo &t) {
  std::set<std::string> out;
  std::istringstream is(t.features);
  for (std::string f; std::getline(is, f, ',');) out.insert(f);
  return out;
}

bool host_is_x86_64() { return codegen::host_halide_target().rfind("x86-64-", 0) == 0; }

// The message of the UsageError that WorkerTarget(spec) raises ("" when it raises none).
std::string refusal(const std::string &spec) {
  try {
    WorkerTarget t(spec);
  } catch (const UsageError &e) {
    return e.what();
  }
  return "";
}

TEST(WorkerTarget, HostByDefaultAndForTheHostsOwnTargetString) {
  for (const std::string &spec : std::vector<std::string>{"", "host", codegen::host_halide_target()}) {
    WorkerTarget t(spec);
    EXPECT_TRUE(t.is_host()) << spec;
    EXPECT_EQ(t.info(3).key(), tuning_log::host_target_info(3).key()) << spec;
  }
  Task task = testing::gemm_task(8);
  EXPECT_EQ(WorkerTarget().retarget(task).target.spec, task.target.spec);
}

TEST(WorkerTarget, Avx2CompilesForItAndReportsOnlyItsFeatures) {
  const std::string avx2 = "x86-64-linux-avx2-fma";
  if (!host_is_x86_64() || !codegen::host_lacks(avx2).empty()) GTEST_SKIP() << "this CPU cannot run " << avx2;
  const std::set<std::string> host = features(tuning_log::host_target_info(2));
  if (!host.count("avx512f")) GTEST_SKIP() << "without AVX-512, AVX2 may be all this CPU reports: nothing to leave out";
  WorkerTarget t(avx2);
  ASSERT_FALSE(t.is_host());
  EXPECT_EQ(t.retarget(testing::gemm_task(8)).target.spec, avx2);
  tuning_log::TargetInfo info = t.info(2);
  EXPECT_EQ(info.threads, 2);
  EXPECT_EQ(info.cpu_model, tuning_log::host_target_info(2).cpu_model);
  const std::set<std::string> got = features(info);
  for (const char *f : {"avx", "avx2", "fma", "f16c", "sse4_1", "sse4_2", "bmi1", "bmi2"})
    if (host.count(f)) {
      EXPECT_TRUE(got.count(f)) << f << " missing from " << info.features;
    }
  for (const auto &f : got) {
    EXPECT_TRUE(host.count(f)) << f << " is not among this CPU's features";
    EXPECT_NE(f.rfind("avx512", 0), 0u) << f << " is not an AVX2 feature";
  }
  EXPECT_NE(info.key(), tuning_log::host_target_info(2).key());
}

TEST(WorkerTarget, RefusesTargetsThisMachineCannotRunNamingTheVariable) {
  for (const std::string &spec : std::vector<std::string>{"cuda", "arm-64-linux", "not-a-target"}) {
    std::string why = refusal(spec);
    EXPECT_NE(why.find(std::string(kTargetVariable) + "=" + spec), std::string::npos) << spec << ": '" << why << "'";
  }
  EXPECT_NE(refusal("cuda").find("GPU"), std::string::npos);
  EXPECT_NE(refusal("arm-64-linux").find("architecture"), std::string::npos);
}

TEST(WorkerTarget, RefusesExtensionsThisCpuLacksNamingThem) {
  const std::string spr = "x86-64-linux-avx512_sapphirerapids";
  if (!host_is_x86_64()) GTEST_SKIP() << "not an x86-64 host";
  std::vector<std::string> lacks = codegen::host_lacks(spr);
  if (lacks.empty()) GTEST_SKIP() << "this CPU runs " << spr;
  std::string why = refusal(spr);
  EXPECT_NE(why.find(std::string(kTargetVariable) + "=" + spr), std::string::npos) << why;
  for (const auto &e : lacks) EXPECT_NE(why.find(e), std::string::npos) << e << " not named in: " << why;
}

}  // namespace
}  // namespace mpi
}  // namespace autotune
}  // namespace tetune
