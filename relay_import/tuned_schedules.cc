#include "relay_import/tuned_schedules.h"

#include <cstdio>
#include <map>
#include <mutex>
#include <sstream>

#include "relay_import/default_schedule.h"
#include "schedule/trace.h"
#include "te/errors.h"
#include "tuning_logs/database.h"
#include "tuning_logs/target_info.h"

namespace tetune {
namespace relay {

namespace {

// One lookup per workload key, shared by the schedule hook and the is_tuned predicate.
class Lookup {
 public:
  Lookup(std::string db_path, int threads)
      : path_(db_path.empty() ? tuning_log::TuningLog::default_path() : std::move(db_path)),
        log_(tuning_log::TuningLog::open(path_)),
        target_(tuning_log::host_target_info(std::max(1, threads))) {}

  struct Entry {
    bool found = false;
    bool exact = false;
    std::string note, used_target;
    std::vector<tuning_log::MeasureRecord> records;  // best first: the best record, then the next-best
  };

  const Entry &get(const std::string &key) {
    std::lock_guard<std::mutex> lk(mu_);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    tuning_log::BestResult b = log_.best_with_fallback(key, target_, kReplayTries);
    Entry e;
    e.note = b.note;
    if (b.record()) {
      e.found = true;
      e.exact = b.exact_target;
      e.used_target = b.used_target_key;
      e.records = std::move(b.records);
    }
    return cache_.emplace(key, std::move(e)).first->second;
  }
  const std::string &path() const { return path_; }

 private:
  std::string path_;
  tuning_log::TuningLog log_;
  tuning_log::TargetInfo target_;
  std::mutex mu_;
  std::map<std::string, Entry> cache_;
};

ScheduleFn make_hook(std::shared_ptr<Lookup> lk, TunedLookupStats *stats, TunedLookupOptions opt) {
  return [lk, stats, opt](const autotune::Task &task) -> Schedule {
    const Lookup::Entry &e = lk->get(task.workload_key);
    auto untuned = [&](const std::string &why) {
      std::string line = task.name + " (" + task.workload_key + "): " + why;
      if (stats) {
        stats->untuned++;
        stats->untuned_tasks.push_back(line);
      }
      if (opt.print_notes) std::fprintf(stderr, "tuned schedules: untuned, default schedule: %s\n", line.c_str());
      return simple_cpu_schedule(task.outputs, 8, task.threads);
    };
    // The note names the full target key; one line per task says only what is missing.
    if (!e.found) return untuned("no successful record for this target (or a compatible one) in " + lk->path());
    std::string first_error;
    for (size_t i = 0; i < e.records.size(); i++) {
      const tuning_log::MeasureRecord &rec = e.records[i];
      try {
        Schedule s = replay(task.outputs, trace_from_json(rec.schedule_json, task.outputs));
        std::vector<std::string> notes;
        if (!e.exact) notes.push_back(e.note);
        if (i > 0)
          notes.push_back("the best record's trace does not replay (" + first_error + "); used record " +
                          std::to_string(rec.id) + ", number " + std::to_string(i + 1) + " by cost");
        if (stats) {
          stats->tuned++;
          stats->fallback += !e.exact;
          stats->replay_failed += i > 0;
          for (const auto &n : notes) stats->notes.push_back(task.name + ": " + n);
        }
        if (opt.print_notes)
          for (const auto &n : notes) std::fprintf(stderr, "tuned schedules: %s: %s\n", task.name.c_str(), n.c_str());
        return s;
      } catch (const Error &err) {
        if (i == 0) first_error = err.what();
      }
    }
    if (stats) {
      stats->replay_failed++;
      stats->notes.push_back(task.name + ": stored trace does not replay: " + first_error);
    }
    return untuned("no stored trace replays (" + std::to_string(e.records.size()) + " tried); the best's error: " + first_error);
  };
}

std::function<bool(const autotune::Task &)> make_pred(std::shared_ptr<Lookup> lk) {
  return [lk](const autotune::Task &task) { return lk->get(task.workload_key).found; };
}

}  // namespace

ScheduleFn tuned_schedule_hook(const std::string &db_path, int threads, TunedLookupStats *stats,
                               const TunedLookupOptions &options) {
  return make_hook(std::make_shared<Lookup>(db_path, threads), stats, options);
}

std::function<bool(const autotune::Task &)> tuned_predicate(const std::string &db_path, int threads) {
  return make_pred(std::make_shared<Lookup>(db_path, threads));
}

void use_tuned_schedules(CompileOptions &options, const std::string &db_path, TunedLookupStats *stats,
                         const TunedLookupOptions &lookup) {
  auto lk = std::make_shared<Lookup>(db_path, options.threads);
  options.schedule_for = make_hook(lk, stats, lookup);
  options.is_tuned = make_pred(lk);
}

std::string format_lookup_stats(const TunedLookupStats &s) {
  std::ostringstream os;
  os << "tuned schedules: " << s.tuned << " workloads tuned (" << s.fallback << " from another target), " << s.untuned
     << " untuned (default schedule)";
  if (s.replay_failed) os << ", " << s.replay_failed << " stored traces failed to replay";
  os << "\n";
  for (const auto &n : s.notes) os << "  note: " << n << "\n";
  for (const auto &u : s.untuned_tasks) os << "  untuned: " << u << "\n";
  return os.str();
}

}  // namespace relay
}  // namespace tetune
