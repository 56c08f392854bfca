// The shipped log's traces (version 1, written with the PaddleOCR models'
// tensor names) still replay on those models' tasks, and each replayed trace
// round-trips through trace JSON version 2 byte for byte: written, parsed
// back to the same steps, and written again to the same text. And the log
// covers the tasks that `tetune tune` builds from those models today, so
// that on another CPU their records warm-start the search (autotune/transfer.h).
#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "base/errors.h"
#include "relay_import/executor.h"
#include "relay_import/onnx_importer.h"
#include "relay_import/passes/fusion.h"
#include "schedule/trace.h"
#include "tests/relay_import/test_util.h"
#include "tuning_logs/database.h"

namespace tetune {
namespace {

// The kernel tasks of a model compiled with `co`, by workload key.
std::map<std::string, Task> tasks_of(const std::string &path, const std::string &shape,
                                     const relay::CompileOptions &co = relay::CompileOptions{}) {
  relay::ImportOptions io;
  io.input_shapes = relay::parse_input_shapes("x=" + shape);
  relay::Graph g = relay::import_onnx(path, io);
  relay::run_graph_passes(g, co);
  std::map<std::string, Task> out;
  for (auto &grp : relay::fuse_graph(g)) {
    if (grp.kind != relay::FusedGroup::Kernel) continue;
    relay::build_group(g, grp, co.target);
    out.emplace(grp.task.workload_key, grp.task);
  }
  return out;
}

// The models the shipped log was tuned on (tools/tune_shipped_log.sh), with their input shapes.
const std::vector<std::pair<std::string, std::string>> kPaddleOcrModels = {
    {"ch_ppocr_mobile_v2.0_cls_infer.onnx", "1,3,48,192"},
    {"ch_PP-OCRv4_rec_infer.onnx", "1,3,48,320"},
    {"ch_PP-OCRv4_det_infer.onnx", "1,3,640,640"}};

// The shipped log under the repository root, or "" where it or the PaddleOCR models are missing.
std::string shipped_log(const std::string &root) {
  const std::string db = root + "/tuning_logs/shipped.db";
  if (root.empty() || !testing::path_exists(db)) return "";
  for (const auto &m : kPaddleOcrModels)
    if (!testing::path_exists(root + "/models/ppocr/" + m.first)) return "";
  return db;
}

TEST(ShippedTraces, ReplayAndRoundTripThroughVersionTwo) {
  const std::string root = testing::repo_root(), db = shipped_log(root);
  if (db.empty()) GTEST_SKIP() << "models/ppocr (run tools/setup.sh) or tuning_logs/shipped.db missing";
  auto log = tuning_log::TuningLog::open_read_only(db);
  auto targets = log.targets();
  int replayed = 0, v2_checked = 0;
  for (const auto &[model, shape] : kPaddleOcrModels) {
    for (const auto &[key, task] : tasks_of(root + "/models/ppocr/" + model, shape)) {
      for (const auto &target : targets) {
        for (const auto &rec : log.records(key, target.key())) {
          SCOPED_TRACE(model + " " + key + " record " + std::to_string(rec.id));
          std::vector<Step> steps = trace_from_json(rec.schedule_json, task.outputs);
          std::optional<Schedule> s;
          try {
            s.emplace(replay(task.outputs, steps));
          } catch (const ScheduleError &) {
            continue;  // a trace written for another model's tensor names (see relay_import/tuned_schedules.h)
          }
          replayed++;
          EXPECT_EQ(s->trace(), steps);
          std::string v2 = trace_to_json(*s);
          std::vector<Step> back = trace_from_json(v2, task.outputs);
          EXPECT_EQ(back, steps);
          EXPECT_EQ(trace_to_json(replay(task.outputs, back)), v2);
          v2_checked++;
        }
      }
    }
  }
  std::printf("%d shipped records replayed, %d round-tripped through version 2\n", replayed, v2_checked);
  EXPECT_GT(replayed, 20);
}

// A shipped log whose records no longer match the tasks `tune` builds (a new
// layout, fusion or stage naming) warm-starts nothing: this fails until the
// log is tuned again with the current compiler. The tasks are those of an
// AVX-512 CPU (16-channel blocks), as the records were tuned, whatever this
// machine is; replay needs no compiler.
TEST(ShippedTraces, CoverTheTasksTuneBuildsToday) {
  const std::string root = testing::repo_root(), db = shipped_log(root);
  if (db.empty()) GTEST_SKIP() << "models/ppocr (run tools/setup.sh) or tuning_logs/shipped.db missing";
  auto log = tuning_log::TuningLog::open_read_only(db);
  const auto targets = log.targets();
  relay::CompileOptions co;
  co.target = Target{"x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41"};
  // Whether a record of `key` that ran, of any target, replays on `task`.
  auto has_replaying_record = [&](const std::string &key, const Task &task) {
    for (const auto &target : targets)
      for (const auto &rec : log.records(key, target.key())) {
        if (!rec.ok()) continue;
        try {
          replay(task.outputs, trace_from_json(rec.schedule_json, task.outputs));
          return true;
        } catch (const ScheduleError &) {
        }
      }
    return false;
  };
  for (const auto &[model, shape] : kPaddleOcrModels) {
    int tasks = 0, covered = 0;
    std::string missing;
    for (const auto &[key, task] : tasks_of(root + "/models/ppocr/" + model, shape, co)) {
      tasks++;
      const bool replays = has_replaying_record(key, task);
      covered += replays;
      if (!replays) missing += " " + task.name;
    }
    std::printf("%s: %d of %d tasks have a shipped record that replays\n", model.c_str(), covered, tasks);
    EXPECT_GT(tasks, 0) << model;
    EXPECT_GE(covered * 10, tasks * 9) << model << ": tasks without a shipped record that replays:" << missing;
  }
}

}  // namespace
}  // namespace tetune
