#include "bench/json_line.h"

#include <cmath>
#include <cstdio>

namespace tetune {
namespace bench {

nlohmann::ordered_json json_number(double v, const char *format) {
  if (!std::isfinite(v)) return nullptr;
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return nlohmann::ordered_json::parse(buf);
}

std::string json_line(const nlohmann::ordered_json &j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace bench
}  // namespace tetune
