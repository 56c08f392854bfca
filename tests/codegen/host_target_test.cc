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

// The register file the search space sizes register blocks by, read from
// the target's features (not its name).
TEST(HostTarget, VectorUnitFollowsTheFeatures) {
  const Target::VectorUnit avx512 = Target{"x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41"}.vector_unit();
  EXPECT_EQ(avx512.lanes, 16);
  EXPECT_EQ(avx512.registers, 32);
  EXPECT_TRUE(avx512.fma);
  const Target::VectorUnit avx2 = Target{"x86-64-linux-avx2-fma-f16c-sse41"}.vector_unit();
  EXPECT_EQ(avx2.lanes, 8);
  EXPECT_EQ(avx2.registers, 16);
  EXPECT_TRUE(avx2.fma);
  const Target::VectorUnit avx = Target{"x86-64-linux-avx-sse41"}.vector_unit();
  EXPECT_EQ(avx.lanes, 8);
  EXPECT_FALSE(avx.fma);
  EXPECT_EQ(Target{"x86-64-linux-sse41"}.vector_unit().lanes, 4);
  const Target::VectorUnit host = Target{"host"}.vector_unit();
  EXPECT_GE(host.lanes, 4);
  EXPECT_GE(host.registers, 16);
}

}  // namespace
}  // namespace tetune
