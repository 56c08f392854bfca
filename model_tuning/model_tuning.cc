#include "model_tuning/model_tuning.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "autotune/default_schedule.h"
#include "autotune/measure/measure_hooks.h"
#include "autotune/tuner.h"
#include "codegen/buffer_limits.h"
#include "relay_import/executor.h"
#include "relay_import/onnx_importer.h"
#include "schedule/trace.h"
#include "base/errors.h"
#include "base/reread_speedup.h"

namespace tetune {
namespace autotune {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
constexpr double kInf = std::numeric_limits<double>::infinity();
const char *kBaselineVersion = "tetune-default-schedule";

// "g12_Conv_HardSigmoid_Mul" -> "Conv_HardSigmoid_Mul"
std::string op_sequence(const std::string &group_name) {
  if (group_name.size() > 1 && group_name[0] == 'g') {
    size_t u = group_name.find('_');
    bool digits = u != std::string::npos && u > 1;
    for (size_t i = 1; digits && i < u; i++) digits = std::isdigit(static_cast<unsigned char>(group_name[i]));
    if (digits) return group_name.substr(u + 1);
  }
  return group_name;
}

struct Stop {};  // thrown from tune()'s progress callback after a committed record

// The records of task t on the target they are measured for, as tune() picks it: the driver's measurer's
// target (autotune/measure/measure_hooks.h) when `hooked` is set, else this host's with the task's threads.
RecordStore task_records(const ModelTuneOptions &opt, const Task &t, const BatchMeasurer *hooked,
                         const std::vector<std::string> &read_dbs) {
  const std::string desc = workload_description(t);
  if (hooked) return RecordStore(opt.db_path, t.workload_key, t.name, desc, hooked->target_info(), read_dbs);
  return RecordStore(opt.db_path, t.workload_key, t.name, desc, std::max(1, t.threads), read_dbs);
}

// How the task scheduler sees a model task timed in `timed`: a task of few flops is capped at
// small_task_trials records.
SchedTaskInfo sched_info(const ModelTask &t, CacheState timed, const ModelTuneOptions &opt) {
  SchedTaskInfo si;
  si.name = t.task.name;
  si.weight = t.task.weight;
  si.flops = t.task.flops;
  si.similarity_key = similarity_key(t, timed);
  si.max_trials = t.task.flops < opt.small_task_flops ? std::max(0, opt.small_task_trials) : -1;
  si.rivals = t.rivals;
  return si;
}

// A task whose best schedules confirm_bests_as_in_model times again: a CPU task that reads constants (weights).
bool confirmable(const Task &t) { return !t.constant_inputs.empty() && !t.target.is_gpu(); }

std::atomic<bool> g_sigint{false};
void on_sigint(int) {
  if (g_sigint.load()) _exit(130);
  g_sigint.store(true);
  const char msg[] = "\ninterrupt: finishing the current measurement, then stopping (Ctrl-C again to abort)\n";
  ssize_t r = write(2, msg, sizeof msg - 1);
  (void)r;
}
}  // namespace

double constant_bytes(const Task &task) {
  const std::vector<Tensor> in = task.inputs();
  double bytes = 0;
  for (int i : task.constant_inputs)
    if (i >= 0 && i < static_cast<int>(in.size())) bytes += static_cast<double>(tensor_bytes(in[i].shape(), in[i].dtype()));
  return bytes;
}

bool model_weights_above_reported_l3(double model_weight_bytes, const CacheSizes &caches) {
  return caches.l3_bytes > 0 && model_weight_bytes > caches.l3_bytes;
}

bool model_weights_stay_cached(double model_weight_bytes, const CacheSizes &caches) {
  if (model_weights_above_reported_l3(model_weight_bytes, caches)) return false;
  return reread_speedup(static_cast<int64_t>(model_weight_bytes)) >= kCachedRereadSpeedup;
}

CacheState cache_state_in_model(const Task &task, bool weights_stay_cached, int64_t l2_bytes) {
  const bool from_memory = !weights_stay_cached && l2_bytes > 0 && constant_bytes(task) > l2_bytes;
  return from_memory ? CacheState::kModel : CacheState::kWarm;
}

std::string similarity_key(const ModelTask &t, CacheState timed) {
  return t.similarity_key.empty() ? "" : t.similarity_key + " timed " + cache_state_name(timed);
}

double model_weight_bytes(const std::vector<ModelTask> &tasks) {
  double bytes = 0;
  for (const auto &t : tasks)
    if (t.rivals.empty()) bytes += t.task.weight * constant_bytes(t.task);  // an alternative replaces, not adds
  return bytes;
}

std::vector<CacheState> timing_states(const std::vector<ModelTask> &tasks, const ModelTuneOptions &opt) {
  if (!opt.cache_by_weights) return std::vector<CacheState>(tasks.size(), opt.measure.cache);
  const CacheSizes caches = host_cache_sizes();
  const bool stay = model_weights_stay_cached(model_weight_bytes(tasks), caches);
  std::vector<CacheState> states;
  for (const auto &t : tasks)
    states.push_back(t.task.target.is_gpu() ? opt.measure.cache : cache_state_in_model(t.task, stay, caches.l2_bytes));
  return states;
}

double confirm_bests_as_in_model(const std::vector<ModelTask> &tasks, ModelTuneResult &result,
                                 const ModelTuneOptions &opt, int top, ReferenceCache *references,
                                 const std::function<bool()> &stop) {
  if (measure_hooks().make_measurer) return -1;
  result.confirmable_tasks = result.picks_timed_as_in_model = 0;
  MeasureOptions mo = opt.measure;
  mo.cache = CacheState::kModel;
  const size_t n = std::min(tasks.size(), result.tasks.size());
  std::vector<size_t> order(n);  // heaviest first, so that a stop leaves the lightest tasks as measured warm
  for (size_t i = 0; i < n; i++) order[i] = i;
  auto share = [&](size_t i) {
    double b = result.tasks[i].best_ms;
    return std::isfinite(b) ? tasks[i].task.weight * b : 0.0;
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return share(a) > share(b); });
  for (size_t i : order) {
    const Task &t = tasks[i].task;
    double &best_ms = result.tasks[i].best_ms;
    if (top > 0 && confirmable(t)) {
      RecordStore db = task_records(opt, t, nullptr, opt.read_dbs);
      // Once stopped nothing is measured, but the task's pick is still read from the log below: an earlier
      // run's re-measurements rank first there, and `compile` takes that pick.
      const bool stopped = stop && stop();
      // The default schedule competes too: a pick that was fastest warm can be slower than it in the model,
      // and without this `compile` would take it anyway (re-measured records rank before the default's one).
      std::optional<Schedule> fallback;
      std::string fallback_json;
      if (!stopped) {
        try {
          fallback = analytical_schedule(t).schedule;
          fallback_json = trace_to_json(*fallback);
        } catch (const Error &e) {
          fallback.reset();
          std::fprintf(stderr, "task %s: its default schedule is not re-measured: %s\n", t.name.c_str(), e.what());
        }
      }
      std::map<std::string, int> times;  // successful records per schedule
      bool fallback_timed_again = false;  // a record of the default besides its warm baseline (an earlier re-measure)
      for (const auto &r : db.records()) {
        times[r.schedule_json] += r.ok();
        fallback_timed_again |= fallback && r.ok() && r.schedule_json == fallback_json && r.tuner_version != kBaselineVersion;
      }
      std::vector<std::string> schedules;
      std::vector<MeasureInput> ins;
      const std::vector<tuning_log::MeasureRecord> picks = stopped ? std::vector<tuning_log::MeasureRecord>{} : db.best(top);
      for (const auto &b : picks) {
        if (times[b.schedule_json] > 1) continue;  // measured again already (by an earlier run: nothing new to learn)
        try {
          ins.push_back({trace_from_json(b.schedule_json, t.outputs), ""});
          schedules.push_back(b.schedule_json);
        } catch (const Error &e) {  // a record of an older trace format: it keeps its warm time
          std::fprintf(stderr, "task %s: a best schedule does not replay, not re-measured: %s\n", t.name.c_str(),
                       e.what());
        }
      }
      // Timed once per log; a task without records has nothing to choose from (`compile` takes the default).
      if (fallback && !picks.empty() && !fallback_timed_again &&
          std::find(schedules.begin(), schedules.end(), fallback_json) == schedules.end()) {
        ins.push_back({fallback->trace(), ""});
        schedules.push_back(fallback_json);
      }
      try {
        // Rounds interleaved (A B C A B C), so that a slow phase of the machine falls on every candidate alike;
        // each schedule is compiled once, and its result's median is over all rounds' runs.
        const std::vector<MeasureResult> got =
            ins.empty() ? std::vector<MeasureResult>{}
                        : Measurer(t, mo, references).measure_batch(ins, std::max(1, opt.confirm_rounds));
        for (size_t k = 0; k < got.size(); k++) {
          if (!got[k].ok()) {  // the record stands as first measured; the log ranks it as before
            std::fprintf(stderr, "task %s: a best schedule did not re-measure with its weights flushed: %s\n",
                         t.name.c_str(), got[k].error_msg.c_str());
            continue;
          }
          db.add(measure_record(schedules[k], got[k], TuneOptions{}.tuner_version, static_cast<int>(db.count())));
          times[schedules[k]]++;
        }
      } catch (const MeasureError &e) {  // its records stand as measured
        std::fprintf(stderr, "task %s: best schedules not re-measured with the weights flushed: %s\n", t.name.c_str(),
                     e.what());
      }
      // The pick as `compile` will make it (re-measured schedules first, by their slower median).
      const std::vector<tuning_log::MeasureRecord> now = db.best(1);
      if (!now.empty()) {
        result.confirmable_tasks++;
        best_ms = now[0].median_ms;
        if (times[now[0].schedule_json] > 1) result.picks_timed_as_in_model++;
      }
    }
  }
  std::vector<SchedTaskInfo> infos;
  std::vector<double> best;
  for (size_t i = 0; i < n; i++) {
    infos.push_back(sched_info(tasks[i], opt.measure.cache, opt));  // similarity does not enter the objective
    best.push_back(result.tasks[i].best_ms);
  }
  return objective(infos, best);
}

