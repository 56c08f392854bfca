// The bench's JSON lines (bench/results/*.jsonl): one object per line, its
// numbers at a fixed printf precision.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace tetune {
namespace bench {

/**
 * v as a JSON number holding the digits that printf(format, v) gives ("%.6g":
 * six significant digits, "%.4f": four decimals), so that the lines stay as
 * short as they have always been; null when v is not finite.
 */
nlohmann::ordered_json json_number(double v, const char *format = "%.6g");

/** j on one line without a newline, its keys in insertion order; invalid UTF-8 is replaced, not thrown on. */
std::string json_line(const nlohmann::ordered_json &j);

}  // namespace bench
}  // namespace tetune
