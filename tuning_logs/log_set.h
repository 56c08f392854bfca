// LogSet: the tuning logs a command reads, in order, each opened read-only.
//
// By default a command reads the user's own log first, then the shipped log
// (tuning_logs/log_paths.h); records are written only into the user's log.
// `--db PATH` replaces the user's log; the shipped log is still read unless
// the command is told not to (--no-shipped-log).
//
//   LogSet logs = LogSet::open({});            // user log (if it exists yet), shipped log
//   LogSet::Best b = logs.best_with_fallback(workload_key, host_target_info(2));
//   if (b.record()) use(*b.record(), b.from->role, b.from->log.path());
#pragma once

#include <string>
#include <vector>

#include "tuning_logs/database.h"

namespace tetune::tuning_log {

/** Which logs LogSet::open reads. */
struct LogSetOptions {
  /// replaces the user's log; it must exist ("no such tuning log"). "" = user_log_path(),
  /// skipped (with a note) while it is a file that does not exist: nothing has been tuned yet
  /// (a PostgreSQL URI is always opened).
  std::string db;
  bool shipped = true;  ///< also read shipped_log_path() when one is found
};

/** An ordered list of read-only logs. Non-copyable, movable. */
class LogSet {
 public:
  /** One log of the set; role is "user" (the user's log or --db) or "shipped". */
  struct Entry {
    std::string role;
    TuningLog log;
  };

  /** A best record and the log it comes from. */
  struct Best {
    BestResult result;
    const Entry *from = nullptr;  ///< nullptr when no log has a usable record
    const MeasureRecord *record() const { return result.record(); }
  };

  /**
   * Opens the logs (TuningLog::open_read_only), the user's first. A shipped
   * log that is the same file as the user's is read once, as the user's.
   * @throws tetune::TuningLogError naming the file for a missing --db, a
   *   shipped log named by $TETUNE_SHIPPED_DB that is missing, or any file
   *   that is not a readable tuning log.
   */
  static LogSet open(const LogSetOptions &options);

  /** The open logs, in reading order. */
  const std::vector<Entry> &logs() const { return logs_; }
  /** One line per log not read (the user's log not created yet, no shipped log found). */
  const std::vector<std::string> &notes() const { return notes_; }

  /**
   * The best record for (workload, target) over the logs: the first log (in
   * order) with an exact-target record wins; otherwise the first log with a
   * record of a compatible target (TuningLog::best_with_fallback). The note
   * names the log used. `result.records` holds the k best of that log.
   */
  Best best_with_fallback(const std::string &workload_key, const TargetInfo &target, int k = 1) const;

  /** "user log PATH, shipped log PATH" (and the notes), for messages. */
  std::string describe() const;

 private:
  std::vector<Entry> logs_;
  std::vector<std::string> notes_;
};

}  // namespace tetune::tuning_log
