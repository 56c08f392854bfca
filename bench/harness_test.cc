#include "bench/harness.h"

#include <gtest/gtest.h>

#include <vector>

namespace tetune {
namespace bench {
namespace {

BenchSpec small_gemm() {
  BenchSpec s;
  s.name = "test_gemm_small";
  s.kind = BenchKind::kGemm;
  s.M = 17;
  s.N = 9;
  s.K = 33;
  return s;
}

TEST(Harness, MedianOfRepeats) {
  int calls = 0;
  double ms = median_ms_of([&] { ++calls; }, 2, 7);
  EXPECT_EQ(calls, 9);
  EXPECT_GE(ms, 0.0);
  EXPECT_EQ(repeats_for(1000.0), 3);   // slow: >= 3
  EXPECT_EQ(repeats_for(250.0), 6);    // 1.5 s / 250 ms
  EXPECT_EQ(repeats_for(290.0), 6);
  EXPECT_EQ(repeats_for(299.0, 0.5), 5);  // fast: >= 5
  EXPECT_EQ(repeats_for(0.001), 200);
}

TEST(Harness, CorrectKernelIsTimed) {
  BenchSpec s = small_gemm();
  const BenchData &d = bench_data(s);
  std::vector<float> out(s.output_elems());
  auto run = [&] {  // naive float GEMM: different summation than the reference
    for (int64_t i = 0; i < s.M; ++i)
      for (int64_t j = 0; j < s.N; ++j) {
        float acc = 0;
        for (int64_t k = 0; k < s.K; ++k) acc += d.input0[i * s.K + k] * d.input1[k * s.N + j];
        out[i * s.N + j] = acc;
      }
  };
  BenchResult r = check_and_time(s, "naive", 1, run, out.data());
  EXPECT_TRUE(r.ok()) << r.error;
  EXPECT_LT(r.max_abs_err, tolerance_for(s));
  EXPECT_GT(r.median_ms, 0.0);
  EXPECT_GE(r.repeats, 5);
}

TEST(Harness, WrongKernelGivesErrorRow) {
  BenchSpec s = small_gemm();
  std::vector<float> out(s.output_elems());
  int calls = 0;
  auto run = [&] {  // transposed indexing bug
    ++calls;
    const BenchData &d = bench_data(s);
    for (int64_t i = 0; i < s.M; ++i)
      for (int64_t j = 0; j < s.N; ++j) {
        float acc = 0;
        for (int64_t k = 0; k < s.K; ++k) acc += d.input0[i * s.K + k] * d.input1[j * s.K % (s.K * s.N) + k];
        out[i * s.N + j] = acc;
      }
  };
  BenchResult r = check_and_time(s, "buggy", 1, run, out.data());
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("WRONG RESULT"), std::string::npos);
  EXPECT_EQ(calls, 1);  // not timed
}

TEST(Harness, KernelThatWritesNothingIsWrong) {
  BenchSpec s = small_gemm();
  std::vector<float> out(s.output_elems(), 0.0f);
  BenchResult r = check_and_time(s, "noop", 1, [] {}, out.data());
  EXPECT_FALSE(r.ok());  // output poisoned with NaN before the checked call
}

TEST(Harness, ConvReferenceMatchesDirectFormula) {
  BenchSpec s;
  s.name = "test_conv_small";
  s.kind = BenchKind::kConv2d;
  s.batch = 2; s.in_c = 3; s.in_h = 5; s.in_w = 6; s.out_c = 4; s.kh = 3; s.kw = 3;
  s.stride = 2; s.pad = 1;
  const BenchData &d = bench_data(s);
  const int64_t OH = s.out_h(), OW = s.out_w();
  ASSERT_EQ(OH, 3);
  ASSERT_EQ(OW, 3);
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t k = 0; k < s.out_c; ++k)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double acc = 0;
          for (int64_t c = 0; c < s.in_c; ++c)
            for (int64_t r = 0; r < 3; ++r)
              for (int64_t q = 0; q < 3; ++q) {
                int64_t ih = oh * 2 + r - 1, iw = ow * 2 + q - 1;
                if (ih < 0 || ih >= s.in_h || iw < 0 || iw >= s.in_w) continue;
                acc += double(d.input0[((n * 3 + c) * 5 + ih) * 6 + iw]) *
                       d.input1[((k * 3 + c) * 3 + r) * 3 + q];
              }
          EXPECT_NEAR(d.reference[((n * 4 + k) * OH + oh) * OW + ow], acc, 1e-5);
        }
}

