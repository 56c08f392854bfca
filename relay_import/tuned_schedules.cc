#include "relay_import/tuned_schedules.h"

#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

#include "schedule/trace.h"
#include "base/errors.h"
#include "tuning_logs/database.h"
#include "tuning_logs/log_set.h"
#include "tuning_logs/target_info.h"
#include "runtime/cuda_events.h"

namespace tetune {
namespace relay {

namespace {

// One lookup per workload key (the hook is called once per unique task; the cache serves twins of a key).
class Lookup {
 public:
  Lookup(const TunedLogs &logs, int threads)
      : logs_(tuning_log::LogSet::open({logs.db, logs.shipped})),
        target_(tuning_log::host_target_info(std::max(1, threads))),
        cuda_device_(logs.cuda_device) {}

  struct Entry {
    bool found = false;
    bool exact = false;
    std::string note, used_target, log;  // log: "user log PATH" / "shipped log PATH"
    std::string other_target;  // !exact: a one-line note on the record's target (the full one is `note`)
    std::vector<tuning_log::MeasureRecord> records;  // best first: the best record, then the next-best
    // Set by resolve(): which record's trace replays on the task's tensors.
    bool resolved = false;
    int replays = -1;          // index into records of the first whose trace replays; -1: none does
    std::string first_error;   // the best record's replay error, when it does not replay
  };

  /**
   * The records of task.workload_key, with the records' traces replayed on task.outputs
   * (once per workload key): which record, if any, serves the task.
   */
  const Entry &resolve(const tetune::Task &task) {
    std::lock_guard<std::mutex> lk(mu_);
    Entry &e = get_locked(task);
    if (e.resolved) return e;
    e.resolved = true;
    for (size_t i = 0; i < e.records.size() && e.replays < 0; i++) {
      try {
        replay(task.outputs, trace_from_json(e.records[i].schedule_json, task.outputs));
        e.replays = static_cast<int>(i);
      } catch (const Error &err) {
        if (i == 0) e.first_error = err.what();
      }
    }
    return e;
  }
  std::string describe() const { return logs_.describe(); }

 private:
  Entry &get_locked(const tetune::Task &task) {
    const bool gpu = task.target.is_gpu();
    const std::string &key = task.workload_key;
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    const tuning_log::TargetInfo &wanted = gpu ? cuda_target() : target_;
    tuning_log::LogSet::Best b = logs_.best_with_fallback(key, wanted, kReplayTries);
    Entry e;
    e.note = b.result.note;
    if (b.record()) {
      e.found = true;
      e.exact = b.result.exact_target;
      e.used_target = b.result.used_target_key;
      e.log = b.from->role + " log " + b.from->log.path();
      e.records = std::move(b.result.records);
      if (!e.exact) {
        std::optional<tuning_log::TargetInfo> used = b.from->log.target(e.used_target);
        e.other_target = "measured on another target (" + (used ? tuning_log::brief_difference(wanted, *used) : e.used_target) + ")";
      }
    }
    return cache_.emplace(key, std::move(e)).first->second;
  }

  // A CUDA task's target key: the CPU part is the compiling machine's, as
  // tune-op's runner records it; kind and device select the GPU's records.
  // Built on first use (it may load the CUDA driver to name the GPU).
  const tuning_log::TargetInfo &cuda_target() {
    if (!cuda_target_) {
      if (cuda_device_.empty()) cuda_device_ = rt::cuda_device_name();
      cuda_target_ = target_;
      cuda_target_->kind = "cuda";
      cuda_target_->device = cuda_device_.empty() ? "no CUDA device on this machine (give the GPU's name)" : cuda_device_;
    }
    return *cuda_target_;
  }

