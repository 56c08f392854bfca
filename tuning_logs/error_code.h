// Error codes of a measurement, as stored in the `records.error_code` column.
#pragma once

#include <string>

namespace tetune::tuning_log {

/**
 * Why a measured candidate failed. The numeric values are stored in the
 * database and in JSONL exports: never renumber them, only append.
 */
enum class ErrorCode : int {
  kNoError = 0,         ///< measured successfully; costs_ms are valid
  kCompileError = 1,    ///< lowering / Halide compilation failed
  kRuntimeError = 2,    ///< the compiled kernel raised at run time
  kTimeout = 3,         ///< compilation or run exceeded its time limit
  kWrongAnswer = 4,     ///< output differed from the reference
  kCrash = 5,           ///< the measuring process died (signal)
  kInvalidSchedule = 6, ///< the schedule was rejected before compiling
  kUnknown = 7,         ///< any other failure
};

/** Stable lower-case name, e.g. "no_error", "compile_error", "timeout". */
std::string to_string(ErrorCode code);

/**
 * Inverse of to_string(). Also accepts the decimal value ("3").
 * @throws tetune::ParseError naming the text when it is no known code.
 */
ErrorCode error_code_from_string(const std::string &text);

/**
 * Converts a stored integer to an ErrorCode.
 * @throws tetune::ParseError when the value is outside [0, 7].
 */
ErrorCode error_code_from_int(int value);

}  // namespace tetune::tuning_log
