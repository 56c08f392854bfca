// Every compiled task says where its schedule came from (schedule/schedule_choice.h):
// a small model compiled with an empty tuning log (and no shipped log), through
// export (manifest.json) and through compile_model, gives each task a source and
// a detail, with counts per source that add up to the tasks; a task given a
// record in the log reports Record, the others their default's source.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "autotune/default_schedule.h"
#include "relay_import/executor.h"
#include "relay_import/export/export.h"
#include "relay_import/onnx_importer.h"
#include "relay_import/tuned_schedules.h"
#include "schedule/trace.h"
#include "tests/relay_import/onnx_builder.h"
#include "tuning_logs/database.h"
#include "tuning_logs/target_info.h"

namespace tetune {
namespace {

using testing::add_node;
using testing::attr_i;
using testing::set_type;

constexpr int kThreads = 1;

void add_weight(onnx::GraphProto *g, const std::string &name, const std::vector<int64_t> &dims) {
  auto *t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (auto d : dims) t->add_dims(d), n *= d;
  for (int64_t i = 0; i < n; i++) t->add_float_data(0.01f * static_cast<float>(i % 13) - 0.05f);
}

// x[1,4,8,8] -> Conv 3x3 -> Relu -> Conv 1x1 -> Relu -> GlobalAveragePool -> Flatten -> MatMul [8,4] -> Sigmoid:
// convolutions, a reduction, a GEMM and elementwise work, so tasks with and without analytical seeds.
relay::Graph small_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto *g = m.mutable_graph();
  set_type(g->add_input(), "x", onnx::TensorProto::FLOAT, {1, 4, 8, 8});
  set_type(g->add_output(), "y", onnx::TensorProto::FLOAT, {1, 4});
  add_weight(g, "w1", {8, 4, 3, 3});
  add_weight(g, "b1", {8});
  add_weight(g, "w2", {8, 8, 1, 1});
  add_weight(g, "w3", {8, 4});
  auto *c1 = add_node(g, "Conv", {"x", "w1", "b1"}, {"c1"});
  auto *pads = c1->add_attribute();
  pads->set_name("pads");
  pads->set_type(onnx::AttributeProto::INTS);
  for (int i = 0; i < 4; i++) pads->add_ints(1);
  add_node(g, "Relu", {"c1"}, {"r1"});
  add_node(g, "Conv", {"r1", "w2"}, {"c2"});
  add_node(g, "Relu", {"c2"}, {"r2"});
  add_node(g, "GlobalAveragePool", {"r2"}, {"p"});
  attr_i(add_node(g, "Flatten", {"p"}, {"f"}), "axis", 1);
  add_node(g, "MatMul", {"f", "w3"}, {"mm"});
  add_node(g, "Sigmoid", {"mm"}, {"y"});
  std::string bytes;
  m.SerializeToString(&bytes);
  return relay::import_onnx_bytes(bytes, "small.onnx");
}

std::string tmp_path(const std::string &name) {
  const char *t = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(t && *t ? t : "/tmp") + "/schedule_source_test";
  std::filesystem::create_directories(dir);
  return dir + "/" + name;
}

/** A log at path holding nothing (the log exists: TunedLogs::db must). */
std::string empty_log(const std::string &name) {
  std::string path = tmp_path(name);
  std::filesystem::remove(path);
  tuning_log::TuningLog::open(path);
  return path;
}

/** A log holding one successful record of `task`: its analytical default's trace. */
std::string log_with_record_of(const Task &task, const std::string &name) {
  std::string path = empty_log(name);
  tuning_log::TuningLog log = tuning_log::TuningLog::open(path);
  tuning_log::TargetInfo target = tuning_log::host_target_info(kThreads);
  log.upsert_target(target);
  log.upsert_workload({task.workload_key, task.name, workload_description(task)});
  tuning_log::MeasureRecord rec;
  rec.workload_key = task.workload_key;
  rec.target_key = target.key();
  rec.schedule_json = trace_to_json(autotune::analytical_schedule(task).schedule);
  rec.costs_ms = {0.01};
  rec.median_ms = 0.01;
  rec.timestamp_unix_ms = tuning_log::now_unix_ms();
  rec.tuner_version = "schedule_source_test";
  log.add_record(rec);
  return path;
}

relay::CompileOptions with_log(const std::string &db, relay::TunedLookupStats *stats) {
  relay::CompileOptions co;
  co.threads = kThreads;
  relay::TunedLookupOptions quiet;
  quiet.print_notes = false;
  relay::use_tuned_schedules(co, relay::TunedLogs{db, /*shipped=*/false, ""}, stats, quiet);
  return co;
}

/** The sources, by name, that source_name gives. */
const std::map<std::string, ScheduleSource> &sources() {
  static const std::map<std::string, ScheduleSource> m = {
      {source_name(ScheduleSource::Record), ScheduleSource::Record},
      {source_name(ScheduleSource::CostModel), ScheduleSource::CostModel},
      {source_name(ScheduleSource::Analytical), ScheduleSource::Analytical}};
  return m;
}

void expect_every_task_has_a_source(const relay::CompileStats &st) {
  ASSERT_GT(st.kernels_built, 1);
  ASSERT_EQ(static_cast<int>(st.task_schedules.size()), st.kernels_built);
  EXPECT_EQ(st.task_sources.total(), st.kernels_built);
  EXPECT_EQ(st.group_sources.total(), st.kernel_groups);
  int groups = 0;
  for (const auto &t : st.task_schedules) {
    EXPECT_FALSE(t.detail.empty()) << t.group;
    EXPECT_FALSE(t.workload_key.empty()) << t.group;
    groups += t.groups;
  }
  EXPECT_EQ(groups, st.kernel_groups);
}

TEST(ScheduleSource, EmptyLogCompileModelGivesEveryTaskItsDefaultsSource) {
  relay::TunedLookupStats lookup;
  relay::CompiledModel m = relay::compile_model(small_model(), with_log(empty_log("empty.db"), &lookup));
  const relay::CompileStats &st = m.stats();
  expect_every_task_has_a_source(st);
  // no record, no cost model: every task gets the analytical default
  EXPECT_EQ(st.task_sources.record, 0);
  EXPECT_EQ(st.task_sources.cost_model, 0);
  EXPECT_EQ(st.task_sources.analytical, st.kernels_built);
  EXPECT_EQ(lookup.tuned, 0);
  EXPECT_EQ(lookup.untuned, st.kernels_built);
  // the convolutions have analytical seeds; the detail says which
  bool seeded = false;
  for (const auto &t : st.task_schedules) seeded |= t.detail.find("analytical seed") != std::string::npos;
  EXPECT_TRUE(seeded) << relay::format_task_schedules(st.task_schedules);
  std::string table = relay::format_task_schedules(st.task_schedules);
  std::printf("%s", table.c_str());
  EXPECT_EQ(static_cast<int>(std::count(table.begin(), table.end(), '\n')), st.kernels_built);
}

TEST(ScheduleSource, EmptyLogExportRecordsEveryTaskInTheManifest) {
  relay::TunedLookupStats lookup;
  relay::ExportOptions eo;
  eo.compile = with_log(empty_log("empty_export.db"), &lookup);
  std::string out = tmp_path("export_empty");
  relay::ExportResult r = relay::export_model(small_model(), out, eo);
  std::ifstream f(out + "/manifest.json");
  ASSERT_TRUE(f) << out;
  nlohmann::json js = nlohmann::json::parse(f);

  ASSERT_GT(r.tasks, 1);
  EXPECT_EQ(r.task_sources.total(), r.tasks);
  EXPECT_EQ(r.group_sources.total(), r.kernel_groups);
  EXPECT_EQ(r.task_sources.analytical, r.tasks);
  const auto &tasks = js.at("task_schedules");
  ASSERT_EQ(static_cast<int>(tasks.size()), r.tasks);
  std::map<std::string, int> counted;
  int groups = 0;
  for (const auto &t : tasks) {
    const std::string source = t.at("schedule_source");
    EXPECT_TRUE(sources().count(source)) << source;
    EXPECT_FALSE(t.at("schedule_detail").get<std::string>().empty()) << t.dump();
    EXPECT_FALSE(t.at("kernel").get<std::string>().empty()) << t.dump();
    counted[source]++;
    groups += t.at("groups").get<int>();
  }
  EXPECT_EQ(groups, js.at("kernel_groups").get<int>());
  int total = 0, group_total = 0;
  for (const auto &[name, source] : sources()) {
    EXPECT_EQ(js.at("tasks_by_source").at(name).get<int>(), counted[name]) << name;
    EXPECT_EQ(js.at("tasks_by_source").at(name).get<int>(), r.task_sources[source]) << name;
    EXPECT_EQ(js.at("groups_by_source").at(name).get<int>(), r.group_sources[source]) << name;
    total += js.at("tasks_by_source").at(name).get<int>();
    group_total += js.at("groups_by_source").at(name).get<int>();
  }
  EXPECT_EQ(total, js.at("tasks").get<int>());
  EXPECT_EQ(group_total, js.at("kernel_groups").get<int>());
}

TEST(ScheduleSource, ATaskWithARecordReportsRecord) {
  relay::CompileOptions groups_only;
  groups_only.threads = kThreads;
  relay::CompiledModel g = relay::compile_groups_only(small_model(), groups_only);
  const Task *conv = nullptr;
  for (const auto &grp : g.groups())
    if (grp.kind == relay::FusedGroup::Kernel && grp.name.find("Conv") != std::string::npos) {
      conv = &grp.task;
      break;
    }
  ASSERT_NE(conv, nullptr);
  std::string db = log_with_record_of(*conv, "one_record.db");

  // compile_model
  relay::TunedLookupStats lookup;
  relay::CompiledModel m = relay::compile_model(small_model(), with_log(db, &lookup));
  expect_every_task_has_a_source(m.stats());
  EXPECT_EQ(m.stats().task_sources.record, 1);
  EXPECT_EQ(m.stats().task_sources.analytical, m.stats().kernels_built - 1);
  EXPECT_EQ(lookup.tuned, 1);
  for (const auto &t : m.stats().task_schedules) {
    EXPECT_EQ(t.source == ScheduleSource::Record, t.workload_key == conv->workload_key) << t.group << ": " << t.detail;
    if (t.source == ScheduleSource::Record) {
      EXPECT_NE(t.detail.find("record "), std::string::npos) << t.detail;
      EXPECT_NE(t.detail.find(db), std::string::npos) << t.detail;
    }
  }

  // export: the manifest says the same
  relay::TunedLookupStats export_lookup;
  relay::ExportOptions eo;
  eo.compile = with_log(db, &export_lookup);
  std::string out = tmp_path("export_record");
  relay::ExportResult r = relay::export_model(small_model(), out, eo);
  EXPECT_EQ(r.task_sources.record, 1);
  std::ifstream f(out + "/manifest.json");
  nlohmann::json js = nlohmann::json::parse(f);
  EXPECT_EQ(js.at("tasks_by_source").at("record").get<int>(), 1);
  int records = 0;
  for (const auto &t : js.at("task_schedules")) {
    bool is_conv = t.at("workload_key") == conv->workload_key;
    EXPECT_EQ(t.at("schedule_source") == "record", is_conv) << t.dump();
    records += t.at("schedule_source") == "record";
  }
  EXPECT_EQ(records, 1);
}

}  // namespace
}  // namespace tetune
