#include "model_tuning/in_model_pick.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <set>
#include <utility>

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

  void forget_times() {
    for (auto &k : per_call) k.clear();
    run_ms.clear();
  }
};

// Each export `runs` times (the first `first_runs`), in turns, `rounds` times: a slow phase of the machine falls on all alike.
void run_in_turns(const std::vector<TimedExport *> &timed, int rounds, int runs, int first_runs) {
  for (int r = 0; r < rounds; r++)
    for (size_t e = 0; e < timed.size(); e++) timed[e]->run(e == 0 ? first_runs : runs);
}

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

// Writes one in-model record of `json` for the task to db_path, its costs one time per run (ms per call).
void add_in_model_record(const std::string &db_path, int threads, const Task &task, const std::string &json,
                         const std::vector<double> &costs, InModelPicks &out) {
  RecordStore db(db_path, task.workload_key, task.name, workload_description(task), std::max(1, threads));
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

// The kernel of each workload key in an export.
std::map<std::string, int> kernel_by_key(const TimedExport &e) {
  std::map<std::string, int> out;
  for (size_t k = 0; k < e.result.task_schedules.size(); k++) out[e.result.task_schedules[k].workload_key] = static_cast<int>(k);
  return out;
}

// Kernel k of export e, against the default export where that has the same
// kernel with another schedule; records what it timed. A kernel of a conv's
// form (in conv_keys) is recorded even alone, so that both forms of the conv
// have in-model times to be chosen by.
InModelTask time_kernel(const TimedExport &e, int k, const TimedExport &plain, const std::map<std::string, int> &plain_kernel,
                        const std::set<std::string> &conv_keys, const std::string &db_path, int threads,
                        InModelPicks &out) {
  const relay::TaskSchedule &ts = e.result.task_schedules[k];
  InModelTask t;
  t.name = ts.group;
  t.workload_key = ts.workload_key;
  t.calls = e.calls_of(k);
  t.pick_ms = median(e.per_call[k]);
  auto mine = e.by_key.find(ts.workload_key);
  if (mine == e.by_key.end() || !mine->second.task || e.per_call[k].empty()) return t;
  auto pk = plain_kernel.find(ts.workload_key);
  auto theirs = plain.by_key.find(ts.workload_key);
  t.compared = ts.source == ScheduleSource::Record && pk != plain_kernel.end() && theirs != plain.by_key.end() &&
               mine->second.schedule_json != theirs->second.schedule_json && !plain.per_call[pk->second].empty();
  const Task &task = *mine->second.task;
  if (t.compared) {
    t.default_ms = median(plain.per_call[pk->second]);
    t.default_faster = t.default_ms < t.pick_ms;
    add_in_model_record(db_path, threads, task, mine->second.schedule_json, e.per_call[k], out);
    add_in_model_record(db_path, threads, task, theirs->second.schedule_json, plain.per_call[pk->second], out);
  } else if (conv_keys.count(ts.workload_key)) {
    add_in_model_record(db_path, threads, task, mine->second.schedule_json, e.per_call[k], out);
  }
  return t;
}

// The faster per-call time of a timed task (ms).
double best_ms(const InModelTask &t) { return t.compared ? std::min(t.pick_ms, t.default_ms) : t.pick_ms; }

// The per-call times (ms, one per run) of the schedule chosen for t, as the exports last ran it: the default export's
// kernel where the default ran faster, else the kernel of `e`, the export t was timed from (kernels: workload key ->
// kernel). Empty where neither has its kernel.
std::vector<double> chosen_runs(const InModelTask &t, const TimedExport &e, const std::map<std::string, int> &e_kernel,
                                const TimedExport &plain, const std::map<std::string, int> &plain_kernel) {
  const bool plain_one = t.compared && t.default_faster;
  const std::map<std::string, int> &kernels = plain_one ? plain_kernel : e_kernel;
  auto k = kernels.find(t.workload_key);
  return k == kernels.end() ? std::vector<double>{} : (plain_one ? plain : e).per_call[k->second];
}

// Adds `scale` x v[j] to sum[j] for every run j (v empty: a kernel never called).
void add_runs(std::vector<double> &sum, const std::vector<double> &v, double scale) {
  if (v.empty()) return;
  if (v.size() != sum.size())
    throw Error("choose_in_model: a kernel timed in " + std::to_string(v.size()) + " runs, the others in " +
                std::to_string(sum.size()) + " (internal error)");
  for (size_t j = 0; j < v.size(); j++) sum[j] += scale * v[j];
}

// A conv's two forms by per-call times of their kernels (ms; NaN where a kernel has none): {direct, winograd}.
std::pair<double, double> form_ms(const relay::ConvForms &f, const std::map<std::string, double> &ms) {
  auto known = [&](const std::string &key) {
    auto it = ms.find(key);
    return it == ms.end() ? std::nan("") : it->second;
  };
  double winograd = 0;
  for (const Task &w : f.winograd) winograd += known(w.workload_key);
  return {known(f.direct.workload_key), winograd};
}

}  // namespace

