// Model tuning on the PaddleOCR cls model: task extraction (dedup, weights),
// a small tuning run into a temporary database, compile with the tuned
// schedules, compare with the default-schedule output, a rerun with the
// same budget measuring nothing, and each task's top schedules re-measured
// with the weights flushed. Skipped when models/ppocr is missing.
#include <gtest/gtest.h>

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "autotune/default_schedule.h"
#include "autotune/measure/record_store.h"

#include "model_tuning/model_tuning.h"
#include "relay_import/executor.h"
#include "relay_import/onnx_importer.h"
#include "relay_import/tuned_schedules.h"
#include "schedule/trace.h"

namespace tetune {
namespace {

bool exists(const std::string &p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

// Repository root: $TETUNE_ROOT, or through the runfiles symlink of this source file.
std::string repo_root() {
  if (const char *r = getenv("TETUNE_ROOT")) return r;
  const std::string self = "tests/autotune/model_tuning/model_tuning_test.cc";
  char buf[PATH_MAX];
  if (realpath(self.c_str(), buf)) {
    std::string p(buf);
    return p.substr(0, p.size() - self.size() - 1);
  }
  return "";
}

const char *kCls = "models/ppocr/ch_ppocr_mobile_v2.0_cls_infer.onnx";

std::string cls_path() {
  std::string root = repo_root();
  std::string p = root + "/" + kCls;
  return exists(p) ? p : "";
}

std::string tmp_db(const std::string &name) {
  const char *t = getenv("TEST_TMPDIR");
  std::string p = std::string(t ? t : "/tmp") + "/" + name + "_" + std::to_string(getpid()) + ".db";
  for (const char *suf : {"", "-wal", "-shm"}) ::unlink((p + suf).c_str());
  return p;
}

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

TEST(ModelTuning, ExtractTasksCls) {
  std::string path = cls_path();
  if (path.empty()) GTEST_SKIP() << kCls << " missing (run tools/fetch_models.sh)";
  int kernel_groups = 0;
  auto tasks = autotune::extract_model_tasks(path, relay::parse_input_shapes("x=1,3,48,192"), 1, &kernel_groups);
  ASSERT_FALSE(tasks.empty());
  double weights = 0;
  std::set<std::string> keys;
  bool repeated = false;
  for (const auto &t : tasks) {
    weights += t.task.weight;
    EXPECT_EQ(static_cast<int>(t.groups.size()), static_cast<int>(t.task.weight));
    EXPECT_TRUE(keys.insert(t.task.workload_key).second) << "duplicate workload key " << t.task.workload_key;
    EXPECT_FALSE(t.similarity_key.empty());
    repeated |= t.task.weight > 1;
  }
  EXPECT_EQ(weights, kernel_groups) << "weights sum to the number of kernel groups";
  EXPECT_TRUE(repeated) << "the cls model repeats some blocks";
  EXPECT_LT(tasks.size(), static_cast<size_t>(kernel_groups));
  std::printf("cls: %d kernel groups -> %zu tasks\n", kernel_groups, tasks.size());
}

// A time budget covers the whole run: the references, the search and the last step that times the best
// schedules again as in a model. The search stops early enough for that step, and the step itself stops at
// the deadline, heaviest tasks first; one measurement in flight may still finish past it. (Before
// TuneCompileRunAndResume: every kernel here runs in a child, so this process has run none at 1 thread.)
TEST(ModelTuning, TimeBudgetCoversTheReferencesAndTheConfirmation) {
  std::string path = cls_path();
  if (path.empty()) GTEST_SKIP() << kCls << " missing (run tools/fetch_models.sh)";
  auto tasks = autotune::extract_model_tasks(path, relay::parse_input_shapes("x=1,3,48,192"), 1);
  autotune::ModelTuneOptions o;
  o.time_budget_s = 20;
  o.batch = 4;
  o.db_path = tmp_db("cls_budget");
  o.measure.repeat = 2;
  o.measure.min_repeat_ms = 2;
  o.confirm_top = 3;
  double t0 = now_s();
  auto r = autotune::tune_model(tasks, o);
  double took = now_s() - t0;
  std::printf("budget %.0f s: took %.1f s, %d measured, estimate %.4f ms warm, %.4f ms as in a model\n",
              o.time_budget_s, took, r.measured, r.estimated_after_ms, r.estimated_as_in_model_ms);
  EXPECT_GT(r.measured, 0);
  EXPECT_GT(r.estimated_as_in_model_ms, 0) << "the confirmation ran inside the budget";
  EXPECT_LE(took, o.time_budget_s + 3) << "at most one measurement past the deadline";
}

TEST(ModelTuning, TuneCompileRunAndResume) {
  std::string path = cls_path();
  if (path.empty()) GTEST_SKIP() << kCls << " missing (run tools/fetch_models.sh)";
  auto shapes = relay::parse_input_shapes("x=1,3,48,192");
  const int threads = 1;
  auto tasks = autotune::extract_model_tasks(path, shapes, threads);
  std::string db = tmp_db("cls_tune");

  autotune::ModelTuneOptions o;
  o.small_task_flops = 5e5;  // keep the test short: the small tasks keep the default schedule
  o.small_task_trials = 0;
  int big = 0;
  for (const auto &t : tasks) big += t.task.flops >= o.small_task_flops;
  ASSERT_GT(big, 0);
  o.total_trials = 2 * big;
  o.batch = 2;
  o.policy = "random";
  o.cost_model = "random";
  o.db_path = db;
  o.measure_baseline = false;
  o.measure.repeat = 1;
  o.measure.min_repeat_ms = 2;
  o.measure.timeout_s = 20;
  o.confirm_top = 0;  // called on its own below
  int progress_calls = 0;
  o.progress = [&](const autotune::ModelTuneProgress &) { progress_calls++; };
  double t0 = now_s();
  auto r = autotune::tune_model(tasks, o);
  std::printf("first run: %d measured (%d errors) in %.1f s; estimated %.4f ms over %zu tasks\n", r.measured,
              r.errors, now_s() - t0, r.estimated_after_ms, tasks.size());
  EXPECT_FALSE(r.interrupted);
  EXPECT_EQ(r.trials_used, 2 * big);
  EXPECT_EQ(r.measured, 2 * big);
  EXPECT_GT(progress_calls, 0);
  int tuned_tasks = 0;
  for (const auto &t : r.tasks) {
    if (t.small) {
      EXPECT_EQ(t.trials, 0) << t.name;
    } else {
      EXPECT_EQ(t.trials, 2) << t.name;
      tuned_tasks += std::isfinite(t.best_ms);
    }
  }
  EXPECT_GT(tuned_tasks, 0);
  EXPECT_GT(r.estimated_after_ms, 0);

  // Each task's top 2 timed again with its weights flushed, as in a model (before any kernel runs in this
  // process: the measurer's reference is computed here, at the task's thread count): a task with weights gets one more
  // record for each of them, and its best is now a schedule measured twice; the others are left alone.
  auto store = [&](const Task &t) { return autotune::RecordStore(db, t.workload_key, t.name, workload_description(t), threads); };
  auto default_json = [](const Task &t) { return trace_to_json(autotune::analytical_schedule(t).schedule); };
  std::vector<int64_t> before;
  std::vector<std::set<std::string>> distinct_before;  // each task's schedules with a successful record
  for (const auto &t : tasks) {
    autotune::RecordStore s = store(t.task);
    before.push_back(s.count());
    std::set<std::string> d;
    for (const auto &rec : s.records())
      if (rec.ok()) d.insert(rec.schedule_json);
    distinct_before.push_back(d);
  }
  autotune::ModelTuneResult c = r;
  const double confirmed = autotune::confirm_bests_as_in_model(tasks, c, o, 2);
  EXPECT_TRUE(std::isfinite(confirmed) && confirmed > 0) << confirmed;
  double sum = 0;
  int with_weights = 0;
  int64_t added = 0;
  for (size_t i = 0; i < tasks.size(); i++) {
    const Task &t = tasks[i].task;
    autotune::RecordStore s = store(t);
    if (std::isfinite(c.tasks[i].best_ms)) sum += t.weight * c.tasks[i].best_ms;
    if (t.constant_inputs.empty() || !std::isfinite(r.tasks[i].best_ms)) {
      EXPECT_EQ(s.count(), before[i]) << t.name;
      EXPECT_EQ(c.tasks[i].best_ms, r.tasks[i].best_ms) << t.name;
      continue;
    }
    with_weights++;
    added += s.count() - before[i];
    // The top 2 and the default schedule, unless the search stored it (no baseline was: a record of the
    // default here is the search's, and only a baseline is timed again).
    const std::string fallback = default_json(t);
    const int64_t top = std::min<int64_t>(2, distinct_before[i].size());
    const bool new_default = distinct_before[i].count(fallback) == 0;
    EXPECT_EQ(s.count(), before[i] + top + (new_default ? 1 : 0)) << t.name;
    if (new_default) {
      size_t default_runs = 0;
      for (const auto &rec : s.records())
        if (rec.ok() && rec.schedule_json == fallback) default_runs = rec.costs_ms.size();
      EXPECT_EQ(default_runs, static_cast<size_t>(o.confirm_rounds * o.measure.repeat))
          << t.name << ": the default schedule is timed as in the model, in the same interleaved rounds";
    }
    const std::vector<tuning_log::MeasureRecord> best = s.best(1);
    ASSERT_EQ(best.size(), 1u) << t.name;
    int times = 0;
    size_t last_runs = 0;  // runs in the schedule's newest record: the re-measure
    for (const auto &rec : s.records())
      if (rec.ok() && rec.schedule_json == best[0].schedule_json) times++, last_runs = rec.costs_ms.size();
    EXPECT_EQ(times, 2) << t.name << ": the best is a re-measured schedule";
    EXPECT_EQ(last_runs, static_cast<size_t>(o.confirm_rounds * o.measure.repeat))
        << t.name << ": one record holds every interleaved round's runs";
    EXPECT_DOUBLE_EQ(c.tasks[i].best_ms, best[0].median_ms) << t.name;
  }
  EXPECT_GT(with_weights, 0) << "cls's convs read their weights as constants";
  EXPECT_NEAR(confirmed, sum, 1e-9 * sum) << "the estimate sums weight x the new bests";

  // Compile with the tuned schedules (the re-measured picks) and compare with the default schedules.
  relay::ImportOptions io;
  io.input_shapes = shapes;
  relay::CompileOptions co;
  co.threads = threads;
  relay::TunedLookupStats st;
  relay::TunedLookupOptions lo;
  lo.print_notes = false;
  relay::use_tuned_schedules(co, db, &st, lo);
  relay::CompiledModel tuned = relay::compile_model(relay::import_onnx(path, io), co);
  std::printf("%s", relay::format_lookup_stats(st).substr(0, 200).c_str());
  EXPECT_EQ(st.tuned, tuned_tasks);
  EXPECT_EQ(st.tuned + st.untuned, static_cast<int>(tasks.size()));
  EXPECT_EQ(static_cast<int>(st.untuned_tasks.size()), st.untuned);
  EXPECT_EQ(st.fallback, 0);
  EXPECT_GT(tuned.stats().group_sources.record, 0);
  EXPECT_EQ(tuned.stats().task_sources.record, st.tuned);
  EXPECT_EQ(tuned.stats().group_sources.total(), tuned.stats().kernel_groups);

  relay::CompiledModel plain = relay::compile_model(relay::import_onnx(path, io));
  NDArray x = NDArray::random({1, 3, 48, 192}, float32(), 7);
  auto yt = tuned.run(std::vector<NDArray>{x});
  auto yd = plain.run(std::vector<NDArray>{x});
  ASSERT_EQ(yt.size(), yd.size());
  for (size_t k = 0; k < yt.size(); k++) {
    ASSERT_EQ(yt[k].shape(), yd[k].shape());
    double md = max_abs_diff(yt[k], yd[k]);
    EXPECT_LE(md, 1e-4) << "output " << k;
  }

  // Rerun with the same budget: every task is at its share, nothing is measured; every stored record counts.
  // Its last step finds each task's top 2 measured twice already: it adds no record and keeps the picks.
  o.confirm_top = 2;
  std::vector<int64_t> stored;
  for (const auto &t : tasks) stored.push_back(store(t.task).count());
  auto r2 = autotune::tune_model(tasks, o);
  EXPECT_EQ(r2.measured, 0);
  EXPECT_EQ(r2.trials_used, 2 * big + added);
  EXPECT_LE(r2.estimated_before_ms, r.estimated_after_ms) << "each task's fastest record is still there";
  EXPECT_NEAR(r2.estimated_as_in_model_ms, confirmed, 1e-9 * confirmed);
  for (size_t i = 0; i < tasks.size(); i++) EXPECT_EQ(store(tasks[i].task).count(), stored[i]) << tasks[i].task.name;
  EXPECT_EQ(r2.confirmable_tasks, with_weights);
  EXPECT_EQ(r2.picks_timed_as_in_model, with_weights);

  // Stopped before any task (a time budget spent): nothing is measured, yet every pick, and so the
  // estimate, is the log's, the earlier re-measurements first, as `compile` takes it, not the warm ranking.
  autotune::ModelTuneResult stopped = r;
  const double at_stop = autotune::confirm_bests_as_in_model(tasks, stopped, o, 2, nullptr, [] { return true; });
  EXPECT_NEAR(at_stop, confirmed, 1e-9 * confirmed);
  EXPECT_EQ(stopped.picks_timed_as_in_model, with_weights);
  for (size_t i = 0; i < tasks.size(); i++) EXPECT_EQ(store(tasks[i].task).count(), stored[i]) << tasks[i].task.name;

}

}  // namespace
}  // namespace tetune
