#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>

#include "tests/autotune/gemm_task.h"
#include "autotune/measure/measure.h"
#include "autotune/measure/record_store.h"
#include "autotune/tuner.h"
#include "base/errors.h"
#include "schedule/schedule.h"

namespace tetune {
namespace autotune {
namespace {

using testing::gemm_task;
using tuning_log::ErrorCode;

// Options for a small GEMM: a per-candidate timeout (s) and short repeats (ms each).
MeasureOptions quick(double timeout_s, double min_repeat_ms) {
  MeasureOptions o;
  o.timeout_s = timeout_s;
  o.min_repeat_ms = min_repeat_ms;
  return o;
}

std::vector<Step> tiled(const Task &t) {
  Schedule s(t.outputs);
  auto [jo, ji] = s.split("C", "j", 8);
  s.vectorize("C", ji);
  return s.trace();
}

TEST(Measure, NormalAndFaults) {
  Task t = gemm_task(32);
  MeasureOptions o = quick(3, 2);
  Measurer m(t, o);
  MeasureResult ok = m.measure({tiled(t), ""});
  EXPECT_EQ(ok.error, ErrorCode::kNoError) << ok.error_msg;
  EXPECT_GT(ok.median_ms, 0);
  EXPECT_EQ(ok.costs_ms.size(), 3u);
  EXPECT_GT(ok.gflops, 0);
  MeasureResult seg = m.measure({tiled(t), "segfault"});
  EXPECT_EQ(seg.error, ErrorCode::kCrash) << seg.error_msg;
  MeasureResult hang = m.measure({tiled(t), "hang"});
  EXPECT_EQ(hang.error, ErrorCode::kTimeout) << hang.error_msg;
  MeasureResult wrong = m.measure({tiled(t), "wrong"});
  EXPECT_EQ(wrong.error, ErrorCode::kWrongAnswer);
  EXPECT_NE(wrong.error_msg.find("max error"), std::string::npos) << wrong.error_msg;
  MeasureResult ce = m.measure({tiled(t), "compile_error"});
  EXPECT_EQ(ce.error, ErrorCode::kCompileError);
  Step bad = SplitStep{"C", "nope", 4};
  MeasureResult inv = m.measure({{bad}, ""});
  EXPECT_EQ(inv.error, ErrorCode::kInvalidSchedule) << inv.error_msg;
  // Still works after all of that.
  EXPECT_TRUE(m.measure({tiled(t), ""}).ok());
}

// Rounds: each candidate compiled once, timed in interleaved rounds; its costs hold every round's runs.
// A candidate that fails keeps its error, and the others their rounds.
TEST(Measure, BatchRoundsCompileOnceAndKeepEveryRound) {
  Task t = gemm_task(32);
  MeasureOptions o = quick(10, 1);
  o.repeat = 2;
  Measurer m(t, o);
  std::vector<MeasureResult> rs = m.measure_batch({{tiled(t), ""}, {tiled(t), "segfault"}, {tiled(t), ""}}, 3);
  ASSERT_EQ(rs.size(), 3u);
  for (size_t i : {0u, 2u}) {
    ASSERT_TRUE(rs[i].ok()) << rs[i].error_msg;
    EXPECT_EQ(rs[i].costs_ms.size(), 6u);
    EXPECT_GT(rs[i].median_ms, 0);
  }
  EXPECT_EQ(rs[1].error, ErrorCode::kCrash) << rs[1].error_msg;
  std::vector<MeasureResult> one = m.measure_batch({{tiled(t), ""}}, 2);  // a single candidate times its rounds too
  ASSERT_TRUE(one.at(0).ok()) << one[0].error_msg;
  EXPECT_EQ(one[0].costs_ms.size(), 4u);
}

// Cold-, model- and l3-cache timing measure the same way (one cost per repeat, checked first); in the
// model and l3 states a constant-input index beyond the inputs is ignored, not a crash.
TEST(Measure, EvictingCacheStatesGiveCheckedCosts) {
  for (CacheState cache : {CacheState::kCold, CacheState::kModel, CacheState::kL3}) {
    SCOPED_TRACE(cache_state_name(cache));
    Task t = gemm_task(32);
    t.constant_inputs = {1, 7};
    MeasureOptions o = quick(3, 1);
    o.repeat = 4;
    o.cache = cache;
    Measurer m(t, o);
    MeasureResult ok = m.measure({tiled(t), ""});
    EXPECT_EQ(ok.error, ErrorCode::kNoError) << ok.error_msg;
    EXPECT_EQ(ok.costs_ms.size(), 4u);
    for (double c : ok.costs_ms) EXPECT_GT(c, 0);
    EXPECT_EQ(m.measure({tiled(t), "wrong"}).error, ErrorCode::kWrongAnswer);
  }
}

// A kernel of microseconds that reads a few rows of a large constant (an embedding Gather): the runs per
// repeat count the eviction of the whole constant, so timing it flushed ends well inside the timeout
// (counted from one warm run, 1000 runs x 3 repeats would flush 64 MB 3000 times).
TEST(Measure, RunsPerRepeatCountTheEviction) {
  const int rows = 1 << 16, cols = 256;  // 64 MiB of float32
  Tensor table = placeholder({rows, cols}, float32(), "table");
  Tensor out = compute({4, cols}, [&](const std::vector<Var> &i) { return table(i[0], i[1]); }, "out", "gather", {"i", "j"});
  Task t = make_task("gather_rows", {out}, Target{}, 1);
  t.constant_inputs = {0};
  for (CacheState cache : {CacheState::kModel, CacheState::kL3}) {
    SCOPED_TRACE(cache_state_name(cache));
    MeasureOptions o = quick(20, 10);
    o.cache = cache;
    const auto t0 = std::chrono::steady_clock::now();
    MeasureResult r = Measurer(t, o).measure({Schedule(t.outputs).trace(), ""});
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_EQ(r.error, ErrorCode::kNoError) << r.error_msg;
    EXPECT_EQ(r.costs_ms.size(), 3u);
    EXPECT_LT(s, 15) << "the eviction runs about min_repeat_ms per repeat, not 1000 times";
  }
}

// Evicting only moves lines between cache levels: the arrays hold what they held.
TEST(Measure, EvictionLeavesTheArraysAsTheyWere) {
  Task t = gemm_task(32);
  t.constant_inputs = {1};
  std::vector<NDArray> in = {NDArray::random({32, 32}, float32(), 1), NDArray::random({32, 32}, float32(), 2)};
  std::vector<NDArray> out = {NDArray::random({32, 32}, float32(), 3)};
  std::vector<std::vector<float>> before;
  for (const NDArray *a : {&in[0], &in[1], &out[0]})
    before.emplace_back(static_cast<const float *>(a->raw()), static_cast<const float *>(a->raw()) + 32 * 32);
  for (CacheState c : {CacheState::kCold, CacheState::kModel, CacheState::kL3}) {
    SCOPED_TRACE(cache_state_name(c));
    evict_before_run(c, t, in, out);
    int k = 0;
    for (const NDArray *a : {&in[0], &in[1], &out[0]})
      EXPECT_EQ(std::vector<float>(static_cast<const float *>(a->raw()), static_cast<const float *>(a->raw()) + 32 * 32),
                before[k++]);
  }
}

TEST(Measure, CacheStateNames) {
  for (CacheState c : {CacheState::kWarm, CacheState::kCold, CacheState::kModel, CacheState::kL3})
    EXPECT_EQ(parse_cache_state(cache_state_name(c)), c);
  try {
    parse_cache_state("hot");
    FAIL() << "an unknown name is an error";
  } catch (const tetune::Error &e) {
    EXPECT_NE(std::string(e.what()).find("'hot'"), std::string::npos) << e.what();
  }
}

TEST(Measure, ParallelBatchKeepsIsolationAndCodes) {
  Task t = gemm_task(32);
  MeasureOptions o = quick(3, 2);
  o.parallel_builds = 2;
  Measurer m(t, o);
  Step bad = SplitStep{"C", "nope", 4};
  std::vector<MeasureInput> ins = {{tiled(t), ""},           {tiled(t), "segfault"}, {tiled(t), "hang"},
                                   {tiled(t), "wrong"},      {tiled(t), "compile_error"}, {{bad}, ""},
                                   {tiled(t), "runtime_error"}, {tiled(t), ""}};
  auto r = m.measure_batch(ins);
  ASSERT_EQ(r.size(), ins.size());
  EXPECT_EQ(r[0].error, ErrorCode::kNoError) << r[0].error_msg;
  EXPECT_EQ(r[0].costs_ms.size(), 3u);
  EXPECT_GT(r[0].gflops, 0);
  EXPECT_EQ(r[1].error, ErrorCode::kCrash) << r[1].error_msg;
  EXPECT_EQ(r[2].error, ErrorCode::kTimeout) << r[2].error_msg;
  EXPECT_EQ(r[3].error, ErrorCode::kWrongAnswer) << r[3].error_msg;
  EXPECT_EQ(r[4].error, ErrorCode::kCompileError) << r[4].error_msg;
  EXPECT_EQ(r[5].error, ErrorCode::kInvalidSchedule) << r[5].error_msg;
  EXPECT_EQ(r[6].error, ErrorCode::kRuntimeError) << r[6].error_msg;
  EXPECT_EQ(r[7].error, ErrorCode::kNoError) << r[7].error_msg;
  for (size_t i = 1; i < 7; i++) EXPECT_TRUE(std::isinf(r[i].median_ms)) << i;
  // Same answers as the sequential path.
  o.parallel_builds = 1;
  Measurer seq(t, o);
  auto s = seq.measure_batch({ins[0], ins[1], ins[3]});
  EXPECT_EQ(s[0].error, ErrorCode::kNoError);
  EXPECT_EQ(s[1].error, ErrorCode::kCrash);
  EXPECT_EQ(s[2].error, ErrorCode::kWrongAnswer);
}

// The parallel batch keeps both cores compiling, but a candidate is timed only
// while no other child of ours builds, and never more than max_alive children
// are alive. Checked on the windows each child reports (CLOCK_MONOTONIC).
TEST(Measure, ParallelBatchTimesOnlyWhileNothingBuilds) {
  Task t = gemm_task(48);
  MeasureOptions o = quick(10, 2);
  o.parallel_builds = 2;
  o.max_alive = 3;
  Measurer m(t, o);
  std::vector<MeasureInput> ins(7, MeasureInput{tiled(t), ""});
  auto r = m.measure_batch(ins);
  ASSERT_EQ(r.size(), ins.size());
  for (const auto &x : r) {
    ASSERT_TRUE(x.ok()) << x.error_msg;
    EXPECT_LT(x.build_begin_s, x.build_end_s);
    EXPECT_LE(x.build_end_s, x.timing_begin_s);
    EXPECT_LT(x.timing_begin_s, x.timing_end_s);
  }
  auto overlap = [](double b0, double e0, double b1, double e1) { return b0 < e1 && b1 < e0; };
  bool builds_overlapped = false;
  for (size_t i = 0; i < r.size(); i++)
    for (size_t j = 0; j < r.size(); j++) {
      if (i == j) continue;
      EXPECT_FALSE(overlap(r[i].timing_begin_s, r[i].timing_end_s, r[j].build_begin_s, r[j].build_end_s))
          << "candidate " << i << " was timed while candidate " << j << " built";
      EXPECT_FALSE(overlap(r[i].timing_begin_s, r[i].timing_end_s, r[j].timing_begin_s, r[j].timing_end_s));
      builds_overlapped |= overlap(r[i].build_begin_s, r[i].build_end_s, r[j].build_begin_s, r[j].build_end_s);
    }
  EXPECT_TRUE(builds_overlapped) << "no two candidates compiled at the same time";
  // A core freed by a finished build is refilled: some build starts while another candidate waits to be timed.
  bool refilled = false;
  for (const auto &x : r)
    for (const auto &y : r) refilled |= x.build_end_s <= y.build_begin_s && y.build_begin_s < x.timing_begin_s;
  EXPECT_TRUE(refilled);
  // A child lives at least from its build's start to its timing's end.
  for (const auto &x : r) {
    int alive = 0;
    for (const auto &y : r) alive += y.build_begin_s <= x.build_begin_s && x.build_begin_s < y.timing_end_s;
    EXPECT_LE(alive, o.max_alive);
  }
}

TEST(Measure, TuningLoopContinuesAfterFaultsAndRecordsThem) {
  Task t = gemm_task(32);
  std::string db = std::string(std::getenv("TEST_TMPDIR")) + "/faults.db";
  TuneOptions o;
  o.trials = 8;
  o.batch_size = 4;
  o.policy = "random";
  o.db_path = db;
  o.measure.timeout_s = 3;
  o.measure.min_repeat_ms = 2;
  o.test_fault = [](int i) {
    const char *f[] = {"", "segfault", "hang", "wrong", "", "", "", ""};
    return std::string(f[i % 8]);
  };
  TuneResult r = tune(t, o);
  EXPECT_EQ(r.measured, 8);
  EXPECT_GE(r.errors, 3);
  RecordStore st(db, t.workload_key, t.name, "{}", 1);
  auto recs = st.records();
  ASSERT_EQ(recs.size(), 8u);
  EXPECT_EQ(recs[1].error_code, static_cast<int>(ErrorCode::kCrash));
  EXPECT_EQ(recs[2].error_code, static_cast<int>(ErrorCode::kTimeout));
  EXPECT_EQ(recs[3].error_code, static_cast<int>(ErrorCode::kWrongAnswer));
  EXPECT_TRUE(std::isinf(recs[1].median_ms));
  EXPECT_GT(r.best_gflops, 0);
}

}  // namespace
}  // namespace autotune
}  // namespace tetune