const std::atomic<bool> *install_sigint_stop() {
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  return &g_sigint;
}

std::vector<ModelTask> extract_model_tasks(const relay::CompiledModel &m) {
  std::vector<ModelTask> out;
  std::map<std::string, size_t> index;
  // One task per workload key, its weight the occurrences; returns its index.
  auto add = [&](const Task &task, const std::string &name, const std::string &group, const std::string &similarity) {
    auto it = index.find(task.workload_key);
    if (it != index.end()) {
      out[it->second].task.weight += 1;
      out[it->second].groups.push_back(group);
      return it->second;
    }
    ModelTask t;
    t.task = task;
    t.task.weight = 1;
    t.task.name = name;
    t.groups.push_back(group);
    t.similarity_key = similarity;
    index[task.workload_key] = out.size();
    out.push_back(std::move(t));
    return out.size() - 1;
  };
  for (const auto &g : m.groups())
    if (g.kind == relay::FusedGroup::Kernel) add(g.task, g.task.name.empty() ? g.name : g.task.name, g.name, op_sequence(g.name));
  const size_t own = out.size();  // the model's kernels; alternatives follow
  auto own_task = [&](const Task &t) {
    auto k = index.find(t.workload_key);
    return k != index.end() && k->second < own;
  };
  for (const relay::ConvForms &f : m.stats().conv_forms) {
    if (f.winograd.size() != 3) continue;  // its input transform is shared: compile keeps Winograd (conv_forms.h)
    // A model compiled with record_ms may run a conv direct: its Winograd kernels are then no tasks of it.
    if (!std::all_of(f.winograd.begin(), f.winograd.end(), own_task) || own_task(f.direct)) continue;
    ModelTask &t = out[add(f.direct, "direct:" + f.direct.name, f.conv, op_sequence(f.direct.name))];
    if (t.rivals.empty())
      for (const Task &w : f.winograd) t.rivals.push_back(static_cast<int>(index.at(w.workload_key)));
  }
  return out;
}

