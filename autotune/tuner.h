// The tuning loop: propose candidates with a search policy, measure them in
// child processes, commit every record to the TuningLog as it is measured,
// retrain the cost model, repeat.
//
//   TuneOptions o; o.trials = 256; o.db_path = "tune.db"; o.resume = true;
//   TuneResult r = tune(make_task("mm", {C}, Target{}, 2), o);
//
// Records: schedule_json = trace_to_json of the candidate's schedule, costs in
// ms, error code / message (failed candidates are stored too), GFLOP/s =
// task.flops / median, trial_index = position in the (resumed) run.
// Measurement: in child processes here, by a RemoteMeasurer (TuneOptions::remote,
// GPU targets), or by a driver's BatchMeasurer (autotune/measure/measure_hooks.h,
// e.g. MPI worker ranks); records go under the measuring machine's target.
// Resume: the records already stored for (workload, target) count towards
// `trials`; they train the cost model, are reported to the policy (whose
// population is warm-started from the best when the space can recover their
// points), and their schedules are never measured again.
// Transfer (TuneOptions::transfer, autotune/transfer.h): a task with fewer
// than batch_size records of its own measures donor schedules (its workload
// on other targets, its operator at other shapes) in its first batch, and its
// cost model trains on the donors' records from the start.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "autotune/measure/measure.h"
#include "autotune/measure/record_store.h"
#include "autotune/policy/policy.h"
#include "autotune/remote/remote_measure.h"
#include "workload/task.h"

namespace tetune {
namespace autotune {

struct TuneProgress {
  int trials_done = 0;     // records of this (workload, target) so far, resumed ones included
  int trials_total = 0;
  int measured_now = 0;    // measured by this call
  int errors = 0;          // failed records measured by this call
  double best_gflops = 0;
  double elapsed_s = 0;
  double eta_s = 0;        // estimate for the remaining trials
  const tuning_log::MeasureRecord *last = nullptr;
};

struct TuneOptions {
  int trials = 64;                    // total records wanted for (workload, target)
  int batch_size = 16;
  std::string policy = "evolutionary";   // see policy::policy_names()
  std::string cost_model = "xgb";        // see policy::cost_model_names()
  std::string space;                     // "" = "gpu" for a GPU target, else policy::default_space_name()
  std::string db_path;                   // written into; "" = the user's log (::tetune::tuning_log::user_log_path())
  /// logs read, never written (the shipped log): their records of this workload and target are read after
  /// db_path's, as stored ones (RecordStore's read_also)
  std::vector<std::string> read_dbs;
  bool resume = false;
  /**
   * Warm start from donors (autotune/transfer.h) when the logs hold fewer than
   * batch_size records of this (workload, target): up to half a batch of the
   * best schedules of this workload on other targets, then of this operator
   * (op_name) at the nearest other shapes, adapted to this shape, are
   * measured in the first batch by a policy that measures the space's seeds
   * first (evolutionary); the donors' records train the cost model, one group
   * per donor (workload, target). Donor records that do not replay are skipped
   * with a note on stderr naming them.
   */
  bool transfer = true;
  uint64_t seed = 0;
  // The search's defaults (policy::PolicyContext).
  double epsilon = policy::PolicyContext{}.epsilon;
  int population = policy::PolicyContext{}.population;
  int generations = policy::PolicyContext{}.generations;
  MeasureOptions measure;
  /** Reference outputs shared by the calls of a model tuner (may be null: computed for this call). */
  ReferenceCache *references = nullptr;
  /**
   * Confirmation: the last trials of the budget re-measure the best-ranked
   * schedules, so that the best record is not merely the luckiest of
   * hundreds of noisy measurements (the winner's curse of picking the
   * minimum). The log ranks a schedule measured n times by its middle
   * measurement, and re-measured schedules before those measured once
   * (TuningLog::best). Each round takes the confirm_top best-ranked
   * schedules measured fewer than 1 + confirm_repeats times and measures
   * them round-robin until they have that many; up to confirm_rounds rounds,
   * and at most a quarter of the budget (whole rounds of confirm_top *
   * confirm_repeats trials; 0 turns it off).
   * Measured here, 2 cores: the tuner's best single record of GEMM 1024 was
   * 7.04 ms, its re-measurement in the benchmark 7.44 ms.
   * Why re-measured schedules rank first, and why several rounds: the
   * machine has slow phases of tens of seconds that can cover every
   * confirmation trial. Each re-measured schedule's middle then comes from
   * the slow phase, while a schedule measured once may come from a fast one.
   * Ranked by cost alone, at 1000 trials of GEMM 1024 with 2 rounds, the 8
   * re-measured schedules (first measured at 5.2-5.5 ms) got middles of
   * 5.8-6.4 ms, and the pick was one measured once at 5.51 ms. With 6 rounds
   * on conv C64 56x56 all 24 re-measured schedules fell in a slow phase the
   * same way. More rounds re-measure more of the flat top of the ranking.
   */
  int confirm_top = 4;
  int confirm_repeats = 2;
  int confirm_rounds = 6;
  /**
   * Measure on another machine (autotune/remote/remote_measure.h); records go
   * under that machine's target. A GPU task is always measured this way (CUDA
   * events), with RemoteOptions{} (the runner on this machine) when unset.
   */
  std::optional<RemoteOptions> remote;
  std::string op_name;                   // workload row's op name ("" = task.name)
  std::string tuner_version = "tetune-tuner/1";
  std::function<void(const TuneProgress &)> progress;
  /** Test hook: fault to inject into the candidate of a trial index ("" = none). */
  std::function<std::string(int trial_index)> test_fault;
};

struct TuneResult {
  std::optional<tuning_log::MeasureRecord> best;   // record of the best-ranked schedule (RecordStore::best; stored ones included)
  double best_gflops = 0;                   // that record's GFLOP/s
  int measured = 0;                         // records added by this call
  int errors = 0;                           // of which failed
  int confirmed = 0;                        // of which re-measured top schedules (confirm_top)
  int best_measurements = 0;                // successful records of the best schedule (1: never re-measured)
  int total_records = 0;                    // records of (workload, target) after the call
  std::vector<double> curve;                // best single-record GFLOP/s after each record (resumed ones first)
  double elapsed_s = 0;
  double search_s = 0;                      // policy + feature lowering (no JIT) + retraining
  double measure_s = 0;                     // time spent measuring
  std::string target_key;
  /** The search stopped before `trials`: three batches in a row found no unmeasured candidate (a small space). */
  bool space_exhausted = false;
  int transferred = 0;                      // donor schedules seeded (TuneOptions::transfer)
  int transferred_measured = 0;             // of which measured by this call (the others: measured before, or not
                                            // picked by a policy that ignores seeds)
  std::string transfer_summary;             // Transfer::summary(): counts and donors; "" when no donor was found
  std::vector<std::string> transfer_skipped;  // donor records skipped, with why (Transfer::skipped)
};

/** The search space tune() uses: options.space, else "gpu" for a GPU target, else policy::default_space_name(). */
std::string space_name(const Task &task, const TuneOptions &options);

/** Tunes one task. Raises Error for bad options, TuningLogError / MeasureError for infrastructure failures. */
TuneResult tune(const Task &task, const TuneOptions &options);

}  // namespace autotune
}  // namespace tetune
