// choose_in_model (model_tuning/in_model_pick.h): a task whose record is not
// its default schedule is run inside the model both ways, both times are
// recorded as in-model records, and the log then ranks the faster first, so
// that `compile` takes what ran faster in the model; a conv's two forms are
// both timed there, and `compile` weighs them by those times.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "autotune/measure/record_store.h"
#include "base/errors.h"
#include "model_tuning/in_model_pick.h"
#include "model_tuning/model_tuning.h"
#include "relay_import/export/export.h"
#include "relay_import/onnx_importer.h"
#include "relay_import/passes/blocked_layout.h"
#include "schedule/trace.h"
#include "tests/relay_import/onnx_builder.h"
#include "tuning_logs/database.h"
#include "tuning_logs/records.h"
#include "workload/task.h"

namespace tetune {
namespace {

using namespace tetune::testing;

std::string scratch(const std::string &name) {
  const char *dir = getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name + "_" + std::to_string(getpid());
}

// X [16, 64] -> Y = Relu(X W), W [64, 64] constant: one kernel, one task.
std::string model_file() {
  onnx::ModelProto m;
  onnx::GraphProto *g = start_model(m, "matmul_relu");
  set_type(g->add_input(), "X", onnx::TensorProto::FLOAT, {16, 64});
  add_initializer(g, "W", {64, 64}, wave(64 * 64, 0.21f, 0.1f));
  add_node(g, "MatMul", {"X", "W"}, {"XW"});
  add_node(g, "Relu", {"XW"}, {"Y"});
  set_type(g->add_output(), "Y", onnx::TensorProto::FLOAT, {16, 64});
  const std::string path = scratch("matmul_relu") + ".onnx";
  std::ofstream(path, std::ios::binary) << m.SerializeAsString();
  return path;
}

TEST(InModelPick, RecordsBothTimesAndTheFasterRanksFirst) {
  const std::string model = model_file(), db_path = scratch("in_model") + ".db";
  int kernel_groups = 0;
  const std::vector<autotune::ModelTask> tasks = autotune::extract_model_tasks(model, {}, 1, &kernel_groups);
  ASSERT_EQ(tasks.size(), 1u);
  const Task &task = tasks[0].task;
  // A record timed alone that beats everything: the bare schedule (no parallel loop, no vectors), not the default.
  const std::string bare = trace_to_json(Schedule(task.outputs));
  {
    autotune::RecordStore db(db_path, task.workload_key, task.name, workload_description(task), 1);
    tuning_log::MeasureRecord rec;
    rec.schedule_json = bare;
    rec.costs_ms = {1e-4};
    rec.median_ms = 1e-4;
    rec.tuner_version = "test";
    db.add(rec);
  }

  const autotune::InModelPicks im =
      autotune::choose_in_model(model, {}, 1, relay::TunedLogs{db_path, false, ""}, db_path, 2, 3, 4);
  ASSERT_EQ(im.tasks.size(), 1u);
  const autotune::InModelTask &t = im.tasks[0];
  EXPECT_EQ(t.workload_key, task.workload_key);
  EXPECT_EQ(t.calls, 1);
  ASSERT_TRUE(t.compared) << "a record other than the default, in both exports";
  EXPECT_GT(t.pick_ms, 0);
  EXPECT_GT(t.default_ms, 0);
  EXPECT_EQ(t.default_faster, t.default_ms < t.pick_ms);
  EXPECT_EQ(im.records_added, 2);
  EXPECT_GT(t.final_ms, 0) << "the chosen schedule, timed again in the second rounds";
  EXPECT_EQ(t.final_run_ms.size(), 2u * 3) << "one time per run of the tuned export in the second rounds";
  EXPECT_EQ(im.kernels_run_ms, t.final_run_ms) << "each run's estimate: one call of the one kernel";
  EXPECT_DOUBLE_EQ(im.kernels_ms, t.final_ms) << "the estimate: one call of the one kernel, from the second rounds";
  EXPECT_GT(im.tuned_model_ms, 0);
  EXPECT_GT(im.default_model_ms, 0);
  // The model as compile now builds it, from the new records: timed in the second rounds, final_runs per round.
  EXPECT_EQ(im.final_model.runs, 2 * 4);
  EXPECT_EQ(im.final_model.tuned_tasks, 1);
  EXPECT_EQ(im.final_model.tasks, 1);
  EXPECT_GT(im.final_model.median_ms, 0);
  EXPECT_LE(im.final_model.min_ms, im.final_model.median_ms);

  autotune::RecordStore db(db_path, task.workload_key, task.name, workload_description(task), 1);
  const std::vector<tuning_log::MeasureRecord> best = db.best(2);
  ASSERT_EQ(best.size(), 2u);
  EXPECT_EQ(best[0].tuner_version, tuning_log::kInModelTunerVersion) << "timed in the model: ranks before the 1e-4 ms record";
  EXPECT_DOUBLE_EQ(best[0].median_ms, std::min(t.pick_ms, t.default_ms));
  EXPECT_EQ(best[0].schedule_json == bare, !t.default_faster) << "the faster of the two in the model";
  EXPECT_EQ(best[1].tuner_version, tuning_log::kInModelTunerVersion);
  EXPECT_EQ(static_cast<int>(best[0].costs_ms.size()), 2 * 3) << "one time per run: rounds x runs";
  std::remove(db_path.c_str());
  std::remove(model.c_str());
}

// X [1, 32, 8, 8] -> Y = Relu(Conv3x3(X, W), pads 1), W [32, 32, 3, 3]: one Winograd-eligible conv.
std::string conv_model_file() {
  onnx::ModelProto m;
  onnx::GraphProto *g = start_model(m, "conv_relu");
  set_type(g->add_input(), "X", onnx::TensorProto::FLOAT, {1, 32, 8, 8});
  add_initializer(g, "W", {32, 32, 3, 3}, wave(32 * 32 * 9, 0.37f, 0.1f));
  auto *n = add_node(g, "Conv", {"X", "W"}, {"C"});
  attr_ints(n, "pads", {1, 1, 1, 1});
  add_node(g, "Relu", {"C"}, {"Y"});
  set_type(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 32, 8, 8});
  const std::string path = scratch("conv_relu") + ".onnx";
  std::ofstream(path, std::ios::binary) << m.SerializeAsString();
  return path;
}

// With no records the conv runs by Winograd (the default form) in the tuned
// export and direct in the third; each form's kernels get in-model records, and
// a compile with the log then weighs the two forms by those times.
TEST(InModelPick, TimesBothConvFormsAndCompileTakesTheFasterThere) {
  if (relay::channel_block(Target{}) == 0) GTEST_SKIP() << "no blocked layout on this CPU (neither AVX2 nor AVX-512)";
  const std::string model = conv_model_file(), db_path = scratch("in_model_conv") + ".db";
  tuning_log::TuningLog::open(db_path);  // an empty log, as after a tuning that stored nothing
  const relay::TunedLogs logs{db_path, false, ""};
  const autotune::InModelPicks im = autotune::choose_in_model(model, {}, 1, logs, db_path, 2, 3, 3);
  EXPECT_EQ(im.convs_compared, 1);
  std::map<std::string, double> in_model, second_rounds;  // workload key -> per-call ms in the first, second rounds
  for (const auto *list : {&im.tasks, &im.other_form_tasks})
    for (const autotune::InModelTask &t : *list) {
      EXPECT_FALSE(t.compared) << t.name << ": no record, nothing to compare with the default";
      in_model[t.workload_key] = t.pick_ms;
      second_rounds[t.workload_key] = t.final_ms;
    }
  ASSERT_EQ(im.other_form_tasks.size(), 1u) << "the direct kernel, only in the third export";
  EXPECT_EQ(im.records_added, 4) << "the direct kernel and the three Winograd kernels";

  relay::ExportOptions eo;
  eo.compile.threads = 1;
  relay::TunedLookupOptions quiet;
  quiet.print_notes = false;
  relay::use_tuned_schedules(eo.compile, logs, nullptr, quiet);
  relay::ImportOptions io;
  const std::string out_dir = scratch("in_model_conv_export");
  const relay::ExportResult r = relay::export_model(relay::import_onnx(model, io), out_dir, eo);
  ASSERT_EQ(r.conv_forms.size(), 1u);
  const relay::ConvForms &f = r.conv_forms[0];
  ASSERT_EQ(f.winograd.size(), 3u);
  ASSERT_TRUE(in_model.count(f.direct.workload_key));
  EXPECT_DOUBLE_EQ(f.direct_ms, in_model[f.direct.workload_key]) << "the direct kernel's time in the model";
  double winograd = 0;
  for (const Task &w : f.winograd) {
    ASSERT_TRUE(in_model.count(w.workload_key)) << w.name;
    winograd += in_model[w.workload_key];
  }
  EXPECT_NEAR(f.winograd_ms, winograd, 1e-12) << "the sum of its three kernels' times in the model";
  EXPECT_EQ(im.convs_switched, f.direct_faster() ? 1 : 0) << "from Winograd, the default, to direct where that ran faster";
  // The estimate: run by run, the tuned export's kernels (the Winograd form and the layout transforms around it) in the
  // second rounds, with the direct kernel in place of the Winograd ones where compile switches; then the median run.
  std::map<std::string, std::vector<double>> runs_of;  // workload key -> its per-call time in each second-round run
  for (const auto *list : {&im.tasks, &im.other_form_tasks})
    for (const autotune::InModelTask &t : *list) runs_of[t.workload_key] = t.final_run_ms;
  ASSERT_EQ(im.kernels_run_ms.size(), 2u * 3) << "rounds x runs";
  for (size_t j = 0; j < im.kernels_run_ms.size(); j++) {
    double expected = 0;
    for (const autotune::InModelTask &t : im.tasks) {
      ASSERT_EQ(t.final_run_ms.size(), im.kernels_run_ms.size()) << t.name;
      expected += t.calls * t.final_run_ms[j];
    }
    if (f.direct_faster()) {
      expected += runs_of[f.direct.workload_key].at(j);
      for (const Task &w : f.winograd) expected -= runs_of[w.workload_key].at(j);
    }
    EXPECT_NEAR(im.kernels_run_ms[j], expected, 1e-12) << "run " << j;
  }
  EXPECT_GT(second_rounds[f.direct.workload_key], 0);
  EXPECT_DOUBLE_EQ(im.kernels_ms, tuning_log::median_of(im.kernels_run_ms));
  EXPECT_EQ(im.final_model.runs, 2 * 3);
  std::filesystem::remove_all(out_dir);
  std::remove(db_path.c_str());
  std::remove(model.c_str());
}

TEST(InModelPick, RejectsNoRounds) {
  EXPECT_THROW(autotune::choose_in_model("unused.onnx", {}, 1, relay::TunedLogs{}, "", 0, 3, 3), Error);
  EXPECT_THROW(autotune::choose_in_model("unused.onnx", {}, 1, relay::TunedLogs{}, "", 2, 3, 0), Error);
}

}  // namespace
}  // namespace tetune
