#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>

#include "tests/autotune/gemm_task.h"
#include "autotune/measure/record_store.h"
#include "autotune/tuner.h"
#include "relay_import/tuned_schedules.h"
#include "schedule/trace.h"
#include "te/interpreter.h"
#include "te/ops/elementwise.h"

namespace tetune {
namespace autotune {
namespace {

using testing::gemm_task;

TuneOptions fast(const std::string &db, int trials) {
  TuneOptions o;
  o.trials = trials;
  o.batch_size = 8;
  o.db_path = db;
  o.population = 32;
  o.generations = 2;
  o.measure.min_repeat_ms = 2;
  o.measure.repeat = 2;
  o.measure.timeout_s = 10;
  o.confirm_top = 0;  // every trial a new schedule (ConfirmsTopSchedules turns it on)
  return o;
}

TEST(Tuner, RecordsEveryTrialAndResumes) {
  Task t = gemm_task(64);
  std::string db = std::string(std::getenv("TEST_TMPDIR")) + "/tune.db";
  int calls = 0;
  TuneOptions o = fast(db, 24);
  o.progress = [&](const TuneProgress &p) { calls++; EXPECT_LE(p.trials_done, 24); };
  TuneResult r = tune(t, o);
  EXPECT_EQ(r.measured, 24);
  EXPECT_EQ(r.total_records, 24);
  EXPECT_EQ(calls, 24);
  EXPECT_GT(r.best_gflops, 0);
  ASSERT_TRUE(r.best.has_value());
  EXPECT_EQ(r.curve.size(), 24u);
  std::printf("gemm64: best %.2f GFLOP/s after 24 trials, %.1f s (search %.1f s, measure %.1f s)\n", r.best_gflops,
              r.elapsed_s, r.search_s, r.measure_s);
  // Resume to 32: only the 8 missing trials are measured, none repeats a stored schedule.
  TuneOptions o2 = fast(db, 32);
  o2.resume = true;
  TuneResult r2 = tune(t, o2);
  EXPECT_EQ(r2.measured, 8);
  EXPECT_EQ(r2.total_records, 32);
  EXPECT_GE(r2.best_gflops, r.best_gflops);
  // Resume with nothing missing measures nothing.
  EXPECT_EQ(tune(t, o2).measured, 0);
  RecordStore st(db, t.workload_key, t.name, "{}", 1);
  std::set<std::string> schedules;
  for (const auto &rec : st.records()) schedules.insert(rec.schedule_json);
  EXPECT_EQ(schedules.size(), 32u);
}

// Records are kept per target: a CPU record of a workload never serves the
// same workload compiled for CUDA (the key has kind=cuda and the GPU's name),
// which gets the default GPU schedule instead (threads bound, no CPU steps).
TEST(Tuner, CpuRecordsNeverServeACudaTask) {
  Task t = gemm_task(64);
  std::string db = std::string(std::getenv("TEST_TMPDIR")) + "/cpu_only.db";
  ASSERT_TRUE(tune(t, fast(db, 4)).best.has_value());
  Task gpu = make_task("gemm_cuda", t.outputs, Target{"cuda"}, 1);
  ASSERT_EQ(gpu.workload_key, t.workload_key);
  relay::CompileOptions co;
  co.target = Target{"cuda"};
  relay::TunedLookupStats stats;
  relay::TunedLookupOptions quiet;
  quiet.print_notes = false;
  relay::use_tuned_schedules(co, relay::TunedLogs{db, false, "NVIDIA H100 80GB HBM3"}, &stats, quiet);
  ScheduleChoice c = co.schedule_for(gpu);
  EXPECT_EQ(c.source, ScheduleSource::Analytical) << c.detail;
  const Schedule &s = c.schedule;
  EXPECT_EQ(stats.untuned, 1) << relay::format_lookup_stats(stats);
  EXPECT_NE(trace_to_json(s).find("blockIdx.x"), std::string::npos) << "the GPU default schedule binds blocks";
}

// A workload key ignores names, so a record tuned on one compute must serve
// the same compute under other tensor names (two ONNX models' node names):
// the stored trace names tensors canonically and replays on the twin.
TEST(Tuner, RecordServesTheSameComputeUnderOtherNames) {
  Task t = gemm_task(64);
  std::string db = std::string(std::getenv("TEST_TMPDIR")) + "/twin.db";
  ASSERT_TRUE(tune(t, fast(db, 8)).best.has_value());

  Tensor X = placeholder({64, 64}, float32(), "x"), W = placeholder({64, 64}, float32(), "weight.0");
  IterVar r = reduce_axis(64, "k");
  Tensor Y = compute({64, 64}, [&](const std::vector<Var> &i) { return sum(X(i[0], r.var) * W(r.var, i[1]), {r}); },
                     "p2o_MatMul_7.out", "matmul", {"i", "j"});
  Task twin = make_task("twin", {Y}, Target{}, 1);
  ASSERT_EQ(twin.workload_key, t.workload_key);
  relay::TunedLookupStats stats;
  relay::TunedLookupOptions quiet;
  quiet.print_notes = false;
  ScheduleChoice c = relay::tuned_schedule_hook(db, 1, &stats, quiet)(twin);
  EXPECT_EQ(c.source, ScheduleSource::Record);
  EXPECT_NE(c.detail.find("record "), std::string::npos) << c.detail;
  const Schedule &s = c.schedule;
  EXPECT_EQ(stats.tuned, 1);
  EXPECT_EQ(stats.replay_failed, 0) << relay::format_lookup_stats(stats);
  EXPECT_GT(s.trace().size(), 0u);
  std::vector<NDArray> in = {NDArray::random({64, 64}, float32(), 1), NDArray::random({64, 64}, float32(), 2)};
  set_num_threads(1);  // as the tuner's own runs in this process (a process picks its thread count once)
  std::string where;
  EXPECT_TRUE(all_close(Kernel::build(s).run(in)[0], interpret({Y}, {X, W}, in)[0], 1e-4, 1e-5, &where)) << where;

  // A version-1 record (the original's own names) that is now the cheapest
  // does not replay on the twin: the next-best record serves, and says so.
  tuning_log::MeasureRecord legacy;
  legacy.schedule_json = R"({"version": 1, "steps": [{"kind": "split", "stage": "C", "axes": ["i"], "ints": [8, 0]}]})";
  legacy.costs_ms = {1e-6};
  legacy.median_ms = 1e-6;
  legacy.gflops = 1e6;
  RecordStore(db, t.workload_key, t.name, "{}", 1).add(legacy);
  EXPECT_EQ(relay::tuned_schedule_hook(db, 1, nullptr, quiet)(t).schedule.trace().size(), 1u);  // the original: the legacy record
  relay::TunedLookupStats again;
  Schedule s2 = relay::tuned_schedule_hook(db, 1, &again, quiet)(twin).schedule;
  EXPECT_EQ(again.tuned, 1);
  EXPECT_EQ(again.replay_failed, 1);
  EXPECT_EQ(s2.trace(), s.trace());
  ASSERT_EQ(again.notes.size(), 1u);
  EXPECT_NE(again.notes[0].find("does not replay (illegal schedule step split(C"), std::string::npos) << again.notes[0];
}

// The last 4 x 2 trials re-measure the 4 cheapest schedules; the result's
// best is the log's best (a re-measured schedule costs its middle measurement).
TEST(Tuner, ConfirmsTopSchedules) {
  Task t = gemm_task(64);
  std::string db = std::string(std::getenv("TEST_TMPDIR")) + "/confirm.db";
  TuneOptions o = fast(db, 32);
  o.confirm_top = 4;
  o.confirm_repeats = 2;
  TuneResult r = tune(t, o);
  EXPECT_EQ(r.measured, 32);
  EXPECT_EQ(r.confirmed, 8);
  RecordStore st(db, t.workload_key, t.name, "{}", 1);
  std::map<std::string, int> times;
  for (const auto &rec : st.records()) times[rec.schedule_json]++;
  EXPECT_EQ(times.size(), 24u);
  int thrice = 0;
  for (const auto &[sched, n] : times) {
    EXPECT_TRUE(n == 1 || n == 3) << n;
    thrice += n == 3;
  }
  EXPECT_EQ(thrice, 4);
  ASSERT_TRUE(r.best.has_value());
  EXPECT_EQ(r.best->id, st.best(1).at(0).id);
  EXPECT_DOUBLE_EQ(r.best_gflops, r.best->gflops);
  EXPECT_EQ(r.best_measurements, times.at(r.best->schedule_json));
  // Too small a budget for confirmation (32 > 12): every trial is a new schedule.
  TuneOptions small = fast(std::string(std::getenv("TEST_TMPDIR")) + "/small.db", 12);
  small.confirm_top = 4;
  EXPECT_EQ(tune(t, small).confirmed, 0);
}

TEST(Tuner, ReportsASpaceWithNoUnmeasuredCandidateLeft) {
  // relu over 4 elements has a handful of distinct schedules, far fewer than 40.
  Tensor x = placeholder({4}, float32(), "x");
  Task t = make_task("relu_4", {ops::relu(x)}, Target{}, 1);
  std::string dir = std::getenv("TEST_TMPDIR");
  TuneResult r = tune(t, fast(dir + "/exhausted.db", 40));
  EXPECT_TRUE(r.space_exhausted);
  EXPECT_GT(r.measured, 0);
  EXPECT_LT(r.measured, 40);
  RecordStore st(dir + "/exhausted.db", t.workload_key, t.name, "{}", 1);
  std::set<std::string> distinct;
  for (const auto &rec : st.records()) distinct.insert(rec.schedule_json);
  EXPECT_EQ(static_cast<int>(distinct.size()), r.measured);  // no schedule measured twice
  // A budget the space can fill is not reported as exhausted.
  TuneResult g = tune(gemm_task(64), fast(dir + "/not_exhausted.db", 8));
  EXPECT_FALSE(g.space_exhausted);
  EXPECT_EQ(g.measured, 8);
}

// Ranks schedules as TuningLog::best does: re-measured ones first, then by
// cost, the median_ms of a schedule's record at position n/2 among its n
// successful records sorted.
std::vector<std::string> ranked_schedules(const std::vector<tuning_log::MeasureRecord> &recs) {
  std::map<std::string, std::vector<double>> costs;
  for (const auto &r : recs)
    if (r.ok()) costs[r.schedule_json].push_back(r.median_ms);
  std::vector<std::tuple<bool, double, std::string>> order;
  for (auto &[sched, c] : costs) {
    std::sort(c.begin(), c.end());
    order.push_back({c.size() == 1, c[c.size() / 2], sched});
  }
  std::sort(order.begin(), order.end());
  std::vector<std::string> out;
  for (const auto &o : order) out.push_back(std::get<2>(o));
  return out;
}

// With two rounds, the second round re-measures the 4 best-ranked schedules
// still measured once after the first round (whatever the first round found).
TEST(Tuner, SecondConfirmationRoundTakesNextUnconfirmedSchedules) {
  Task t = gemm_task(64);
  std::string db = std::string(std::getenv("TEST_TMPDIR")) + "/rounds.db";
  TuneOptions o = fast(db, 64);
  o.confirm_top = 4;
  o.confirm_repeats = 2;
  o.confirm_rounds = 2;
  TuneResult r = tune(t, o);
  EXPECT_EQ(r.measured, 64);
  EXPECT_EQ(r.confirmed, 16);
  RecordStore st(db, t.workload_key, t.name, "{}", 1);
  std::vector<tuning_log::MeasureRecord> recs = st.records();
  ASSERT_EQ(recs.size(), 64u);
  std::vector<tuning_log::MeasureRecord> before_round2;
  std::set<std::string> round2;
  for (const auto &rec : recs) {
    if (rec.trial_index < 56) before_round2.push_back(rec);
    else round2.insert(rec.schedule_json);
  }
  std::map<std::string, int> times;
  for (const auto &rec : before_round2) times[rec.schedule_json]++;
  std::set<std::string> expected;
  for (const auto &sched : ranked_schedules(before_round2))
    if (times[sched] == 1 && expected.size() < 4) expected.insert(sched);
  EXPECT_EQ(round2, expected);
  // Round 2 measured each of them twice more.
  std::map<std::string, int> all;
  for (const auto &rec : recs) all[rec.schedule_json]++;
  for (const auto &sched : round2) EXPECT_EQ(all[sched], 3);
}

TEST(Tuner, KillNineKeepsCommittedRecords) {
  Task t = gemm_task(64);
  std::string db = std::string(std::getenv("TEST_TMPDIR")) + "/kill.db";
  std::fflush(nullptr);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    try {
      tune(t, fast(db, 200));
    } catch (...) {
    }
    _exit(0);
  }
  // Wait until some records are committed, then kill -9.
  int64_t n = 0;
  for (int i = 0; i < 600 && n < 5; i++) {
    usleep(100000);
    try {
      n = RecordStore(db, t.workload_key, t.name, "{}", 1).count();
    } catch (...) {
    }
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_GE(n, 5);
  RecordStore st(db, t.workload_key, t.name, "{}", 1);
  int64_t kept = st.count();
  EXPECT_GE(kept, n);
  EXPECT_EQ(st.integrity_check(), "ok");
  TuneOptions o = fast(db, static_cast<int>(kept) + 4);
  o.resume = true;
  TuneResult r = tune(t, o);
  EXPECT_EQ(r.measured, 4);
  EXPECT_EQ(r.total_records, kept + 4);
  EXPECT_EQ(st.integrity_check(), "ok");
}

}  // namespace
}  // namespace autotune
}  // namespace tetune
