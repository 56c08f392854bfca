// Tuned schedules for compile_model(): look up the best record of each task in
// the TuningLog and replay its schedule trace.
//
//   relay::TunedLookupStats st;
//   relay::CompileOptions co;
//   co.threads = 2;
//   relay::use_tuned_schedules(co, "tune.db", &st);      // sets schedule_for + is_tuned
//   CompiledModel m = compile_model(std::move(g), co);
//   std::fprintf(stderr, "%s", relay::format_lookup_stats(st).c_str());
//
// Per task (workload key, host target with `threads`): TuningLog::best_with_fallback
// (successful records only). A record of another, compatible target is used
// and REPORTED (its note goes into stats->notes and to stderr). When the best
// record's trace does not replay on task.outputs (a version-1 trace written
// with another model's tensor names, see schedule/trace.h), the next-best
// records of that target are tried, up to kReplayTries, and the one used is
// noted. No record, or none that replays: the default schedule
// (simple_cpu_schedule), counted and listed as untuned (stats->untuned_tasks).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "relay_import/executor.h"

namespace tetune {
namespace relay {

struct TunedLookupStats {
  int tuned = 0;              // unique workloads given a stored schedule (exact target or fallback)
  int fallback = 0;           // of which from another (compatible) target
  int untuned = 0;            // unique workloads left with the default schedule
  int replay_failed = 0;      // workloads whose best record's trace did not replay (tuned if a next-best did)
  std::vector<std::string> untuned_tasks;   // "name (workload key): reason"
  std::vector<std::string> notes;           // best_with_fallback notes of fallbacks, replay errors
};

/** Records of a workload tried, best first, until one replays. */
constexpr int kReplayTries = 8;

struct TunedLookupOptions {
  bool print_notes = true;    // print fallback / untuned notes to stderr as they happen
};

/** Schedule hook for CompileOptions::schedule_for. stats may be null; it must outlive the hook. */
ScheduleFn tuned_schedule_hook(const std::string &db_path, int threads, TunedLookupStats *stats,
                               const TunedLookupOptions &options = TunedLookupOptions());
/** Predicate for CompileOptions::is_tuned: true when a usable successful record exists. */
std::function<bool(const autotune::Task &)> tuned_predicate(const std::string &db_path, int threads);
/** Sets options.schedule_for and options.is_tuned (sharing one lookup cache) for options.threads. */
void use_tuned_schedules(CompileOptions &options, const std::string &db_path, TunedLookupStats *stats,
                         const TunedLookupOptions &lookup = TunedLookupOptions());
/** Multi-line summary: counts, fallback notes, untuned tasks. */
std::string format_lookup_stats(const TunedLookupStats &stats);

}  // namespace relay
}  // namespace tetune
