// RecordStore: the tuner's view of the TuningLog (tuning_logs/database.h).
//
// tuning_logs' namespace tetune::tuning_log cannot be seen in one translation unit
// together with te/expr.h's function tetune::tuning_log(Expr), so this header uses
// only plain types; record_store.cc is the one place that includes both
// sides' vocabulary (it includes no te header). ErrorCode mirrors
// tetune::tuning_log::ErrorCode value for value (checked by static_assert).
#pragma once

#include "tuning_logs/target_info.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tetune {
namespace autotune {

enum class ErrorCode : int {
  kNoError = 0,
  kCompileError = 1,
  kRuntimeError = 2,
  kTimeout = 3,
  kWrongAnswer = 4,
  kCrash = 5,
  kInvalidSchedule = 6,
  kUnknown = 7,
};
/** "no_error", "timeout", ... (tetune::tuning_log::to_string). */
std::string error_name(ErrorCode c);

/** Median (mean of the two middle values); +inf when empty. */
double median_of(std::vector<double> v);

/** One record (fields as tetune::tuning_log::MeasureRecord; costs in ms). */
struct StoredRecord {
  int64_t id = 0;
  std::string schedule_json;
  std::vector<double> costs_ms;
  double median_ms = 0;
  int error_code = 0;
  std::string error_msg;
  double gflops = 0;
  int64_t timestamp_unix_ms = 0;
  std::string tuner_version;
  int trial_index = 0;
  bool ok() const { return error_code == 0; }
};

/**
 * A TuningLog bound to one (workload, target). Raises TuningLogError.
 * Records are written into db_path only; the logs of `read_also` (the shipped
 * log, tuning_logs/log_paths.h) are opened read-only and their records of the
 * same (workload, target) are read after db_path's, as stored ones.
 */
class RecordStore {
 public:
  /**
   * Opens db_path for writing (the user's log when empty: its directory is
   * created), upserts the workload and the host target with `threads`, and
   * opens each existing file of read_also read-only (db_path itself skipped).
   */
  RecordStore(const std::string &db_path, const std::string &workload_key, const std::string &op_name,
              const std::string &description_json, int threads, const std::vector<std::string> &read_also = {});
  /** Same, for records measured on another machine (autotune/remote): upserts `target`. */
  RecordStore(const std::string &db_path, const std::string &workload_key, const std::string &op_name,
              const std::string &description_json, const tuning_log::TargetInfo &target,
              const std::vector<std::string> &read_also = {});
  ~RecordStore();
  /** Commits one record into db_path (durable on return); returns its id. Timestamp filled in when 0. */
  int64_t add(StoredRecord r);
  /** Records of db_path by id, then those of each read_also log. */
  std::vector<StoredRecord> records() const;
  /**
   * The k best-ranked schedules, one record each (tuning_log::TuningLog::best:
   * a re-measured schedule costs its middle measurement, and re-measured
   * schedules rank before those measured once), best first: db_path's, then
   * (up to k in all) those of the read_also logs, each log ranked on its own.
   */
  std::vector<StoredRecord> best(int k = 1) const;
  /** Records in db_path and the read_also logs together. */
  int64_t count() const;
  std::string integrity_check() const;
  const std::string &target_key() const { return target_key_; }
  const std::string &path() const { return path_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string workload_key_, target_key_, path_;
};

}  // namespace autotune
}  // namespace tetune
