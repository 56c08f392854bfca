// The Halide target chosen from CPUID words: on CPUs not at hand (their words
// below), and on this machine against the kernel's own /proc/cpuinfo flags.
#include "runtime/cpu_features.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

namespace tetune::rt {
namespace {

bool has(const std::string &target, const std::string &feature) {
  std::string padded = target + "-";
  return padded.find("-" + feature + "-") != std::string::npos;
}

bool contains(const std::vector<std::string> &v, const std::string &x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Words of each CPU. Zen 4 was read on an AMD EPYC (family 25 model 17) VM;
// the others are composed from the parts' documented CPUID bits (Intel SDM
// vol. 2A table 3-8; the Linux flags of the parts), one word per leaf.
CpuidWords zen4() {
  CpuidWords w;
  w.vendor = "AuthenticAMD";
  w.family = 25, w.model = 17;
  w.leaf1_ecx = 0xfffa3203, w.leaf1_edx = 0x178bfbff;
  w.leaf7_ebx = 0xf1bf07ab, w.leaf7_ecx = 0x00405fc6, w.leaf7_edx = 0x00000010;
  w.leaf7_1_eax = 0x00000020;  // avx512_bf16, no avx_vnni
  w.ext1_ecx = 0x004003f3;
  w.xcr0 = 0xe7;
  return w;
}

CpuidWords zen3() {  // EPYC 7763: AVX2, no AVX-512
  CpuidWords w;
  w.vendor = "AuthenticAMD";
  w.family = 25, w.model = 1;
  w.leaf1_ecx = 0xfefa320b, w.leaf1_edx = 0x178bfbff;
  w.leaf7_ebx = 0x219c07a9, w.leaf7_ecx = 0x00400684;
  w.ext1_ecx = 0x20c23bff;
  w.xcr0 = 0x207;
  return w;
}

CpuidWords skylake_sp() {  // Xeon Gold 6148: AVX-512 F/CD/BW/DQ/VL
  CpuidWords w;
  w.vendor = "GenuineIntel";
  w.family = 6, w.model = 85;
  w.leaf1_ecx = 0x7ffa320b, w.leaf1_edx = 0x178bfbff;
  w.leaf7_ebx = 0xd19f4fb9, w.leaf7_ecx = 0x18;
  w.ext1_ecx = 0x121;
  w.xcr0 = 0x2ff;
  return w;
}

CpuidWords icelake_sp() {  // Xeon Platinum 8380: + IFMA, VBMI, VBMI2, VNNI, BITALG, VPOPCNTDQ
  CpuidWords w = skylake_sp();
  w.model = 106;
  w.leaf7_ebx = 0xf1bf07a9, w.leaf7_ecx = 0x00415f5e;
  w.xcr0 = 0x2e7;
  return w;
}

CpuidWords sapphire_rapids() {  // Xeon Platinum 8480+: + AVX512-FP16, BF16, AVX-VNNI, AMX
  CpuidWords w = icelake_sp();
  w.model = 143;
  w.leaf7_ecx = 0x1a415f7e, w.leaf7_edx = 0xbfcd4410;
  w.leaf7_1_eax = 0x30;
  w.xcr0 = 0x602e7;
  return w;
}

TEST(CpuFeatures, Zen4GetsCannonlakeNotSapphireRapids) {
  std::set<std::string> ext = usable_extensions(zen4());
  EXPECT_TRUE(ext.count("avx512vnni"));
  EXPECT_TRUE(ext.count("avx512bf16"));
  EXPECT_FALSE(ext.count("avx512fp16"));
  EXPECT_FALSE(ext.count("amx-tile"));
  X86TargetChoice c = choose_x86_target(ext);
  EXPECT_EQ(c.halide_target, "x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-f16c-fma-sse41");
  EXPECT_TRUE(missing_extensions(c.halide_target, ext).empty());
  // What Halide 14's get_host_target() picks for this CPU, and why it crashed.
  std::vector<std::string> lacks =
      missing_extensions("x86-64-linux-avx-avx2-avx512-avx512_sapphirerapids-f16c-fma-sse41", ext);
  EXPECT_TRUE(contains(lacks, "avx512fp16"));
  EXPECT_TRUE(contains(lacks, "amx-tile"));
  // The choice says what it leaves out and why.
  EXPECT_TRUE(contains(c.unused_extensions, "avx512vnni"));
  EXPECT_TRUE(contains(c.unused_extensions, "avx512bf16"));
  EXPECT_NE(c.note.find("avx512_sapphirerapids"), std::string::npos) << c.note;
  EXPECT_NE(c.note.find("avx512fp16"), std::string::npos) << c.note;
}

TEST(CpuFeatures, Zen3GetsAvx2Only) {
  X86TargetChoice c = choose_x86_target(usable_extensions(zen3()));
  EXPECT_EQ(c.halide_target, "x86-64-linux-avx-avx2-f16c-fma-sse41");
  EXPECT_TRUE(c.note.empty()) << c.note;  // nothing AVX-512 to mention
}

TEST(CpuFeatures, SkylakeSpGetsSkylakeLevel) {
  X86TargetChoice c = choose_x86_target(usable_extensions(skylake_sp()));
  EXPECT_EQ(c.halide_target, "x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41");
  EXPECT_NE(c.note.find("avx512_cannonlake"), std::string::npos) << c.note;
}

TEST(CpuFeatures, IcelakeSpGetsCannonlakeLevel) {
  X86TargetChoice c = choose_x86_target(usable_extensions(icelake_sp()));
  EXPECT_EQ(c.halide_target, "x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-f16c-fma-sse41");
  EXPECT_TRUE(contains(c.unused_extensions, "avx512vnni"));
}

TEST(CpuFeatures, SapphireRapidsGetsSapphireRapids) {
  X86TargetChoice c = choose_x86_target(usable_extensions(sapphire_rapids()));
  EXPECT_EQ(c.halide_target,
            "x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_sapphirerapids-avx512_skylake-f16c-fma-sse41");
  EXPECT_TRUE(c.unused_extensions.empty());
  EXPECT_TRUE(c.note.empty()) << c.note;
}

TEST(CpuFeatures, RegisterStateTheOsDoesNotSaveIsUnusable) {
  CpuidWords no_amx = sapphire_rapids();
  no_amx.xcr0 &= ~((1ull << 17) | (1ull << 18));  // AMX tile state off
  std::set<std::string> ext = usable_extensions(no_amx);
  EXPECT_FALSE(ext.count("amx-tile"));
  EXPECT_TRUE(ext.count("avx512fp16"));
  EXPECT_FALSE(has(choose_x86_target(ext).halide_target, "avx512_sapphirerapids"));

  CpuidWords no_zmm = skylake_sp();
  no_zmm.xcr0 = 0x7;  // x87, SSE, AVX: an OS that never saves ZMM registers
  std::string t = choose_x86_target(usable_extensions(no_zmm)).halide_target;
  EXPECT_EQ(t, "x86-64-linux-avx-avx2-f16c-fma-sse41");

  CpuidWords no_xsave = skylake_sp();
  no_xsave.xcr0 = 0;  // SSE registers are saved by FXSAVE, AVX ones only through XSAVE
  EXPECT_EQ(choose_x86_target(usable_extensions(no_xsave)).halide_target, "x86-64-linux-sse41");
}

TEST(CpuFeatures, RequiredExtensionsIgnoreNonX86Tokens) {
  EXPECT_TRUE(required_extensions("x86-64-linux").empty());
  EXPECT_TRUE(required_extensions("x86-64-linux-cuda-cuda_capability_86-jit-no_asserts").empty());
  std::vector<std::string> r = required_extensions("x86-64-linux-avx2-fma");
  EXPECT_TRUE(contains(r, "avx2"));
  EXPECT_TRUE(contains(r, "fma"));
  EXPECT_TRUE(std::is_sorted(r.begin(), r.end()));
}

// The kernel's /proc/cpuinfo name for an LLVM extension name.
std::string linux_flag(const std::string &llvm) {
  static const std::map<std::string, std::string> kRenamed = {
      {"sse3", "pni"},           {"sse4.1", "sse4_1"},           {"sse4.2", "sse4_2"},
      {"bmi", "bmi1"},           {"lzcnt", "abm"},               {"avxvnni", "avx_vnni"},
      {"avx512vnni", "avx512_vnni"}, {"avx512bf16", "avx512_bf16"}, {"avx512fp16", "avx512_fp16"},
      {"avx512vbmi2", "avx512_vbmi2"}, {"avx512bitalg", "avx512_bitalg"},
      {"avx512vpopcntdq", "avx512_vpopcntdq"}, {"avx512vp2intersect", "avx512_vp2intersect"},
      {"amx-tile", "amx_tile"},  {"amx-int8", "amx_int8"},        {"amx-bf16", "amx_bf16"}};
  auto it = kRenamed.find(llvm);
  return it == kRenamed.end() ? llvm : it->second;
}

// The kernel reports a flag only when the CPU has it and the OS enables its
// state, independently of this file's CPUID decoding.
TEST(CpuFeatures, HostTargetClaimsNothingTheKernelDoesNotReport) {
  std::ifstream in("/proc/cpuinfo");
  if (!in) GTEST_SKIP() << "no /proc/cpuinfo";
  std::string line, flags;
  while (std::getline(in, line))
    if (line.rfind("flags", 0) == 0) {
      flags = " " + line.substr(line.find(':') + 1) + " ";
      break;
    }
  if (flags.empty()) GTEST_SKIP() << "/proc/cpuinfo has no flags line (not x86)";
  X86TargetChoice c = choose_x86_target(host_extensions());
  for (const std::string &e : required_extensions(c.halide_target))
    EXPECT_NE(flags.find(" " + linux_flag(e) + " "), std::string::npos)
        << "host target " << c.halide_target << " uses " << e << ", which /proc/cpuinfo does not list";
  // And the converse: every extension the kernel lists was decoded.
  for (const char *e : {"avx2", "avx512f", "avx512fp16", "amx-tile", "avx512vnni", "avx512bf16"})
    EXPECT_EQ(host_extensions().count(e) > 0, flags.find(" " + linux_flag(e) + " ") != std::string::npos) << e;
}

}  // namespace
}  // namespace tetune::rt
