// "host" compiles for what this CPU reports, and a JIT build for a target the
// CPU cannot run is refused with the extensions it lacks (not SIGILL).
#include "codegen/host_target.h"

#include <gtest/gtest.h>

#include "codegen/kernel.h"
#include "base/errors.h"
#include "te/ops/elementwise.h"
#include "te/tensor.h"

namespace tetune {
namespace {

TEST(HostTarget, HostMeansWhatThisCpuCanRun) {
  std::string t = Target{"host"}.halide_string();
  EXPECT_TRUE(codegen::host_lacks(t).empty()) << t;
  EXPECT_EQ(codegen::host_halide_target().rfind("x86-64-", 0), 0u);
}

TEST(HostTarget, JitBuildForAnExtensionThisCpuLacksIsRefused) {
  const std::string spr = "x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_sapphirerapids-avx512_skylake-f16c-fma-sse41";
  std::vector<std::string> lacks = codegen::host_lacks(spr);
  if (lacks.empty()) GTEST_SKIP() << "this CPU runs avx512_sapphirerapids code; nothing to refuse";
  Tensor a = placeholder({8}, float32(), "a");
  Tensor b = ops::relu(a);
  Schedule s({b});
  try {
    Kernel::build(s, Target{spr});
    FAIL() << "a JIT build for " << spr << " was accepted on a CPU lacking " << lacks.front();
  } catch (const CodegenError &e) {
    EXPECT_NE(std::string(e.what()).find(lacks.front()), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tetune
