// Tuned schedules for compile_model(): look up the best record of each task in
// the TuningLog and replay its schedule trace.
//
//   relay::TunedLookupStats st;
//   relay::CompileOptions co;
//   co.threads = 2;
//   relay::use_tuned_schedules(co, "tune.db", &st);      // sets schedule_for
//   CompiledModel m = compile_model(std::move(g), co);
//   std::fprintf(stderr, "%s", relay::format_lookup_stats(st).c_str());
//   // m.stats().task_schedules: per task, ScheduleSource::Record or the default's source, and a detail
//
// Logs read (TunedLogs): by default the user's log, then the shipped log
// (tuning_logs/log_set.h), each opened read-only. Per task (workload key, host
// target with `threads`): LogSet::best_with_fallback (successful records only;
// the first log with an exact-target record, else the first with a compatible one). A record of another, compatible target is used
// and REPORTED (its note goes into the choice's detail, stats->notes and stderr). When the best
// record's trace does not replay on task.outputs (a version-1 trace written
// with another model's tensor names, see schedule/trace.h), the next-best
// records of that target are tried, up to kReplayTries, and the one used is
// noted. The hook's ScheduleChoice: source Record, detail "record ID of
// user|shipped log PATH" and the notes. No record, or none that replays: the
// default schedule (autotune::default_schedule: the cost model's pick or the
// analytical default, with its own source and detail), counted and listed as
// untuned (stats->untuned_tasks).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "autotune/default_schedule.h"
#include "relay_import/executor.h"

namespace tetune {
namespace relay {

struct TunedLookupStats {
  int tuned = 0;              // unique workloads given a stored schedule (exact target or fallback): source Record
  int fallback = 0;           // of which from another (compatible) target
  int untuned = 0;            // unique workloads without a usable record: the default schedule (cost model or analytical)
  int replay_failed = 0;      // workloads whose best record's trace did not replay (tuned if a next-best did)
  std::vector<std::string> untuned_tasks;   // "name (workload key): reason"
  std::vector<std::string> notes;           // best_with_fallback notes of fallbacks, replay errors
  std::string logs;                         // the logs read, in order ("user log PATH, shipped log PATH")
  std::map<std::string, int> tuned_from;    // "user log PATH" / "shipped log PATH" -> workloads tuned from it
};

/**
 * Which tuning logs the lookup reads, in order (tuning_logs/log_set.h; this
 * header cannot include it, see autotune/measure/record_store.h).
 */
struct TunedLogs {
  std::string db;        // replaces the user's log and must exist; "" = the user's log (read once it exists)
  bool shipped = true;   // then the shipped log (tuning_logs/shipped.db), when found
  /**
   * The GPU whose records a CUDA task uses (a CUDA target key's device, e.g.
   * "NVIDIA H100 80GB HBM3"); "" = this machine's CUDA device 0. Records of
   * another GPU or of a CPU never apply to a CUDA task.
   */
  std::string cuda_device;
};

/** Records of a workload tried, best first, until one replays. */
constexpr int kReplayTries = 8;

struct TunedLookupOptions {
  bool print_notes = true;    // print fallback / untuned notes to stderr as they happen
};

/**
 * Schedule hook for CompileOptions::schedule_for, reading only the log at
 * db_path (read-only; "" = the user's log); a task without a usable record
 * gets autotune::default_schedule(task, untuned). stats may be null; it must
 * outlive the hook. @throws TuningLogError naming a missing db_path.
 */
ScheduleFn tuned_schedule_hook(const std::string &db_path, int threads, TunedLookupStats *stats,
                               const TunedLookupOptions &options = TunedLookupOptions(),
                               const autotune::DefaultScheduleOptions &untuned = autotune::DefaultScheduleOptions());
/**
 * Sets options.schedule_for for options.threads, from db_path only. A task
 * without a usable record gets relay::default_choice(task, options) as it
 * stands now (options.untuned, options.plain_default_schedule). Also sets
 * options.record_ms: the time of the record schedule_for takes, when that
 * record was measured on this machine's exact target (else NaN).
 */
void use_tuned_schedules(CompileOptions &options, const std::string &db_path, TunedLookupStats *stats,
                         const TunedLookupOptions &lookup = TunedLookupOptions());
/** The same, reading `logs` in order (the user's log, then the shipped one, by default). */
void use_tuned_schedules(CompileOptions &options, const TunedLogs &logs, TunedLookupStats *stats,
                         const TunedLookupOptions &lookup = TunedLookupOptions());
/** Multi-line summary: counts, fallback notes, untuned tasks. */
std::string format_lookup_stats(const TunedLookupStats &stats);

}  // namespace relay
}  // namespace tetune
