// RecordStore: the tuner's view of the TuningLog (tuning_logs/database.h),
// bound to one (workload, target). Records are tuning_log::MeasureRecord.
#pragma once

#include "tuning_logs/records.h"
#include "tuning_logs/target_info.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tetune {
namespace tuning_log {
class TuningLog;
}
namespace autotune {

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
  /**
   * Commits one record into db_path (durable on return); returns its id. The
   * record's workload and target keys are set to this store's; its timestamp
   * is filled in when 0.
   */
  int64_t add(tuning_log::MeasureRecord r);
  /** Records of db_path by id, then those of each read_also log. */
  std::vector<tuning_log::MeasureRecord> records() const;
  /**
   * The k best-ranked schedules, one record each (tuning_log::TuningLog::best:
   * a re-measured schedule costs its middle measurement, and re-measured
   * schedules rank before those measured once), best first: db_path's, then
   * (up to k in all) those of the read_also logs, each log ranked on its own.
   */
  std::vector<tuning_log::MeasureRecord> best(int k = 1) const;
  /** Records in db_path and the read_also logs together. */
  int64_t count() const;
  std::string integrity_check() const;
  const std::string &target_key() const { return target_key_; }
  const std::string &path() const { return path_; }
  /** The target records are stored under. */
  const tuning_log::TargetInfo &target() const { return target_; }
  /** The workload row this store upserted (key, op name, description). */
  const tuning_log::WorkloadInfo &workload() const { return workload_; }
  /**
   * The logs records() reads, in its order: db_path's, then each read_also
   * log. Owned by this store. For readers of other (workload, target) pairs,
   * e.g. the donors of autotune/transfer.h.
   */
  std::vector<const tuning_log::TuningLog *> logs() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string workload_key_, target_key_, path_;
  tuning_log::TargetInfo target_;
  tuning_log::WorkloadInfo workload_;
};

}  // namespace autotune
}  // namespace tetune
