#include "tuning_logs/database.h"

#include <gtest/gtest.h>

#include <sstream>
#include <stdlib.h>

#include <cmath>
#include <limits>

#include "base/errors.h"
#include "tests/tuning_logs/backends.h"
#include "tests/tuning_logs/test_util.h"

namespace tetune::tuning_log {
namespace {

using testing::cpu_target;
using testing::record;
using testing::workload;

// Every test runs on a SQLite file and on a PostgreSQL database (backends.h).
class DatabaseTest : public testing::BackendTest {};
INSTANTIATE_FOR_BOTH_BACKENDS(DatabaseTest);

TEST_P(DatabaseTest, RecordsRoundTrip) {
  TuningLog log = TuningLog::open(path_);
  const std::string tk = cpu_target().key();
  std::vector<MeasureRecord> added;
  for (int i = 0; i < 5; ++i) {
    MeasureRecord r = record("wl_a", tk, 1.0 + 0.125 * i, i);
    r.id = log.add_record(r);
    added.push_back(r);
  }
  MeasureRecord failed = record("wl_a", tk, 0, 99);
  failed.costs_ms.clear();
  failed.median_ms = std::numeric_limits<double>::infinity();
  failed.gflops = 0;
  failed.error_code = static_cast<int>(ErrorCode::kCompileError);
  failed.error_msg = "Halide::CompileError: bad split 'i' \xe2\x80\x94 utf8";
  failed.id = log.add_record(failed);
  added.push_back(failed);
  for (size_t i = 1; i < added.size(); ++i) EXPECT_GT(added[i].id, added[i - 1].id);

  auto got = log.records("wl_a", tk);
  ASSERT_EQ(got.size(), added.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_TRUE(same_record(got[i], added[i])) << "record " << i;
  }
  EXPECT_TRUE(std::isinf(got.back().median_ms));
  EXPECT_FALSE(got.back().ok());
  EXPECT_EQ(log.count_records("wl_a", tk), 6);
  EXPECT_EQ(log.count_records("wl_a", "other"), 0);
  EXPECT_EQ(log.count_all_records(), 6);

  // Survives closing and reopening.
  { TuningLog moved = std::move(log); }
  TuningLog again = TuningLog::open(path_);
  auto reread = again.records("wl_a", tk);
  ASSERT_EQ(reread.size(), added.size());
  for (size_t i = 0; i < reread.size(); ++i) {
    EXPECT_TRUE(same_record(reread[i], added[i]));
  }
  EXPECT_EQ(again.integrity_check(), "ok");
}

TEST_P(DatabaseTest, RejectsInvalidErrorCode) {
  TuningLog log = TuningLog::open(path_);
  MeasureRecord r = record("w", "t", 1.0);
  r.error_code = 42;
  EXPECT_THROW(log.add_record(r), TuningLogError);
  EXPECT_EQ(log.count_all_records(), 0);
}

TEST_P(DatabaseTest, BestPerWorkloadAndTarget) {
  TuningLog log = TuningLog::open(path_);
  const std::string t8 = cpu_target(8).key(), t4 = cpu_target(4).key();
  log.add_record(record("wl_a", t8, 3.0, 0));
  int64_t fastest = log.add_record(record("wl_a", t8, 1.5, 1));
  log.add_record(record("wl_a", t8, 2.0, 2));
  MeasureRecord bad = record("wl_a", t8, 0.1, 3);  // fast but wrong: ignored
  bad.error_code = static_cast<int>(ErrorCode::kWrongAnswer);
  log.add_record(bad);
  log.add_record(record("wl_a", t4, 0.5, 4));  // other target
  log.add_record(record("wl_b", t8, 0.2, 5));  // other workload

  auto best = log.best("wl_a", t8);
  ASSERT_EQ(best.size(), 1u);
  EXPECT_EQ(best[0].id, fastest);
  EXPECT_DOUBLE_EQ(best[0].median_ms, 1.5);

  auto top = log.best("wl_a", t8, 10);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_DOUBLE_EQ(top[0].median_ms, 1.5);
  EXPECT_DOUBLE_EQ(top[1].median_ms, 2.0);
  EXPECT_DOUBLE_EQ(top[2].median_ms, 3.0);
  EXPECT_TRUE(log.best("wl_a", t8, 0).empty());
  EXPECT_DOUBLE_EQ(log.best("wl_a", t4)[0].median_ms, 0.5);
  EXPECT_DOUBLE_EQ(log.best("wl_b", t8)[0].median_ms, 0.2);
  EXPECT_TRUE(log.best("wl_c", t8).empty());
}

// A schedule re-measured three times costs its middle measurement, and
// re-measured schedules rank before those measured once: its single lucky
// record no longer decides, and a single record from a faster phase of the
// machine does not outrank schedules compared with each other.
TEST_P(DatabaseTest, RepeatedSchedulesRankFirstAtTheirMiddleMeasurement) {
  TuningLog log = TuningLog::open(path_);
  const std::string t = cpu_target(2).key();
  MeasureRecord lucky = record("w", t, 1.0, 7);  // schedule 7, measured 1.0 once...
  log.add_record(lucky);
  int64_t single = log.add_record(record("w", t, 1.5, 8));  // schedule 8, once
  MeasureRecord again = lucky;
  again.median_ms = 2.0;  // ...then 2.0 and 1.9 when re-measured
  log.add_record(again);
  again.median_ms = 1.9;
  int64_t middle = log.add_record(again);
  log.add_record(record("w", t, 3.0, 9));

  auto top = log.best("w", t, 10);
  ASSERT_EQ(top.size(), 3u) << "one record per schedule";
  EXPECT_EQ(top[0].id, middle) << "re-measured first, at its middle measurement";
  EXPECT_DOUBLE_EQ(top[0].median_ms, 1.9);
  EXPECT_EQ(top[1].id, single);
  EXPECT_DOUBLE_EQ(top[2].median_ms, 3.0);

  // Two measurements: the slower one counts, and it beats the middle 1.9.
  MeasureRecord two = record("w", t, 0.5, 10);
  log.add_record(two);
  two.median_ms = 1.2;
  int64_t slower = log.add_record(two);
  EXPECT_EQ(log.best("w", t)[0].id, slower);
  EXPECT_EQ(log.best("w", t, 2)[1].id, middle);

  // Export --top 2 keeps every record of the two best-ranked schedules (10 and 7).
  std::ostringstream os;
  ExportFilter f;
  f.top = 2;
  EXPECT_EQ(log.export_jsonl(os, f), 5);
}

// A schedule timed inside its model outranks every schedule timed alone, at
// the middle of its in-model records only: `tune` compares a task's pick and
// its default in the model and `compile` must take the faster there, though
// both were faster alone.
TEST_P(DatabaseTest, InModelRecordsRankByTheirOwnTimesAfterLaterOnes) {
  TuningLog log = TuningLog::open(path_);
  const std::string t = cpu_target(2).key();
  MeasureRecord pick = record("w", t, 1.0, 7);  // fastest alone, re-measured
  log.add_record(pick);
  log.add_record(pick);
  MeasureRecord fallback = record("w", t, 1.4, 8);  // the default alone
  log.add_record(fallback);
  EXPECT_EQ(log.best("w", t)[0].schedule_json, pick.schedule_json) << "before any in-model record";

  MeasureRecord pick_in_model = pick;
  pick_in_model.median_ms = 1.3;
  pick_in_model.tuner_version = kInModelTunerVersion;
  log.add_record(pick_in_model);
  MeasureRecord fallback_in_model = fallback;
  fallback_in_model.median_ms = 1.2;
  fallback_in_model.tuner_version = kInModelTunerVersion;
  int64_t winner = log.add_record(fallback_in_model);
  log.add_record(pick);  // the pick timed alone again: its in-model records still decide its cost

  auto top = log.best("w", t, 3);
  ASSERT_EQ(top.size(), 2u) << "one record per schedule";
  EXPECT_EQ(top[0].id, winner) << "the default, faster in the model, costs its in-model time";
  EXPECT_DOUBLE_EQ(top[1].median_ms, 1.3) << "the pick costs its in-model time, not its 1.0 alone";
  EXPECT_EQ(log.best("other", t).size(), 0u);

  // A later tuning's schedules, timed alone after the last in-model record, rank first
  // (best of them by their alone times), so that the next in-model step meets them.
  const MeasureRecord later = record("w", t, 0.9, 9), later_slower = record("w", t, 1.1, 10);
  log.add_record(later_slower);
  log.add_record(later);
  top = log.best("w", t, 4);
  ASSERT_EQ(top.size(), 4u);
  EXPECT_EQ(top[0].schedule_json, later.schedule_json);
  EXPECT_EQ(top[1].schedule_json, later_slower.schedule_json);
  EXPECT_EQ(top[2].id, winner);

  // Once the next in-model step has timed it (slower there than the default), it ranks by that time;
  // the one that step did not meet is no longer newer than the last in-model record.
  MeasureRecord later_in_model = later;
  later_in_model.median_ms = 1.25;
  later_in_model.tuner_version = kInModelTunerVersion;
  log.add_record(later_in_model);
  top = log.best("w", t, 4);
  ASSERT_EQ(top.size(), 4u);
  EXPECT_EQ(top[0].id, winner);
  EXPECT_DOUBLE_EQ(top[1].median_ms, 1.25);
  EXPECT_DOUBLE_EQ(top[2].median_ms, 1.3);
  EXPECT_EQ(top[3].schedule_json, later_slower.schedule_json);
}

TEST_P(DatabaseTest, FallbackToNearestCompatibleTargetIsReported) {
  TuningLog log = TuningLog::open(path_);
  TargetInfo want = cpu_target(8);
  TargetInfo threads16 = cpu_target(16);
  TargetInfo avx512 = cpu_target(8, "avx2,avx512f,fma");
  TargetInfo gpu = cpu_target(8);
  gpu.kind = "cuda";
  gpu.device = "NVIDIA H100";
  for (const auto &t : {want, threads16, avx512, gpu}) log.upsert_target(t);
  log.upsert_workload(workload("wl"));

  // Nothing at all yet.
  BestResult none = log.best_with_fallback("wl", want);
  EXPECT_FALSE(none.record());
  EXPECT_FALSE(none.exact_target);
  EXPECT_FALSE(none.note.empty());

  // Only an incompatible (cuda) record: not used, and said so.
  log.add_record(record("wl", gpu.key(), 0.01, 0));
  BestResult incompatible = log.best_with_fallback("wl", want);
  EXPECT_FALSE(incompatible.record());
  EXPECT_NE(incompatible.note.find("incompatible"), std::string::npos)
      << incompatible.note;

  // Features differ (distance ~11) vs threads differ (distance ~1.5):
  // the nearer one wins even though the other is faster.
  log.add_record(record("wl", avx512.key(), 0.5, 1));
  int64_t near_id = log.add_record(record("wl", threads16.key(), 2.0, 2));
  BestResult fb = log.best_with_fallback("wl", want);
  ASSERT_TRUE(fb.record());
  EXPECT_FALSE(fb.exact_target);
  EXPECT_EQ(fb.used_target_key, threads16.key());
  EXPECT_EQ(fb.record()->id, near_id);
  EXPECT_NE(fb.note.find("FALLBACK"), std::string::npos) << fb.note;
  EXPECT_NE(fb.note.find(threads16.key()), std::string::npos) << fb.note;
  EXPECT_NE(fb.note.find("threads 8 vs 16"), std::string::npos) << fb.note;
  // The k best come from the target used only, best first.
  int64_t near_next_id = log.add_record(record("wl", threads16.key(), 2.5, 5));
  BestResult fb_k = log.best_with_fallback("wl", want, 3);
  ASSERT_EQ(fb_k.records.size(), 2u);
  EXPECT_EQ(fb_k.records[0].id, near_id);
  EXPECT_EQ(fb_k.records[1].id, near_next_id);
  EXPECT_EQ(fb.records.size(), 1u) << "k = 1 by default";

  // A failed record on the exact target still falls back, noting why.
  MeasureRecord failed = record("wl", want.key(), 0.0, 3);
  failed.error_code = static_cast<int>(ErrorCode::kTimeout);
  log.add_record(failed);
  BestResult fb2 = log.best_with_fallback("wl", want);
  ASSERT_TRUE(fb2.record());
  EXPECT_FALSE(fb2.exact_target);
  EXPECT_NE(fb2.note.find("no successful record"), std::string::npos) << fb2.note;

  // Exact target measured: used directly.
  int64_t exact_id = log.add_record(record("wl", want.key(), 3.0, 4));
  BestResult exact = log.best_with_fallback("wl", want);
  ASSERT_TRUE(exact.record());
  EXPECT_TRUE(exact.exact_target);
  EXPECT_EQ(exact.record()->id, exact_id);
  EXPECT_EQ(exact.used_target_key, want.key());
  int64_t cheaper_id = log.add_record(record("wl", want.key(), 1.0, 6));
  BestResult exact_k = log.best_with_fallback("wl", want, 8);
  ASSERT_EQ(exact_k.records.size(), 2u) << "the failed record is not among them";
  EXPECT_EQ(exact_k.records[0].id, cheaper_id);
  EXPECT_EQ(exact_k.records[1].id, exact_id);
}

TEST_P(DatabaseTest, WorkloadsAndTargetsAreStored) {
  TuningLog log = TuningLog::open(path_);
  log.upsert_workload(workload("wl", "conv2d"));
  log.upsert_workload(workload("wl", "conv2d_nchw"));  // update in place
  log.upsert_workload(workload("empty_wl", "dense"));
  TargetInfo t = cpu_target(8);
  log.upsert_target(t);
  log.upsert_target(t);
  EXPECT_EQ(log.workload("wl")->op_name, "conv2d_nchw");
  EXPECT_FALSE(log.workload("nope"));
  ASSERT_TRUE(log.target(t.key()));
  EXPECT_EQ(log.target(t.key())->key(), t.key());
  EXPECT_EQ(log.targets().size(), 1u);

  log.add_record(record("wl", t.key(), 2.0, 0));
  log.add_record(record("wl", t.key(), 1.0, 1));
  MeasureRecord bad = record("wl", t.key(), 0.5, 2);
  bad.error_code = static_cast<int>(ErrorCode::kCrash);
  log.add_record(bad);
  log.add_record(record("wl", "other-target", 4.0, 3));

  auto rows = log.list_workloads();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].workload_key, "empty_wl");
  EXPECT_EQ(rows[0].num_records, 0);
  EXPECT_FALSE(rows[0].best_median_ms);
  EXPECT_EQ(rows[1].workload_key, "wl");
  EXPECT_EQ(rows[1].target_key, t.key());
  EXPECT_EQ(rows[1].op_name, "conv2d_nchw");
  EXPECT_EQ(rows[1].num_records, 3);
  EXPECT_EQ(rows[1].num_valid, 2);
  ASSERT_TRUE(rows[1].best_median_ms);
  EXPECT_DOUBLE_EQ(*rows[1].best_median_ms, 1.0);
  EXPECT_EQ(rows[2].target_key, "other-target");
  EXPECT_DOUBLE_EQ(*rows[2].best_median_ms, 4.0);
}

