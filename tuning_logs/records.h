// Plain data stored in the tuning log: workloads and measured records.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tuning_logs/error_code.h"

namespace tetune::tuning_log {

/** A tuned computation (an operator with fixed shapes and dtypes). */
struct WorkloadInfo {
  std::string key;               ///< stable hash string, computed by the caller
  std::string op_name;           ///< e.g. "conv2d_nchw"
  std::string description_json;  ///< free-form JSON text, stored verbatim

  bool operator==(const WorkloadInfo &o) const {
    return key == o.key && op_name == o.op_name &&
           description_json == o.description_json;
  }
};

/**
 * One measurement of one schedule of one workload on one target.
 *
 * Units: all costs are milliseconds. For failed records (error_code != 0)
 * costs_ms is usually empty and median_ms is +infinity. Non-finite costs are
 * stored as SQL NULL / JSON null and read back as +infinity.
 */
struct MeasureRecord {
  int64_t id = 0;               ///< assigned by TuningLog::add_record (row id)
  std::string workload_key;     ///< WorkloadInfo::key
  std::string target_key;       ///< TargetInfo::key()
  std::string schedule_json;    ///< serialised schedule trace, stored verbatim
  std::vector<double> costs_ms; ///< every repetition, milliseconds
  double median_ms = 0.0;       ///< median of costs_ms, milliseconds
  int error_code = 0;           ///< an ErrorCode value; 0 = success
  std::string error_msg;        ///< human-readable failure reason ("" if ok)
  double gflops = 0.0;          ///< achieved GFLOP/s (0 when unknown/failed)
  int64_t timestamp_unix_ms = 0;///< when measured, ms since the Unix epoch
  std::string tuner_version;    ///< version of the tuner that produced it
  int trial_index = 0;          ///< index of the trial within its tuning run

  /** True when error_code == kNoError. */
  bool ok() const { return error_code == static_cast<int>(ErrorCode::kNoError); }
};

/**
 * tuner_version of a record timed inside its compiled model (the kernel's
 * per-call time in a model run; autotune::choose_in_model): such records
 * outrank the records timed alone before them in TuningLog::best.
 */
constexpr const char *kInModelTunerVersion = "tetune-in-model/1";

/** Field-by-field equality, optionally ignoring the id; +inf == +inf. */
bool same_record(const MeasureRecord &a, const MeasureRecord &b,
                 bool compare_id = true);

/** Median of the values (mean of the two middle ones); +inf when empty. */
double median_of(std::vector<double> values);

/** Milliseconds since the Unix epoch, now. */
int64_t now_unix_ms();

}  // namespace tetune::tuning_log
