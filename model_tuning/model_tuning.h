// Tuning a whole model: extract its tasks (fused kernel groups, deduplicated
// by workload key, weight = occurrences; and the direct form of its Winograd
// convs, so that compile can take the faster form), then spend a trial / time budget over
// them with the gradient-based TaskScheduler (task_scheduler.h). Every step
// runs tune() with resume on one task, so all records accumulate in the
// TuningLog and a rerun continues where the last one stopped.
//
//   auto tasks = extract_model_tasks("m.onnx", parse_input_shapes("x=1,3,48,192"), 2);
//   ModelTuneOptions o; o.total_trials = 200; o.db_path = "m.db";
//   ModelTuneResult r = tune_model(tasks, o);
//
// Budget: total_trials counts every record of the model's tasks on the target
// they are measured for, stored ones included: this host's, or with a driver's
// measure hooks (autotune/measure/measure_hooks.h) each task's measurer's.
// time_budget_s stops at the deadline (the measurement in flight is finished
// and committed first). Interrupt: set *stop (e.g. from a SIGINT handler, see
// install_sigint_stop()); the current measurement finishes, its record is
// committed, tune_model returns with interrupted = true.
//
// Baseline: a task without any record first gets its analytical default
// (autotune::analytical_schedule, what `compile` uses for a task without a
// record and no cost model) measured and stored as its first record
// (tuner_version "tetune-default-schedule", counts as a trial), so the tuned
// best is never worse than the default and the "before" latency is known. It
// is measured where the task's other records are (a hooked measurer's
// machine, under its target).
//
// Warm start: tune() with resume loads the task's own records (cost-model
// training data, never re-measured); a task with few records of its own is
// warm-started from donors, its workload on other targets and its operator at
// other shapes (TuneOptions::transfer, autotune/transfer.h).
//
// Small tasks: a task whose flops are below small_task_flops (elementwise /
// copies) gets at most small_task_trials records (0 = skipped, keeps the
// default schedule); its latency is still part of the objective, and once it
// is small_task_heavy_share of the estimate or more the cap no longer holds
// (SchedulerOptions::heavy_share: a layout transform of a large tensor).
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/cache_sizes.h"
#include "autotune/measure/measure.h"
#include "autotune/measure/record_store.h"
#include "workload/task.h"
#include "autotune/task_scheduler.h"
#include "te/tensor.h"

