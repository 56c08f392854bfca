// TuningLog: the database of measured records, a SQLite file (the default,
// sqlite_backend.h) or a PostgreSQL database that a team shares
// (postgres_backend.h), chosen by the location it is opened with: a
// postgresql:// or postgres:// URI (log_uri.h), else a file path. Both behave
// the same: one schema, one ranking, one JSONL form.
//
// Many processes (on many machines, for PostgreSQL) may open and write the
// same log at once; writers take turns (SQLite: WAL journal, 30 s busy
// timeout, BEGIN IMMEDIATE with retry; PostgreSQL: an advisory lock). Every
// write is committed before the call returns, so a killed process loses
// nothing it was told was stored. Nothing stored is ever dropped or
// rewritten by this class.
//
// Units: every cost is in milliseconds. Every failure raises
// tetune::TuningLogError (database) or tetune::ParseError (JSONL input),
// naming the database path or URI (its password as "***") / line at fault.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tuning_logs/records.h"
#include "tuning_logs/target_info.h"

namespace tetune::tuning_log {

class LogBackend;
class LogStatement;

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
   * Opens for writing the log at `path`: a PostgreSQL database when `path`
   * is a postgresql:// or postgres:// URI (the database must exist; the
   * schema is created when it holds no table, once even when several
   * processes open it at once), else a SQLite file.
   * @throws tetune::TuningLogError naming the URI (its password as "***")
   *   when the URI is malformed or the server cannot be reached, refuses
   *   the connection, or holds tables of another application or a newer
   *   schema.
   *
   * A SQLite file is created if absent, with the schema when the database
   * is empty, and gets journal_mode=WAL,
   * synchronous=NORMAL and a 30 s busy timeout. Before anything is written
   * into an existing file, it must pass PRAGMA quick_check (checked once per
   * process for a given file, and again once the file changes on disk:
   * 0.08 s on a 127 MB log, integrity_check 0.25 s; quick_check skips only
   * the index-to-table consistency checks, not the page structure).
   * @throws tetune::TuningLogError naming `path` when the file cannot be
   *   opened, is not a SQLite database, fails quick_check, or has a
   *   foreign/newer schema. Such a file is left byte-for-byte unchanged.
   */
  static TuningLog open(const std::string &path);

  /**
   * Opens an existing log for reading only: nothing is created or written,
   * and every write method raises TuningLogError. A postgresql:// URI
   * connects with default_transaction_read_only; its database must hold a
   * tuning log (errors as open()). A SQLite file is opened with
   * SQLITE_OPEN_READONLY.
   * A WAL-mode log in a directory this process cannot write (no -shm file
   * can be created) is read as immutable when no -wal file with content is
   * beside it; one with such a -wal file is refused with a message saying
   * how to make it readable. Schema checks as open().
   * @throws tetune::TuningLogError "tuning log 'PATH': no such tuning log"
   *   when `path` does not exist; naming `path` for a directory, an
   *   unreadable file, a file that is not a tuning log (an empty one
   *   included).
   */
  static TuningLog open_read_only(const std::string &path);

  /**
   * The user's log, user_log_path() (tuning_logs/log_paths.h): $TETUNE_DB,
   * else $XDG_CACHE_HOME/tetune/tetune.db, else ~/.cache/tetune/tetune.db.
   */
  static std::string default_path();

  TuningLog(TuningLog &&other) noexcept;
  TuningLog &operator=(TuningLog &&other) noexcept;
  TuningLog(const TuningLog &) = delete;
  TuningLog &operator=(const TuningLog &) = delete;
  ~TuningLog();

  /** Path this log was opened with; a URI with its password as "***". */
  const std::string &path() const { return path_; }
  /** True when opened by open_read_only(). */
  bool read_only() const { return read_only_; }

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
   * first. Ties: lowest record id. Schedules with records timed inside
   * their model (tuner_version kInModelTunerVersion) rank before those
   * timed alone, each costing the middle of those records alone: the
   * model's caches and neighbours are what `compile` will give it. Only
   * schedules timed alone after the workload's last in-model record (a
   * later tuning's, which no in-model step has met yet) rank before them,
   * so that the next in-model step (autotune::choose_in_model) times the
   * best of them against what ran fastest there.
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

  /**
   * "ok" when healthy. SQLite: the result of PRAGMA integrity_check;
   * PostgreSQL: every table of the log reads (the server checks its pages).
   */
  std::string integrity_check() const;

 private:
  TuningLog(std::unique_ptr<LogBackend> backend, bool read_only);
  int64_t insert_record_locked(const MeasureRecord &record);
  void upsert_workload_locked(const WorkloadInfo &workload);
  void upsert_target_locked(const TargetInfo &target);
  LogBackend &backend() const;
  LogBackend &writable_backend() const;  // backend(), or TuningLogError when read-only
  std::unique_ptr<LogStatement> prepare(const std::string &sql) const;

  std::unique_ptr<LogBackend> backend_;
  std::string path_;
  bool read_only_ = false;
};

}  // namespace tetune::tuning_log
