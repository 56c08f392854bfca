#include "model_tuning/in_model_pick.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "autotune/measure/record_store.h"
#include "base/errors.h"
#include "model_tuning/timing_export.h"
#include "relay_import/onnx_importer.h"
#include "runtime/model.h"
#include "schedule/trace.h"
#include "tuning_logs/records.h"
#include "workload/task.h"

namespace tetune {
namespace autotune {

namespace {

// tuning_log::median_of, 0 for a kernel never called.
double median(const std::vector<double> &v) { return v.empty() ? 0 : tuning_log::median_of(v); }

// A task as an export compiled it: the task and its schedule's trace.
struct Compiled {
  std::optional<Task> task;
  std::string schedule_json;
};

// One export, loaded, with the per-run per-call time of each of its kernels.
struct TimedExport {
  ScratchDir dir;
  relay::ExportResult result;
  std::map<std::string, Compiled> by_key;  // workload key -> how it was compiled
  std::unique_ptr<rt::Model> model;
  std::vector<NDArray> inputs;
  std::vector<int> kernel_of_call;             // plan kernel of each call, in call order
  std::vector<std::vector<double>> per_call;   // per kernel: each run's mean per-call ms
  std::vector<double> run_ms;

  void load(int threads) {
    model = rt::Model::load(dir.path);
    model->set_num_threads(threads);
    model->set_profiling(true);
    inputs = seeded_inputs(*model);
    std::map<std::string, int> index;
    for (size_t k = 0; k < model->plan().kernels.size(); k++) index[model->plan().kernels[k].name] = static_cast<int>(k);
    for (const std::string &call : model->call_names()) {  // "group:kernel"
      auto it = index.find(call.substr(call.find(':') + 1));
      kernel_of_call.push_back(it == index.end() ? -1 : it->second);
    }
    per_call.assign(model->plan().kernels.size(), {});
    model->run(inputs);  // warm-up: first touch of buffers and weights
  }

  void run(int runs) {
    for (int i = 0; i < runs; i++) {
      const double t0 = now_s();
      model->run(inputs);
      run_ms.push_back((now_s() - t0) * 1e3);
      const std::vector<double> &ms = model->last_call_ms();
      std::vector<double> sum(per_call.size(), 0.0);
      std::vector<int> calls(per_call.size(), 0);
      for (size_t c = 0; c < ms.size() && c < kernel_of_call.size(); c++)
        if (kernel_of_call[c] >= 0) sum[kernel_of_call[c]] += ms[c], calls[kernel_of_call[c]]++;
      for (size_t k = 0; k < per_call.size(); k++)
        if (calls[k]) per_call[k].push_back(sum[k] / calls[k]);
    }
  }

  int calls_of(int kernel) const { return static_cast<int>(std::count(kernel_of_call.begin(), kernel_of_call.end(), kernel)); }
};

// Exports the model into t.dir with `eo`, recording each task's schedule as the hook gives it.
void export_capturing(const std::string &onnx_path, const std::map<std::string, Shape> &input_shapes,
                      relay::ExportOptions eo, TimedExport &t) {
  relay::ScheduleFn inner = eo.compile.schedule_for;
  const relay::CompileOptions plain = eo.compile;
  eo.compile.schedule_for = [&t, inner, plain](const Task &task) {
    ScheduleChoice c = inner ? inner(task) : relay::default_choice(task, plain);
    Compiled &k = t.by_key[task.workload_key];
    k.task = task;
    k.schedule_json = trace_to_json(c.schedule);
    return c;
  };
  relay::ImportOptions io;
  io.input_shapes = input_shapes;
  t.result = relay::export_model(relay::import_onnx(onnx_path, io), t.dir.path, eo);
}

}  // namespace

InModelPicks choose_in_model(const std::string &onnx_path, const std::map<std::string, Shape> &input_shapes, int threads,
                             const relay::TunedLogs &logs, const std::string &db_path, int rounds, int runs,
                             const std::string &layout) {
  if (rounds < 1 || runs < 1)
    throw Error("choose_in_model: rounds and runs must be >= 1, got " + std::to_string(rounds) + " and " + std::to_string(runs));
  InModelPicks out;
  out.rounds = rounds;
  out.runs_per_round = runs;
  TimedExport tuned, plain;
  const double t0 = now_s();
  relay::ExportOptions with_records = timing_export_options(onnx_path, threads, layout);
  relay::TunedLookupOptions lookup;
  lookup.print_notes = false;
  relay::use_tuned_schedules(with_records.compile, logs, nullptr, lookup);
  export_capturing(onnx_path, input_shapes, with_records, tuned);
  export_capturing(onnx_path, input_shapes, timing_export_options(onnx_path, threads, layout), plain);
  out.compile_s = now_s() - t0;

  tuned.load(threads);
  plain.load(threads);
  for (int r = 0; r < rounds; r++) {  // in turns, so that a slow phase of the machine falls on both
    tuned.run(runs);
    plain.run(runs);
  }
  out.tuned_model_ms = median(tuned.run_ms);
  out.default_model_ms = median(plain.run_ms);

  std::map<std::string, int> plain_kernel;  // workload key -> kernel of the default export
  for (size_t k = 0; k < plain.result.task_schedules.size(); k++) plain_kernel[plain.result.task_schedules[k].workload_key] = static_cast<int>(k);
  for (size_t k = 0; k < tuned.result.task_schedules.size(); k++) {
    const relay::TaskSchedule &ts = tuned.result.task_schedules[k];
    InModelTask t;
    t.name = ts.group;
    t.workload_key = ts.workload_key;
    t.calls = tuned.calls_of(static_cast<int>(k));
    t.pick_ms = median(tuned.per_call[k]);
    auto pk = plain_kernel.find(ts.workload_key);
    auto mine = tuned.by_key.find(ts.workload_key);
    auto theirs = plain.by_key.find(ts.workload_key);
    t.compared = ts.source == ScheduleSource::Record && pk != plain_kernel.end() && mine != tuned.by_key.end() &&
                 theirs != plain.by_key.end() && mine->second.task && mine->second.schedule_json != theirs->second.schedule_json &&
                 !tuned.per_call[k].empty() && !plain.per_call[pk->second].empty();
    if (t.compared) {
      t.default_ms = median(plain.per_call[pk->second]);
      t.default_faster = t.default_ms < t.pick_ms;
      const Task &task = *mine->second.task;
      RecordStore db(db_path, task.workload_key, task.name, workload_description(task), std::max(1, threads));
      for (const auto &[json, costs] : {std::make_pair(mine->second.schedule_json, tuned.per_call[k]),
                                        std::make_pair(theirs->second.schedule_json, plain.per_call[pk->second])}) {
        tuning_log::MeasureRecord rec;
        rec.schedule_json = json;
        rec.costs_ms = costs;
        rec.median_ms = median(costs);
        rec.gflops = rec.median_ms > 0 ? task.flops / (rec.median_ms * 1e6) : 0;
        rec.tuner_version = tuning_log::kInModelTunerVersion;
        rec.trial_index = static_cast<int>(db.count());
        db.add(rec);
        out.records_added++;
      }
    }
    out.kernels_ms += t.calls * (t.compared ? std::min(t.pick_ms, t.default_ms) : t.pick_ms);
    out.tasks.push_back(t);
  }
  return out;
}

}  // namespace autotune
}  // namespace tetune
