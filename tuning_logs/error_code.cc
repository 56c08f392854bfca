#include "tuning_logs/error_code.h"

#include <array>
#include <utility>

#include "base/errors.h"

namespace tetune::tuning_log {
namespace {

constexpr std::array<std::pair<ErrorCode, const char *>, 8> kNames = {{
    {ErrorCode::kNoError, "no_error"},
    {ErrorCode::kCompileError, "compile_error"},
    {ErrorCode::kRuntimeError, "runtime_error"},
    {ErrorCode::kTimeout, "timeout"},
    {ErrorCode::kWrongAnswer, "wrong_answer"},
    {ErrorCode::kCrash, "crash"},
    {ErrorCode::kInvalidSchedule, "invalid_schedule"},
    {ErrorCode::kUnknown, "unknown"},
}};

}  // namespace

std::string to_string(ErrorCode code) {
  for (const auto &[c, name] : kNames) {
    if (c == code) return name;
  }
  return "unknown(" + std::to_string(static_cast<int>(code)) + ")";
}

ErrorCode error_code_from_int(int value) {
  if (value < 0 || value >= static_cast<int>(kNames.size())) {
    throw ParseError("error code " + std::to_string(value) +
                     " is out of range [0, 7]");
  }
  return static_cast<ErrorCode>(value);
}

ErrorCode error_code_from_string(const std::string &text) {
  for (const auto &[c, name] : kNames) {
    if (text == name) return c;
  }
  if (!text.empty() && text.size() <= 2 &&
      text.find_first_not_of("0123456789") == std::string::npos) {
    return error_code_from_int(std::stoi(text));
  }
  throw ParseError("unknown error code '" + text + "'");
}

}  // namespace tetune::tuning_log
