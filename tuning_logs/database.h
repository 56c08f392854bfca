// TuningLog: the SQLite database of measured records.
//
// Many processes may open and write the same file at once (WAL journal,
// 30 s busy timeout, BEGIN IMMEDIATE with retry). Every write is committed
// before the call returns, so a killed process loses nothing it was told
// was stored. Nothing stored is ever dropped or rewritten by this class.
//
// Units: every cost is in milliseconds. Every failure raises
// tetune::TuningLogError (database) or tetune::ParseError (JSONL input),
// naming the database path / line at fault.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "tuning_logs/records.h"
#include "tuning_logs/target_info.h"

struct sqlite3;

namespace tetune::tuning_log {

/** Result of TuningLog::best_with_fallback(). */
struct BestResult {
  /// the k best records of the used target (best() ranking), best first; empty when nothing usable exists
  std::vector<MeasureRecord> records;
  /// the best record (records.front()), or nullptr when nothing usable exists
  const MeasureRecord *record() const { return records.empty() ? nullptr : &records.front(); }
  bool exact_target = false;   ///< record was measured on the requested target
  std::string used_target_key; ///< target the record comes from ("" if none)
  std::string note;            ///< always says what was done and why
};

/** One row of TuningLog::list_workloads(). */
struct WorkloadSummary {
  std::string workload_key;
  std::string op_name;          ///< "" when the workload was never upserted
  std::string target_key;       ///< "" for a workload without any record
  int64_t num_records = 0;      ///< all records, failed ones included
  int64_t num_valid = 0;        ///< records with error_code == 0
  std::optional<double> best_median_ms;  ///< lowest valid median, ms
};

/** Which records export_jsonl() writes; empty members match everything. */
struct ExportFilter {
  std::optional<std::string> workload_key;
  std::optional<std::string> target_key;
  bool only_valid = false;  ///< only records with error_code == 0
  /// only the valid records of the `top` best-ranked schedules of each (workload, target),
  /// ranked as best() ranks them (> 0; unset = all)
  std::optional<int> top;
};

/** RAII handle on one tuning-log database (non-copyable, movable). */
class TuningLog {
 public:
  /**
   * Opens (creating if absent) the database at `path`, creating the schema
   * when the database is empty, and sets journal_mode=WAL,
   * synchronous=NORMAL and a 30 s busy timeout.
   * @throws tetune::TuningLogError naming `path` when the file cannot be
   *   opened, is not a SQLite database, or has a foreign/newer schema. Such
   *   a file is left byte-for-byte unchanged.
   */
  static TuningLog open(const std::string &path);

  /**
   * $TETUNE_DB if set and non-empty; else "<root>/tuning_logs/tetune.db"
   * where root is $BUILD_WORKSPACE_DIRECTORY (set by `bazel run`) or,
   * failing that, the current directory.
   */
  static std::string default_path();

  TuningLog(TuningLog &&other) noexcept;
  TuningLog &operator=(TuningLog &&other) noexcept;
  TuningLog(const TuningLog &) = delete;
  TuningLog &operator=(const TuningLog &) = delete;
  ~TuningLog();

  /** Path this log was opened with. */
  const std::string &path() const { return path_; }

  /** Inserts or replaces the workload row with this key (own transaction). */
  void upsert_workload(const WorkloadInfo &workload);
  /** Inserts the target under target.key() if absent (own transaction). */
  void upsert_target(const TargetInfo &target);

  /**
   * Appends one record in its own committed transaction and returns its new
   * id (record.id is ignored). Durable once this returns.
   */
  int64_t add_record(const MeasureRecord &record);

  /** All records of (workload, target), failed ones included, by id. */
  std::vector<MeasureRecord> records(const std::string &workload_key,
                                     const std::string &target_key) const;
  /** Number of records of (workload, target), failed ones included. */
  int64_t count_records(const std::string &workload_key,
                        const std::string &target_key) const;
  /** Number of records in the whole database. */
  int64_t count_all_records() const;

  /**
   * The k best-ranked measured schedules of (workload, target), one successful
   * record (error_code == 0) each, best first. Records of one schedule
   * (equal schedule_json) are grouped: a schedule measured n times costs the
   * median_ms of its record at position n/2 when sorted by median_ms (the
   * middle one; of two, the slower), and that record is returned. A schedule
   * measured once costs its own median_ms. Re-measured schedules (n > 1)
   * rank before every schedule measured once, each group by cost. Why: on a
   * noisy machine the fastest of hundreds of single measurements is biased
   * low (the winner's curse), and the machine has slow phases of tens of
   * seconds; the tuner re-measures its top schedules round-robin in one
   * window (autotune::TuneOptions::confirm_top), so their middles compare
   * like with like, while a single measurement may come from a faster
   * phase. Seen on conv C64 56x56 (1000 trials): the 24 re-measured
   * schedules, first measured at 0.564-0.578 ms, had middles of 0.605-0.675
   * ms in a slow phase, and one measured once at 0.578 ms would have ranked
   * first. Ties: lowest record id.
   */
  std::vector<MeasureRecord> best(const std::string &workload_key,
                                  const std::string &target_key,
                                  int k = 1) const;

  /**
   * Best successful record for `target`; when the exact target has none,
   * the best record of the nearest compatible stored target (by
   * compatibility_distance(); ties: lower median) with exact_target=false.
   * The note always explains the choice (never a silent fallback).
   * `records` holds the k best of the target used (k >= 1), for callers
   * that try the next-best when a record's trace does not replay.
   */
  BestResult best_with_fallback(const std::string &workload_key,
                                const TargetInfo &target, int k = 1) const;

  /** Stored workload / target by key. */
  std::optional<WorkloadInfo> workload(const std::string &key) const;
  std::optional<TargetInfo> target(const std::string &key) const;
  /** Every stored target. */
  std::vector<TargetInfo> targets() const;

  /**
   * One row per (workload, target) having records, plus one row with an
   * empty target_key for each upserted workload without records; sorted by
   * workload_key then target_key.
   */
  std::vector<WorkloadSummary> list_workloads() const;

  /**
   * Writes matching records as JSON Lines (see jsonl.h), ordered by id,
   * each carrying its workload and target when stored. Returns the count.
   * @throws tetune::TuningLogError when the stream fails.
   */
  int64_t export_jsonl(std::ostream &out, const ExportFilter &filter = {}) const;

  /**
   * Imports JSON Lines (blank lines skipped) in one transaction and returns
   * the number of records added. Idempotent: a record with the same
   * (workload_key, target_key, schedule_json, timestamp_unix_ms) as a stored
   * one (or an earlier line) is skipped. Records get new ids. Workloads and
   * targets carried by lines are upserted.
   * @throws tetune::ParseError "JSONL line N: ..." for a malformed line;
   *   then nothing from this call is stored.
   */
  int64_t import_jsonl(std::istream &in);

  /** Result of PRAGMA integrity_check: "ok" when healthy. */
  std::string integrity_check() const;

 private:
  TuningLog(sqlite3 *db, std::string path);
  void close() noexcept;
  int64_t insert_record_locked(const MeasureRecord &record);
  void upsert_workload_locked(const WorkloadInfo &workload);
  void upsert_target_locked(const TargetInfo &target);
  sqlite3 *handle() const;

  sqlite3 *db_ = nullptr;
  std::string path_;
};

}  // namespace tetune::tuning_log