InModelPicks choose_in_model(const std::string &onnx_path, const std::map<std::string, Shape> &input_shapes, int threads,
                             const relay::TunedLogs &logs, const std::string &db_path, int rounds, int runs, int final_runs,
                             const std::string &layout) {
  if (rounds < 1 || runs < 1 || final_runs < 1)
    throw Error("choose_in_model: rounds, runs and final_runs must be >= 1, got " + std::to_string(rounds) + ", " +
                std::to_string(runs) + " and " + std::to_string(final_runs));
  InModelPicks out;
  out.rounds = rounds;
  out.runs_per_round = runs;
  TimedExport tuned, other, plain;
  double t0 = now_s();
  const relay::ExportOptions with_records = tuned_export_options(onnx_path, threads, layout, logs);
  export_capturing(onnx_path, input_shapes, with_records, tuned);
  export_capturing(onnx_path, input_shapes, timing_export_options(onnx_path, threads, layout), plain);
  // Every conv in the form its records do not favour: with the tuned export, both forms of each, timed in the model.
  const bool forms = !tuned.result.conv_forms.empty();
  if (forms) {
    relay::ExportOptions flipped = with_records;
    flipped.compile.other_conv_forms = true;
    export_capturing(onnx_path, input_shapes, flipped, other);
  }
  out.compile_s = now_s() - t0;

  std::vector<TimedExport *> timed = {&tuned, &plain};
  if (forms) timed.push_back(&other);
  for (TimedExport *e : timed) e->load(threads);
  run_in_turns(timed, rounds, runs, runs);
  out.tuned_model_ms = median(tuned.run_ms);
  out.default_model_ms = median(plain.run_ms);

  std::set<std::string> conv_keys;  // the kernels of both forms of every eligible conv
  for (const relay::ConvForms &f : tuned.result.conv_forms) {
    conv_keys.insert(f.direct.workload_key);
    for (const Task &w : f.winograd) conv_keys.insert(w.workload_key);
  }
  const std::map<std::string, int> plain_kernel = kernel_by_key(plain);
  std::map<std::string, double> in_model_ms;  // workload key -> its faster per-call time in the model
  for (size_t k = 0; k < tuned.result.task_schedules.size(); k++) {
    InModelTask t = time_kernel(tuned, static_cast<int>(k), plain, plain_kernel, conv_keys, db_path, threads, out);
    if (t.calls) in_model_ms[t.workload_key] = best_ms(t);
    out.tasks.push_back(t);
  }
  if (forms)
    for (size_t k = 0; k < other.result.task_schedules.size(); k++) {
      const std::string &key = other.result.task_schedules[k].workload_key;
      if (in_model_ms.count(key) || !conv_keys.count(key)) continue;  // timed in the tuned export; or no conv's
      InModelTask t = time_kernel(other, static_cast<int>(k), plain, plain_kernel, conv_keys, db_path, threads, out);
      if (t.calls) in_model_ms[key] = best_ms(t);
      out.other_form_tasks.push_back(t);
    }

  // Each conv's two forms by their in-model times, as `compile` will choose them from the new records.
  std::vector<std::pair<const relay::ConvForms *, bool>> switched;  // conv, now direct
  for (const relay::ConvForms &f : tuned.result.conv_forms) {
    if (f.winograd.size() != 3) continue;  // a shared input transform: not the conv's alone (conv_forms.h)
    const auto [direct, winograd] = form_ms(f, in_model_ms);
    if (std::isnan(direct) || std::isnan(winograd)) continue;
    out.convs_compared++;
    if (f.direct_faster() != (direct < winograd)) switched.push_back({&f, direct < winograd});
  }
  out.convs_switched = static_cast<int>(switched.size());

  // Second rounds: the model as `compile` now builds it, in turns with the same exports, whose kernels' times in these
  // rounds, chosen as above, make the estimate.
  TimedExport final_export;
  t0 = now_s();
  relay::TunedLookupStats stats;
  export_capturing(onnx_path, input_shapes, tuned_export_options(onnx_path, threads, layout, logs, &stats), final_export);
  out.final_model.compile_s = now_s() - t0;
  out.final_model.tuned_tasks = stats.tuned;
  out.final_model.tasks = stats.tuned + stats.untuned;
  final_export.load(threads);
  for (TimedExport *e : timed) e->forget_times();
  timed.insert(timed.begin(), &final_export);
  run_in_turns(timed, rounds, runs, final_runs);
  out.final_model.runs = static_cast<int>(final_export.run_ms.size());
  out.final_model.median_ms = median(final_export.run_ms);
  out.final_model.min_ms = *std::min_element(final_export.run_ms.begin(), final_export.run_ms.end());

  // Every export but the final one ran `runs` times a round: run j of each is summed as one run of the model.
  out.kernels_run_ms.assign(static_cast<size_t>(rounds) * runs, 0.0);
  std::map<std::string, const InModelTask *> by_key;  // workload key -> its task, for the switched convs
  const std::map<std::string, int> tuned_kernel = kernel_by_key(tuned), other_kernel = kernel_by_key(other);
  auto finish = [&](InModelTask &t, const TimedExport &e, const std::map<std::string, int> &e_kernel) {
    t.final_run_ms = chosen_runs(t, e, e_kernel, plain, plain_kernel);
    t.final_ms = median(t.final_run_ms);
    if (t.calls) by_key[t.workload_key] = &t;
  };
  for (InModelTask &t : out.tasks) {
    finish(t, tuned, tuned_kernel);
    add_runs(out.kernels_run_ms, t.final_run_ms, t.calls);
  }
  for (InModelTask &t : out.other_form_tasks) finish(t, other, other_kernel);
  for (const auto &[f, now_direct] : switched) {  // one call of each of its kernels
    const double to = now_direct ? 1 : -1;
    add_runs(out.kernels_run_ms, by_key.at(f->direct.workload_key)->final_run_ms, to);
    for (const Task &w : f->winograd) add_runs(out.kernels_run_ms, by_key.at(w.workload_key)->final_run_ms, -to);
  }
  out.kernels_ms = median(out.kernels_run_ms);
  return out;
}

}  // namespace autotune
}  // namespace tetune