  tuning_log::LogSet logs_;
  tuning_log::TargetInfo target_;
  std::string cuda_device_;
  std::optional<tuning_log::TargetInfo> cuda_target_;
  std::mutex mu_;
  std::map<std::string, Entry> cache_;
};

using DefaultFn = std::function<ScheduleChoice(const tetune::Task &)>;

ScheduleFn make_hook(std::shared_ptr<Lookup> lk, TunedLookupStats *stats, TunedLookupOptions opt, DefaultFn fallback) {
  return [lk, stats, opt, fallback](const tetune::Task &task) -> ScheduleChoice {
    const Lookup::Entry &e = lk->resolve(task);
    // No usable record: the default schedule; `why` goes into the detail only when a record exists but does not serve.
    auto untuned = [&](const std::string &why, bool record_exists) {
      std::string line = task.name + " (" + task.workload_key + "): " + why;
      if (stats) {
        stats->untuned++;
        stats->untuned_tasks.push_back(line);
      }
      ScheduleChoice c = fallback(task);
      if (opt.print_notes)
        std::fprintf(stderr, "tuned schedules: no record, %s schedule: %s\n", source_name(c.source).c_str(), line.c_str());
      if (record_exists) c.detail += "; " + why;
      return c;
    };
    // The note names the full target key; one line per task says only what is missing.
    if (!e.found) return untuned("no successful record for this target (or a compatible one) in " + lk->describe(), false);
    if (e.replays < 0) {
      if (stats) {
        stats->replay_failed++;
        stats->notes.push_back(task.name + ": stored trace does not replay: " + e.first_error);
      }
      return untuned("no stored trace replays (" + std::to_string(e.records.size()) + " tried); the best's error: " + e.first_error,
                     true);
    }
    const tuning_log::MeasureRecord &rec = e.records[e.replays];
    try {
      Schedule s = replay(task.outputs, trace_from_json(rec.schedule_json, task.outputs));
      std::vector<std::string> notes;
      if (!e.exact) notes.push_back(e.note);
      if (e.replays > 0)
        notes.push_back("the best record's trace does not replay (" + e.first_error + "); used record " + std::to_string(rec.id) +
                        ", number " + std::to_string(e.replays + 1) + " by cost");
      if (stats) {
        stats->tuned++;
        stats->fallback += !e.exact;
        stats->replay_failed += e.replays > 0;
        stats->tuned_from[e.log]++;
        for (const auto &n : notes) stats->notes.push_back(task.name + ": " + n);
      }
      if (opt.print_notes)
        for (const auto &n : notes) std::fprintf(stderr, "tuned schedules: %s: %s\n", task.name.c_str(), n.c_str());
      // The detail keeps one line: the fallback's short form (the full note is in stats->notes).
      std::string detail = "record " + std::to_string(rec.id) + " of " + e.log;
      if (!e.exact) detail += "; " + e.other_target;
      if (e.replays > 0) detail += "; " + notes.back();
      return {std::move(s), ScheduleSource::Record, detail};
    } catch (const Error &err) {  // replayed on the first task of this workload, not on this one's tensors
      return untuned("record " + std::to_string(rec.id) + "'s trace does not replay on this task: " + err.what(), true);
    }
  };
}

// Exactly one database, db_path ("" = the user's log, which must exist then).
TunedLogs only(const std::string &db_path) {
  return TunedLogs{db_path.empty() ? tuning_log::TuningLog::default_path() : db_path, false};
}

}  // namespace

ScheduleFn tuned_schedule_hook(const std::string &db_path, int threads, TunedLookupStats *stats,
                               const TunedLookupOptions &options, const autotune::DefaultScheduleOptions &untuned) {
  auto lk = std::make_shared<Lookup>(only(db_path), threads);
  if (stats) stats->logs = lk->describe();
  return make_hook(lk, stats, options, [untuned](const tetune::Task &t) { return autotune::default_schedule(t, untuned); });
}

void use_tuned_schedules(CompileOptions &options, const std::string &db_path, TunedLookupStats *stats,
                         const TunedLookupOptions &lookup) {
  use_tuned_schedules(options, only(db_path), stats, lookup);
}

void use_tuned_schedules(CompileOptions &options, const TunedLogs &logs, TunedLookupStats *stats,
                         const TunedLookupOptions &lookup) {
  auto lk = std::make_shared<Lookup>(logs, options.threads);
  if (stats) stats->logs = lk->describe();
  CompileOptions defaults;  // the default hook's inputs only (no schedule_for: default_choice never recurses)
  defaults.plain_default_schedule = options.plain_default_schedule;
  defaults.untuned = options.untuned;
  options.schedule_for = make_hook(lk, stats, lookup, [defaults](const tetune::Task &t) { return default_choice(t, defaults); });
  // Only this machine's records: a time measured elsewhere does not compare with one measured here.
  options.record_ms = [lk](const tetune::Task &task) {
    const Lookup::Entry &e = lk->resolve(task);
    return e.found && e.exact && e.replays >= 0 ? e.records[e.replays].median_ms : std::numeric_limits<double>::quiet_NaN();
  };
}

std::string format_lookup_stats(const TunedLookupStats &s) {
  std::ostringstream os;
  os << "tuned schedules: " << s.tuned << " workloads from records (" << s.fallback << " from another target), " << s.untuned
     << " without a record (default schedule)";
  if (s.replay_failed) os << ", " << s.replay_failed << " stored traces failed to replay";
  os << "\n";
  if (!s.logs.empty()) os << "  read: " << s.logs << "\n";
  for (const auto &[log, n] : s.tuned_from) os << "  from " << log << ": " << n << " workloads\n";
  for (const auto &n : s.notes) os << "  note: " << n << "\n";
  for (const auto &u : s.untuned_tasks) os << "  no record: " << u << "\n";
  return os.str();
}

}  // namespace relay
}  // namespace tetune