namespace tetune {
namespace relay {
class CompiledModel;
}
namespace autotune {

struct ModelTask {
  Task task;                        // the first group's task; weight = occurrences
  std::vector<std::string> groups;  // names of the groups sharing the workload (of an alternative: its convs' outputs)
  std::string similarity_key;       // op sequence of the group ("Conv_HardSigmoid_Mul")
  /**
   * Non-empty: an alternative, the direct form of convs the model runs by
   * Winograd, whose input, GEMM and output kernels are the tasks at these
   * indices. `compile` takes the faster form by the records
   * (relay_import/conv_forms.h), so both are tuned (SchedTaskInfo::rivals).
   */
  std::vector<int> rivals;
};

/**
 * Kernel groups of a compiled (or groups-only) model, deduplicated by workload
 * key, in first-use order; then the alternatives (ModelTask::rivals), one per
 * direct-conv workload of the model's CompileStats::conv_forms (named
 * "direct:" and the direct form's group), for each conv the model runs by
 * Winograd with three kernels of its own.
 */
std::vector<ModelTask> extract_model_tasks(const relay::CompiledModel &m);
/**
 * Imports an ONNX model and extracts its tasks (compile_groups_only with
 * list_conv_forms; tasks carry `threads`); layout as relay::set_layout (the
 * tasks `compile` builds with the same choice, and with "blocked" the direct
 * form of its Winograd convs).
 */
std::vector<ModelTask> extract_model_tasks(const std::string &onnx_path, const std::map<std::string, Shape> &input_shapes,
                                           int threads, int *kernel_groups = nullptr, const std::string &layout = "blocked");

struct ModelTuneProgress {
  int task = -1;                // index of the task being tuned
  int task_trials = 0, task_target = 0;
  double task_best_ms = 0;      // inf when none
  bool warmup = false;
  double estimated_ms = 0;      // sum weight * best over tasks with a result
  int tasks_without_result = 0;
  int trials_used = 0, trials_budget = 0;  // budget 0 = none
  int measured = 0, errors = 0;            // by this run
  double elapsed_s = 0;
  double time_left_s = -1;                 // -1 = no time budget
  const tuning_log::MeasureRecord *last = nullptr;      // record just committed (nullptr between steps)
};

struct ModelTuneOptions {
  int total_trials = 0;          // budget over all tasks (stored records count); 0 = none
  double time_budget_s = 0;      // 0 = none (at least one of the two is required)
  int batch = 16;                // trials per scheduler step
  int warmup_trials = -1;        // warm-up records per task; -1: 1 with measure_baseline (the baseline is
                                 // the warm-up), else batch
  std::string policy = "evolutionary";
  std::string cost_model = "xgb";
  std::string space;             // "" = default ("ansor")
  std::string db_path;           // written into; "" = the user's log (tuning_log::user_log_path())
  std::vector<std::string> read_dbs;  // read, never written (the shipped log); see TuneOptions::read_dbs
  uint64_t seed = 0;
  MeasureOptions measure;
  SchedulerOptions scheduler;    // batch / total_trials / seed are overwritten from the fields above
  double small_task_flops = 1e5; // tasks below: at most small_task_trials records
  int small_task_trials = 2;
  double small_task_heavy_share = 0.01;  // a small task at this share of the estimate or more is tuned as any other
  bool measure_baseline = true;  // default schedule as first record of a task without records
  bool transfer = true;          // TuneOptions::transfer for every task
  /**
   * Each task timed in cache_state_in_model's state (measure.cache ignored);
   * false: every task in measure.cache.
   */
  bool cache_by_weights = true;
  int confirm_top = 3;           // unless a task is timed kCold: confirm_bests_as_in_model(.., confirm_top) at the end,
                                 // past total_trials (a later run counts its records as stored ones) but inside
                                 // time_budget_s: the search stops early for it (up to 15% of the budget)
                                 // and it stops at the deadline; 0 = off
  int confirm_rounds = 2;        // confirm_bests_as_in_model: interleaved rounds over the top schedules, one record
                                 // each with every round's runs (after a single cold round, 2 of 36 ResNet-50 picks were slower)
  std::function<void(const ModelTuneProgress &)> progress;
  const std::atomic<bool> *stop = nullptr;
};

struct ModelTaskResult {
  std::string name, workload_key;
  double weight = 1, flops = 0;
  int trials = 0;            // records on the task's target after the run
  int measured = 0, errors = 0;
  double best_ms = 0;        // inf when no successful record
  double gflops = 0;
  double baseline_ms = 0;    // default schedule (inf when unknown)
  bool small = false;
  bool alternative = false;  // ModelTask::rivals is non-empty: counted in the estimates only where it is the faster form
};

struct ModelTuneResult {
  std::vector<ModelTaskResult> tasks;
  int measured = 0, errors = 0, trials_used = 0, steps = 0;
  double elapsed_s = 0;
  double estimated_before_ms = 0;   // sum w*best at start (tasks with a result then; autotune::objective)
  int without_result_before = 0;
  double estimated_after_ms = 0;    // sum w*best, ranked warm as the tasks were tuned
  int without_result_after = 0;
  double estimated_as_in_model_ms = -1;  // confirm_bests_as_in_model's estimate; -1 when it did not run
  int confirmable_tasks = 0;        // confirm_bests_as_in_model: CPU tasks with constants (weights) and a record
  int picks_timed_as_in_model = 0;  // of them, those whose pick has been timed with its weights flushed (now or by an earlier run)
  double baseline_ms = 0;           // sum w*default-schedule latency (tasks whose baseline is stored; autotune::objective)
  bool interrupted = false, deadline = false;
};

ModelTuneResult tune_model(const std::vector<ModelTask> &tasks, const ModelTuneOptions &options);

/** Bytes of a task's constant inputs (Task::constant_inputs: its weights). */
double constant_bytes(const Task &task);

/** Whether `model_weight_bytes` exceed the L3 that sysfs reports (false when it reports none). */
bool model_weights_above_reported_l3(double model_weight_bytes, const CacheSizes &caches);

/**
 * Whether a model's weights (model_weight_bytes) come back from the caches on
 * the next inference: not where they exceed the L3 sysfs reports (when known),
 * else where a buffer their size re-reads at least kCachedRereadSpeedup times
 * faster than from memory (base/reread_speedup.h). Measured, because a VM
 * reports its host's L3: a Xeon guest's 480 MiB held ResNet-50's 126.5 MiB no
 * better than memory (bench/RESULTS.md, 2026-12-06 thirty-sixth session).
 */
bool model_weights_stay_cached(double model_weight_bytes, const CacheSizes &caches);

/**
 * How a model's task is timed when ModelTuneOptions::cache_by_weights:
 * CacheState::kModel (its weights flushed before each run) when the model's
 * weights do not stay cached (model_weights_stay_cached) and the task's own
 * exceed one core's L2 (`l2_bytes`): each inference then brings them from
 * memory, where back-to-back repeats find them in the L3, and a schedule that
 * reads its weight panels in one burst ranks first warm and runs slower in
 * the model. Else kWarm (also when the L2 is unknown, 0). On Zen 5, BERT-base
 * tuned so ran 4.2% faster than tuned warm (bench/RESULTS.md, 2026-11-28
 * seventh session).
 */
CacheState cache_state_in_model(const Task &task, bool weights_stay_cached, int64_t l2_bytes);

/**
 * The key by which the task scheduler counts `t` similar to other tasks
 * (SchedTaskInfo::similarity_key, Ansor's N(i): its forward estimate takes the
 * best throughput among them, Zheng et al., OSDI 2020, section 6): the op
 * sequence of its group and the cache state it is timed in, since a task
 * timed with its weights flushed may never reach a warm one's throughput and
 * would keep that estimate, and the scheduler's steps, for good. "" (similar
 * to none) where the op sequence is empty.
 */
std::string similarity_key(const ModelTask &t, CacheState timed);

/** The bytes of the model's weights: each task's constant_bytes times its weight, alternatives (rivals) not counted. */
double model_weight_bytes(const std::vector<ModelTask> &tasks);

/** The state each task is timed in under `options` (cache_state_in_model with this host's caches, or measure.cache). */
std::vector<CacheState> timing_states(const std::vector<ModelTask> &tasks, const ModelTuneOptions &options);

/**
 * Picks each task's schedule as inside a model (tune_model's last step, see
 * ModelTuneOptions::confirm_top): re-measures its `top` best-ranked
 * schedules measured once, and its default schedule (analytical_schedule, what
 * `compile` takes without a record; skipped once it has a record besides its
 * warm baseline), once more under CacheState::kModel (the task's constants
 * evicted before each run, as a model's weights arrive, last read one
 * inference ago; kL3 instead came no closer to the model, bench/RESULTS.md
 * 2026-12-02), in options.confirm_rounds interleaved rounds (A B C A B C),
 * and stores one record per schedule whose median is over all its rounds' runs. Warm ranking finds the candidates;
 * a schedule whose weights stream in one burst can be the fastest warm and 3x
 * slower cold (bench/RESULTS.md, 2026-11-27 late). A schedule measured twice
 * costs the slower of its two medians and ranks before those measured once
 * (tuning_log::TuningLog::best), so `compile` then takes the fastest of the
 * `top` and the default as the model runs it (a default with no warm baseline,
 * measured once, ranks after them). Tasks without constants, GPU tasks, and records
 * that fail to replay or measure keep their records as they are.
 * Updates result.tasks[i].best_ms to the new best and returns the estimate:
 * sum over tasks of weight x best (ms), each alternative counted where it is
 * the faster form (autotune::objective). The records are the ones tune_model
 * counted (options.db_path and read_dbs, this host's target with the task's
 * threads); the new ones go into options.db_path. Returns -1, measuring
 * nothing, when a driver's measure hooks measure elsewhere (tetune-mpi).
 * `references` (may be null): the tasks' reference outputs, reused if tuning computed them.
 * Tasks go heaviest first (weight x best); once `stop` (may be empty) returns
 * true, the rest are not measured, but their picks are still read from the
 * log (an earlier run's re-measurements included), so the estimate sums what
 * `compile` takes. Counts result.confirmable_tasks and
 * result.picks_timed_as_in_model (a pick with two or more records).
 */
double confirm_bests_as_in_model(const std::vector<ModelTask> &tasks, ModelTuneResult &result,
                                 const ModelTuneOptions &options, int top = 3, ReferenceCache *references = nullptr,
                                 const std::function<bool()> &stop = {});

/** Installs a SIGINT handler that sets the returned flag (a second SIGINT exits at once with status 130). */
const std::atomic<bool> *install_sigint_stop();

}  // namespace autotune
}  // namespace tetune