TEST_P(DatabaseTest, MovedFromLogRaises) {
  TuningLog a = TuningLog::open(path_);
  TuningLog b = std::move(a);
  EXPECT_THROW(a.count_all_records(), TuningLogError);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(b.count_all_records(), 0);
  TuningLog c = TuningLog::open(new_location());
  c = std::move(b);
  EXPECT_EQ(c.path(), path_);
}

// The user's log: $TETUNE_DB, else $XDG_CACHE_HOME/tetune/tetune.db, else
// ~/.cache/tetune/tetune.db; never the shipped log in the source tree.
TEST(DefaultPathTest, HonoursEnvironment) {
  const char *names[] = {"TETUNE_DB", "XDG_CACHE_HOME", "HOME"};
  std::string saved[3];
  bool had[3];
  for (int i = 0; i < 3; i++) {
    const char *v = std::getenv(names[i]);
    had[i] = v != nullptr;
    saved[i] = v ? v : "";
  }
  setenv("TETUNE_DB", "/somewhere/x.db", 1);
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(TuningLog::default_path(), "/somewhere/x.db");
  unsetenv("TETUNE_DB");
  EXPECT_EQ(TuningLog::default_path(), "/xdg/tetune/tetune.db");
  setenv("HOME", "/home/u", 1);
  setenv("XDG_CACHE_HOME", "relative/cache", 1);  // the XDG spec: a relative path is ignored
  EXPECT_EQ(TuningLog::default_path(), "/home/u/.cache/tetune/tetune.db");
  unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(TuningLog::default_path(), "/home/u/.cache/tetune/tetune.db");
  for (int i = 0; i < 3; i++) {
    if (had[i]) setenv(names[i], saved[i].c_str(), 1);
    else unsetenv(names[i]);
  }
}

}  // namespace
}  // namespace tetune::tuning_log