std::vector<ModelTask> extract_model_tasks(const std::string &onnx_path, const std::map<std::string, Shape> &input_shapes,
                                           int threads, int *kernel_groups, const std::string &layout) {
  relay::ImportOptions io;
  io.input_shapes = input_shapes;
  relay::CompileOptions co;
  co.threads = std::max(1, threads);
  relay::set_layout(co, layout);
  co.list_conv_forms = true;
  relay::CompiledModel m = relay::compile_groups_only(relay::import_onnx(onnx_path, io), co);
  if (kernel_groups) *kernel_groups = m.stats().kernel_groups;
  return extract_model_tasks(m);
}

ModelTuneResult tune_model(const std::vector<ModelTask> &tasks, const ModelTuneOptions &opt) {
  if (opt.total_trials <= 0 && opt.time_budget_s <= 0)
    throw Error("tune_model: give a trial budget (total_trials > 0) or a time budget (time_budget_s > 0)");
  if (opt.batch <= 0) throw Error("tune_model: batch must be > 0");
  auto t0 = Clock::now();
  const bool timed = opt.time_budget_s > 0;
  auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt.time_budget_s));
  auto stop_requested = [&] { return opt.stop && opt.stop->load(); };
  auto past_deadline = [&] { return timed && Clock::now() >= deadline; };

  if (measure_hooks().before_tuning) {
    std::vector<Task> all;
    for (const auto &t : tasks) all.push_back(t.task);
    measure_hooks().before_tuning(all, opt.measure);
  }
  ModelTuneResult res;
  ReferenceCache references;  // each task's reference is built once, not once per round
  const int n = static_cast<int>(tasks.size());
  const std::vector<CacheState> states = timing_states(tasks, opt);
  auto measure_of = [&](int i) {
    MeasureOptions m = opt.measure;
    m.cache = states[i];
    return m;
  };
  res.tasks.resize(n);
  std::vector<SchedTaskInfo> infos;
  for (int i = 0; i < n; i++) {
    const Task &t = tasks[i].task;
    auto &r = res.tasks[i];
    r.name = t.name;
    r.workload_key = t.workload_key;
    r.weight = t.weight;
    r.flops = t.flops;
    infos.push_back(sched_info(tasks[i], states[i], opt));
    r.small = infos.back().max_trials >= 0;
    r.best_ms = kInf;
    r.baseline_ms = kInf;
    r.alternative = !tasks[i].rivals.empty();
  }
  SchedulerOptions so = opt.scheduler;
  so.batch = opt.batch;
  so.heavy_share = opt.small_task_heavy_share;  // TaskScheduler lifts only caps above 0
  so.total_trials = opt.total_trials;
  so.warmup_trials = opt.warmup_trials >= 0 ? opt.warmup_trials : (opt.measure_baseline ? 1 : opt.batch);
  so.seed = opt.seed;
  TaskScheduler sched(infos, so);

  // A driver's measurer per CPU task (as tune() makes one; a GPU task is measured by tune()'s runner):
  // its target is the one whose records count against the budget, and it measures the baselines, so that
  // a pass of tetune-mpi tuning for its workers' CPU neither counts nor stores records of rank 0's.
  // Held until the baselines are stored; tune() makes its own for each step.
  std::vector<std::unique_ptr<BatchMeasurer>> hooked(n);
  if (measure_hooks().make_measurer)
    for (int i = 0; i < n; i++)
      if (!tasks[i].task.target.is_gpu()) hooked[i] = measure_hooks().make_measurer(tasks[i].task, measure_of(i));

  // Stored records (resume).
  for (int i = 0; i < n; i++) {
    const Task &t = tasks[i].task;
    RecordStore db = task_records(opt, t, hooked[i].get(), opt.read_dbs);
    int count = 0;
    double best = kInf;
    for (const auto &rec : db.records()) {
      count++;
      if (rec.ok() && rec.median_ms < best) best = rec.median_ms;
      if (rec.ok() && rec.tuner_version == kBaselineVersion) res.tasks[i].baseline_ms = rec.median_ms;
    }
    sched.set_initial(i, count, best);
  }
  res.estimated_before_ms = sched.objective();
  res.without_result_before = sched.tasks_without_result();

  auto emit = [&](int task, int target, bool warmup, const tuning_log::MeasureRecord *last) {
    if (!opt.progress) return;
    ModelTuneProgress p;
    p.task = task;
    if (task >= 0) {
      p.task_trials = sched.state(task).trials;
      p.task_best_ms = sched.state(task).best_ms;
    }
    p.task_target = target;
    p.warmup = warmup;
    p.estimated_ms = sched.objective();
    p.tasks_without_result = sched.tasks_without_result();
    p.trials_used = sched.trials_used();
    p.trials_budget = opt.total_trials;
    p.measured = res.measured;
    p.errors = res.errors;
    p.elapsed_s = since(t0);
    p.time_left_s = timed ? std::max(0.0, opt.time_budget_s - p.elapsed_s) : -1;
    p.last = last;
    opt.progress(p);
  };

  // Every CPU task's reference before its first trial, built in parallel (tune() and the baselines find them).
  // Tasks capped at no trials are left out, and so is everything when the trial budget is spent.
  if (!measure_hooks().make_measurer && sched.remaining() > 0) {
    std::vector<Task> cpu;
    for (int i = 0; i < n; i++)
      if (!tasks[i].task.target.is_gpu() && infos[i].max_trials != 0) cpu.push_back(tasks[i].task);
    std::fprintf(stderr, "tune-model: computing the reference outputs of %zu tasks, %d at a time\n", cpu.size(),
                 std::max(1, opt.measure.parallel_builds));
    // At most half the budget, so that a short one still measures: the rest are computed as their tasks come.
    prefill_references(cpu, opt.measure, references,
                       [&] { return stop_requested() || (timed && since(t0) >= 0.5 * opt.time_budget_s); });
  }

  // The search leaves time for confirm_bests_as_in_model inside the budget: top x rounds re-measurements
  // per task with constants, at the search's mean time per trial, at most 15% of the budget (PP-OCR rec,
  // 70 tasks, needed 20 s of 180); the step itself stops at the deadline, so a short reserve costs only light tasks.
  // Tasks timed with their weights flushed are timed so again: the best of thousands of single medians is
  // the luckiest, and the interleaved second look takes the slower of two (BERT's estimate: 7.4% low without).
  const bool confirming =
      opt.confirm_top > 0 && std::count(states.begin(), states.end(), CacheState::kCold) == 0;
  const Clock::time_point trials_since = Clock::now();  // after the references: per trial is then compile + time
  const int trials_before = res.measured;
  const auto confirmed_tasks =
      std::count_if(tasks.begin(), tasks.end(), [](const ModelTask &t) { return confirmable(t.task); });
  auto search_over = [&] {
    if (!timed) return false;
    double reserve = 0;
    if (confirming && res.measured > trials_before) {
      double per_trial_s = since(trials_since) / (res.measured - trials_before);
      reserve = std::min(0.15 * opt.time_budget_s,
                         per_trial_s * confirmed_tasks * (opt.confirm_top + 1) * std::max(1, opt.confirm_rounds));
    }
    return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(reserve)) >=
           deadline;
  };

  // Baseline: the analytical default (autotune/default_schedule.h) as the first record of a task without records.
  if (opt.measure_baseline) {
    for (int i = 0; i < n; i++) {
      if (stop_requested() || search_over() || sched.remaining() <= 0) break;
      const Task &t = tasks[i].task;
      if (sched.state(i).trials > 0 || sched.state(i).dead) continue;
      RecordStore db = task_records(opt, t, hooked[i].get(), {});
      Schedule s = analytical_schedule(t).schedule;
      MeasureInput in;
      in.steps = s.trace();
      MeasureResult mr = hooked[i] ? hooked[i]->measure_batch({in}).at(0) : Measurer(t, measure_of(i), &references).measure(in);
      tuning_log::MeasureRecord rec = measure_record(trace_to_json(s), mr, kBaselineVersion, 0);
      rec.id = db.add(rec);
      res.measured++;
      res.tasks[i].measured++;
      if (!mr.ok()) res.errors++, res.tasks[i].errors++;
      else res.tasks[i].baseline_ms = rec.median_ms;
      sched.set_initial(i, 1, rec.median_ms);
      emit(i, 1, true, &rec);
    }
  }
  hooked.clear();

  auto step = [&](int i, int target, bool warmup, int *now, double *best) -> bool {
    const ModelTask &mt = tasks[i];
    TuneOptions o;
    o.trials = target;
    o.batch_size = opt.batch;
    o.policy = opt.policy;
    o.cost_model = opt.cost_model;
    o.space = opt.space;
    o.db_path = opt.db_path;
    o.read_dbs = opt.read_dbs;
    o.resume = true;
    o.transfer = opt.transfer;
    o.seed = opt.seed + static_cast<uint64_t>(sched.state(i).rounds) * 1000003ull + i;
    o.measure = measure_of(i);
    o.references = &references;
    // Rounds are short (a batch or two): re-measuring the top schedules in each would spend a
    // large share of them; the task scheduler moves on by single records as Ansor's does.
    o.confirm_top = 0;
    o.op_name = mt.task.name;
    bool stopped = false;
    o.progress = [&](const TuneProgress &p) {
      *now = p.trials_done;
      res.measured++;
      res.tasks[i].measured++;
      if (p.last && !p.last->ok()) res.errors++, res.tasks[i].errors++;
      if (p.last && p.last->ok() && p.last->median_ms < *best) *best = p.last->median_ms;
      emit(i, target, warmup, p.last);
      if (stop_requested() || search_over()) {
        stopped = true;
        throw Stop{};
      }
    };
    try {
      TuneResult r = tune(mt.task, o);
      *now = r.total_records;
      if (r.best && r.best->median_ms < *best) *best = r.best->median_ms;
    } catch (const Stop &) {
    } catch (const MeasureError &) {
      throw;
    } catch (const TuningLogError &) {
      throw;
    } catch (const Error &e) {
      // A task the space / tuner cannot handle: left at its current state (scheduler marks it dead).
      std::fprintf(stderr, "tune-model: task %s: %s (keeps its current / default schedule)\n", mt.task.name.c_str(),
                   e.what());
    }
    return !stopped && !stop_requested() && !search_over();
  };
  res.steps = run_task_scheduler(sched, step, [&] { return stop_requested() || search_over(); });
  res.interrupted = stop_requested();
  res.deadline = !res.interrupted && search_over();

  std::vector<double> baselines;
  for (int i = 0; i < n; i++) {
    auto &r = res.tasks[i];
    r.trials = sched.state(i).trials;
    r.best_ms = sched.state(i).best_ms;
    r.gflops = std::isfinite(r.best_ms) && r.best_ms > 0 ? r.flops / (r.best_ms * 1e6) : 0;
    baselines.push_back(r.baseline_ms);
  }
  res.baseline_ms = objective(infos, baselines);
  res.trials_used = sched.trials_used();
  res.estimated_after_ms = sched.objective();
  res.without_result_after = sched.tasks_without_result();
  if (confirming && !res.interrupted) {
    std::fprintf(stderr, "tune-model: timing each task's %d best schedules again with their weights flushed, as in a model\n",
                 opt.confirm_top);
    res.estimated_as_in_model_ms = confirm_bests_as_in_model(tasks, res, opt, opt.confirm_top, &references,
                                                             [&] { return stop_requested() || past_deadline(); });
  }
  res.elapsed_s = since(t0);
  emit(-1, 0, false, nullptr);
  return res;
}

}  // namespace autotune
}  // namespace tetune
