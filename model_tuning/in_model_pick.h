// A task's pick against its default schedule, timed inside the model.
//
// The search ranks a task's schedules timed alone (warm, or with the weights
// flushed: autotune/measure/measure.h); inside the model a kernel finds its
// inputs where its producer left them, its weights where one inference of
// the other kernels left them, and its worker threads where the last kernel
// left them, so a pick faster alone can be slower there than its default (a
// tuned ResNet-50 ran slower than an untuned one: bench/RESULTS.md, twentieth
// session). choose_in_model exports the model with the records, with the
// default schedules, and with every Winograd-eligible conv in its other form
// (direct or Winograd, relay_import/conv_forms.h), runs them in turns with
// per-kernel timing, and stores the in-model times as records
// (tuning_logs/records.h: kInModelTunerVersion), which outrank every record
// timed alone: `compile` then takes whichever schedule, and whichever conv
// form, ran faster in the model. Then the model as `compile` now builds it
// runs in turns with those exports, so that the estimate summed from their
// kernels and the latency it predicts are timed in the same phases of the
// machine (a VM's slow phase moved a tuned ResNet-50 from 39.5 to 43.9 ms
// between two runs: bench/RESULTS.md, twenty-fourth session).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model_tuning/model_latency.h"
#include "relay_import/tuned_schedules.h"
#include "te/tensor.h"

namespace tetune {
namespace autotune {

/** One task of the model as the two exports ran it. */
struct InModelTask {
  std::string name;          // its first kernel group
  std::string workload_key;
  int calls = 0;             // kernel calls per model run
  double pick_ms = 0;        // median per-call wall time (ms) with the records' schedule
  double default_ms = 0;     // the same with the default schedule (0: not compared)
  bool compared = false;     // a record's schedule, other than the default, against the default in both exports
  bool default_faster = false;
  /** Per-call median (ms) in the second rounds of the schedule chosen by the first (the default's where default_faster). */
  double final_ms = 0;
  /** Its per-call time (ms) in each run of the second rounds, in run order (final_ms is their median). */
  std::vector<double> final_run_ms;
};

struct InModelPicks {
  std::vector<InModelTask> tasks;  // the tuned export's kernels, in kernel order
  /** The kernels of convs in the form their records do not favour (not in `tasks`), timed in a third export. */
  std::vector<InModelTask> other_form_tasks;
  int convs_compared = 0;  // Winograd-eligible convs with both forms timed in the model
  int convs_switched = 0;  // of those, the ones whose faster form there is not the one their records chose
  double tuned_model_ms = 0;       // median latency of a run of the tuned export (ms)
  double default_model_ms = 0;     // and of the export with default schedules
  /**
   * What the kernels take per run once `compile` reads the new records, in
   * each run of the second rounds (ms): per kernel, calls x final_run_ms[j],
   * with each switched conv's kernels replaced by its other form's. Run j
   * sums the j-th runs of the exports above, so each export's kernels keep
   * the slow moments they shared.
   */
  std::vector<double> kernels_run_ms;
  /**
   * The estimate (ms): the median of kernels_run_ms, the statistic the
   * model's latency is reported by. A sum of per-kernel medians is lower:
   * each run has some slow kernel calls, and every per-kernel median drops
   * them (MobileNetV3-Large's 81 calls: 4.5-7.9% low, bench/RESULTS.md,
   * thirty-first session). The time between kernels (about 0.1 us a call)
   * is left out.
   */
  double kernels_ms = 0;
  /** The model as `compile` builds it with the new records, timed in the second rounds (final_runs per round). */
  ModelLatency final_model;
  int records_added = 0;
  int rounds = 0, runs_per_round = 0;
  double compile_s = 0;            // all exports (s)
};

/**
 * Exports the ONNX model at onnx_path (input_shapes for its dynamic inputs,
 * `layout` as relay::set_layout) for `threads` threads into scratch
 * directories of its own: with the best records of `logs`, with the default
 * schedules (as `compile --no-measure`), and, where the model has
 * Winograd-eligible convs, with the records but each such conv in its other
 * form (CompileOptions::other_conv_forms). Loads them in the runtime a
 * deployment uses and, for `rounds` rounds, runs each `runs` times in turn
 * (the machine's slow phases fall on all alike) on seeded inputs, timing
 * every kernel call. Writes records tagged kInModelTunerVersion to db_path
 * ("" = the user's log), their costs_ms the per-call time of each run:
 * - for a task compiled from a record whose schedule differs from its
 *   default, with the same kernel in the default export: both schedules';
 * - for any other kernel of either form of an eligible conv: its schedule's,
 *   so that `compile` chooses each conv's form by its kernels' in-model times.
 * Then exports the model again with `logs` (now holding those records), as
 * `compile` would, and for `rounds` more rounds runs it `final_runs` times
 * in turn with the others' `runs`: the estimate (kernels_ms) and the
 * latency it predicts (final_model) come from these second rounds.
 * Raises what import, export, load and the log raise; Error for rounds,
 * runs or final_runs below 1.
 */
InModelPicks choose_in_model(const std::string &onnx_path, const std::map<std::string, Shape> &input_shapes, int threads,
                             const relay::TunedLogs &logs, const std::string &db_path, int rounds, int runs,
                             int final_runs, const std::string &layout = "blocked");

}  // namespace autotune
}  // namespace tetune
