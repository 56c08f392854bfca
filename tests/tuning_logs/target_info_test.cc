#include "tuning_logs/target_info.h"

#include <gtest/gtest.h>

#include <cmath>

#include "base/errors.h"
#include "tests/tuning_logs/test_util.h"
#include "tuning_logs/error_code.h"

namespace tetune::tuning_log {
namespace {

using testing::cpu_target;

TEST(TargetInfoTest, KeyJoinsEveryFieldAndIsInjective) {
  TargetInfo t = cpu_target(8);
  EXPECT_EQ(t.key(),
            "kind=llvm|cpu=Test CPU 9000|features=avx2,fma|threads=8|"
            "libs=halide=14.0.0|device=");
  TargetInfo a = t, b = t;
  a.cpu_model = "x|features=y";
  b.cpu_model = "x";
  b.features = "y|features=" + t.features;
  EXPECT_NE(a.key(), b.key());
  TargetInfo c = t;
  c.device = "NVIDIA H100";
  EXPECT_NE(c.key(), t.key());
  EXPECT_TRUE(t == cpu_target(8));
  EXPECT_TRUE(t != cpu_target(4));
}

TEST(TargetInfoTest, DistanceOrdersDifferences) {
  TargetInfo base = cpu_target(8);
  EXPECT_EQ(compatibility_distance(base, base), 0.0);
  double threads = compatibility_distance(base, cpu_target(16));
  double threads_far = compatibility_distance(base, cpu_target(1));
  double features = compatibility_distance(base, cpu_target(8, "avx2,avx512f,fma"));
  double cpu = compatibility_distance(base, cpu_target(8, "avx2,fma", "Other CPU"));
  TargetInfo libs = base;
  libs.library_versions = "halide=15.0.0";
  double lib = compatibility_distance(base, libs);
  EXPECT_GT(threads, 0.0);
  EXPECT_LT(threads, threads_far);
  EXPECT_LT(threads_far, features);
  EXPECT_GT(lib, 0.0);
  EXPECT_LT(lib, features);
  EXPECT_LT(features, cpu);
  // Symmetric.
  EXPECT_EQ(threads, compatibility_distance(cpu_target(16), base));
}

TEST(TargetInfoTest, DifferentKindOrGpuIsIncompatible) {
  TargetInfo cpu = cpu_target(8);
  TargetInfo gpu = cpu;
  gpu.kind = "cuda";
  gpu.device = "NVIDIA H100";
  EXPECT_TRUE(std::isinf(compatibility_distance(cpu, gpu)));
  EXPECT_FALSE(is_compatible(cpu, gpu));
  TargetInfo gpu2 = gpu;
  gpu2.device = "NVIDIA A100";
  EXPECT_FALSE(is_compatible(gpu, gpu2));
  TargetInfo gpu3 = gpu;
  gpu3.threads = 1;
  EXPECT_TRUE(is_compatible(gpu, gpu3));
  EXPECT_NE(describe_difference(cpu, gpu).find("kind"), std::string::npos);
  EXPECT_EQ(describe_difference(cpu, cpu), "identical");
  EXPECT_NE(describe_difference(cpu, cpu_target(4)).find("threads 8 vs 4"),
            std::string::npos);
}

TEST(TargetInfoTest, ParsesCpuinfo) {
  const char *text =
      "processor\t: 0\n"
      "model name\t: Intel(R) Xeon(R) Gold 6348\n"
      "flags\t\t: fpu sse sse2 avx2 fma hypervisor avx512f avx512bw constant_tsc\n"
      "processor\t: 1\n"
      "model name\t: Something else\n";
  TargetInfo t = target_info_from_cpuinfo(text, 4, "halide=14.0.0");
  EXPECT_EQ(t.kind, "llvm");
  EXPECT_EQ(t.cpu_model, "Intel(R) Xeon(R) Gold 6348");
  EXPECT_EQ(t.features, "avx2,avx512bw,avx512f,fma,sse,sse2");
  EXPECT_EQ(t.threads, 4);
  EXPECT_EQ(t.device, "");
  TargetInfo arm = target_info_from_cpuinfo(
      "processor : 0\nFeatures : fp asimd sve evtstrm\nCPU part : 0xd0c\n", 2, "");
  EXPECT_EQ(arm.cpu_model, "CPU part 0xd0c");
  EXPECT_EQ(arm.features, "asimd,sve");
}

TEST(TargetInfoTest, HostTargetInfo) {
  TargetInfo t = host_target_info(3);
  EXPECT_EQ(t.kind, "llvm");
  EXPECT_FALSE(t.cpu_model.empty());
  EXPECT_EQ(t.threads, 3);
  EXPECT_EQ(t.library_versions, kDefaultLibraryVersions);
  EXPECT_GE(host_target_info(0).threads, 1);
  EXPECT_EQ(compatibility_distance(host_target_info(3), t), 0.0);
}

TEST(ErrorCodeTest, RoundTripsNames) {
  for (int i = 0; i <= 7; ++i) {
    ErrorCode c = error_code_from_int(i);
    EXPECT_EQ(error_code_from_string(to_string(c)), c);
    EXPECT_EQ(error_code_from_string(std::to_string(i)), c);
  }
  EXPECT_EQ(to_string(ErrorCode::kTimeout), "timeout");
  EXPECT_EQ(error_code_from_string("wrong_answer"), ErrorCode::kWrongAnswer);
  EXPECT_THROW(error_code_from_string("exploded"), ParseError);
  EXPECT_THROW(error_code_from_int(8), ParseError);
  EXPECT_THROW(error_code_from_int(-1), ParseError);
}

}  // namespace
}  // namespace tetune::tuning_log