TEST(Harness, JsonRoundTrip) {
  BenchResult r;
  r.bench = "gemm1024";
  r.impl = "tetune-tuned";
  r.threads = 2;
  r.median_ms = 7.5;
  r.gflops = 286.3;
  r.best_ms = 7.25;
  r.max_abs_err = 3e-5;
  r.repeats = 12;
  r.note = "a \"quoted\" note\twith tab";
  BenchResult b = from_json(to_json(r, "run1"));
  EXPECT_EQ(b.bench, r.bench);
  EXPECT_EQ(b.impl, r.impl);
  EXPECT_EQ(b.threads, 2);
  EXPECT_DOUBLE_EQ(b.median_ms, 7.5);
  EXPECT_NEAR(b.gflops, 286.3, 1e-9);
  EXPECT_DOUBLE_EQ(b.best_ms, 7.25);
  EXPECT_EQ(b.note, r.note);
  EXPECT_TRUE(b.ok());

  BenchResult e;
  e.bench = "conv";
  e.impl = "x";
  e.threads = 1;
  e.error = "WRONG RESULT: max abs err 3 > tol 0.01";
  BenchResult eb = from_json(to_json(e));
  EXPECT_FALSE(eb.ok());
  EXPECT_EQ(eb.error, e.error);
  EXPECT_THROW(from_json("{\"bench\":"), tetune::ParseError);
}

// A line of bench/results/kernels.jsonl: read back, and written again the same.
TEST(Harness, JsonLinesKeepTheirFormat) {
  const std::string line =
      "{\"bench\":\"gemm1024\",\"impl\":\"onednn\",\"threads\":1,\"median_ms\":22.864,\"gflops\":93.9242,"
      "\"max_abs_err\":3.24249e-05,\"best_ms\":16.6347,\"repeats\":253,\"note\":\"dnnl_sgemm\",\"run\":\"2026-11-21T20:30:13\"}";
  BenchResult r = from_json(line);
  EXPECT_EQ(r.impl, "onednn");
  EXPECT_EQ(r.repeats, 253);
  EXPECT_DOUBLE_EQ(r.max_abs_err, 3.24249e-05);
  EXPECT_EQ(to_json(r, "2026-11-21T20:30:13"), line);
  r.gflops = 93.92424242;  // six significant digits, as before
  EXPECT_EQ(to_json(r, "2026-11-21T20:30:13"), line);

  const std::string failed =
      "{\"bench\":\"conv\",\"impl\":\"x\",\"threads\":2,\"median_ms\":null,\"gflops\":null,\"max_abs_err\":null,"
      "\"best_ms\":null,\"repeats\":0,\"note\":\"\",\"error\":\"child killed by signal 11\"}";
  BenchResult f = from_json(failed);
  EXPECT_FALSE(f.ok());
  EXPECT_EQ(f.max_abs_err, -1);
  EXPECT_EQ(f.best_ms, 0);
  EXPECT_EQ(to_json(f), failed);
}

TEST(Harness, RegistryRejectsDuplicates) {
  register_impl("test-impl-dup", [](const BenchSpec &, int) { return BenchResult{}; });
  EXPECT_THROW(register_impl("test-impl-dup", nullptr), tetune::Error);
}

}  // namespace
}  // namespace bench
}  // namespace tetune
