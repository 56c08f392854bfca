// JSON Lines form of tuning-log entries (export / import / exchange).
//
// One line = one JSON object:
//   {"format":"tetune.record.v1",
//    "workload":{"key":..,"op_name":..,"description_json":".."},   (optional)
//    "target":{"kind":..,"cpu_model":..,"features":..,"threads":..,
//              "library_versions":..,"device":..},                 (optional)
//    "record":{"id":..,"workload_key":..,"target_key":..,"schedule_json":"..",
//              "costs_ms":[..],"median_ms":..,"error_code":..,
//              "error_name":"..","error_msg":..,"gflops":..,
//              "timestamp_unix_ms":..,"tuner_version":..,"trial_index":..}}
// schedule_json and description_json are carried as strings, byte-exact.
// Non-finite costs are written as null and read back as +infinity.
#pragma once

#include <optional>
#include <string>

#include "tuning_logs/records.h"
#include "tuning_logs/target_info.h"

namespace tetune::tuning_log {

/** Value of the "format" member written by to_jsonl_line(). */
inline constexpr const char *kJsonlFormat = "tetune.record.v1";

/** One parsed line. */
struct JsonlEntry {
  std::optional<WorkloadInfo> workload;
  std::optional<TargetInfo> target;
  MeasureRecord record;
};

/** Serialises an entry as one line of JSON (no trailing newline). */
std::string to_jsonl_line(const JsonlEntry &entry);

/**
 * Parses one line produced by to_jsonl_line().
 * Required record members: workload_key, target_key, schedule_json,
 * error_code; others default. When "workload"/"target" are present their
 * keys must match the record's workload_key / target_key.
 * @throws tetune::ParseError with "line <line_number>: <reason>".
 */
JsonlEntry parse_jsonl_line(const std::string &line, size_t line_number);

}  // namespace tetune::tuning_log
