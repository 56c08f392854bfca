// A task's pick against its default schedule, timed inside the model.
//
// The search ranks a task's schedules timed alone (warm, or with the weights
// flushed: autotune/measure/measure.h); inside the model a kernel finds its
// inputs where its producer left them, its weights where one inference of
// the other kernels left them, and its worker threads where the last kernel
// left them, so a pick faster alone can be slower there than its default (a
// tuned ResNet-50 ran slower than an untuned one: bench/RESULTS.md, twentieth
// session). choose_in_model exports the model twice, with the records and
// with the default schedules, runs both in turns with per-kernel timing, and
// stores each compared task's two in-model times as records
// (tuning_logs/records.h: kInModelTunerVersion), which outrank every record
// timed alone: `compile` then takes whichever ran faster in the model.
#pragma once

#include <map>
#include <string>
#include <vector>

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
};

struct InModelPicks {
  std::vector<InModelTask> tasks;  // the tuned export's kernels, in kernel order
  double tuned_model_ms = 0;       // median latency of a run of the tuned export (ms)
  double default_model_ms = 0;     // and of the export with default schedules
  /**
   * What the kernels will take once `compile` reads the new records: per
   * kernel, calls x the faster of its two per-call medians where compared,
   * else its tuned per-call median (ms); the time between kernels is left out.
   */
  double kernels_ms = 0;
  int records_added = 0;
  int rounds = 0, runs_per_round = 0;
  double compile_s = 0;            // both exports (s)
};

/**
 * Exports the ONNX model at onnx_path (input_shapes for its dynamic inputs,
 * `layout` as relay::set_layout) for `threads` threads twice into scratch
 * directories of its own: with the best records of `logs`, and with the
 * default schedules (as `compile --no-measure`). Loads both in the runtime
 * a deployment uses and, for `rounds` rounds, runs each `runs` times in turn
 * (the machine's slow phases fall on both alike) on seeded inputs, timing
 * every kernel call. A task compiled from a record whose schedule differs
 * from its default, with the same kernel in both exports, gets two records
 * in db_path ("" = the user's log) tagged kInModelTunerVersion: its pick's
 * and its default's per-call times (costs_ms: the median of each run).
 * Tasks in only one export (a conv whose form, direct or Winograd, differs)
 * are not compared. Raises what import, export, load and the log raise;
 * Error for rounds or runs below 1.
 */
InModelPicks choose_in_model(const std::string &onnx_path, const std::map<std::string, Shape> &input_shapes, int threads,
                             const relay::TunedLogs &logs, const std::string &db_path, int rounds, int runs,
                             const std::string &layout = "blocked");

}  // namespace autotune
}  // namespace tetune
