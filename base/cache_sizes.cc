#include "base/cache_sizes.h"

#include <cctype>
#include <fstream>

namespace tetune {

namespace {
std::string read_line(const std::string &path) {
  std::ifstream f(path);
  std::string s;
  std::getline(f, s);
  return s;
}

CacheSizes read_host_cache_sizes() {
  CacheSizes c;
  const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index";
  for (int i = 0; i < 8; i++) {
    const std::string base = dir + std::to_string(i) + "/";
    const std::string level = read_line(base + "level"), type = read_line(base + "type");
    if (level.empty()) continue;
    if (type != "Unified" && type != "Data") continue;
    const int64_t bytes = parse_cache_size(read_line(base + "size"));
    if (level == "2") c.l2_bytes = bytes;
    if (level == "3") c.l3_bytes = bytes;
  }
  return c;
}
}  // namespace

int64_t parse_cache_size(const std::string &text) {
  size_t i = 0;
  int64_t n = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && n < (int64_t{1} << 40); i++)
    n = n * 10 + (text[i] - '0');
  if (i == 0) return 0;
  const std::string unit = text.substr(i);
  if (unit.empty()) return n;
  if (unit == "K") return n << 10;
  if (unit == "M") return n << 20;
  if (unit == "G") return n << 30;
  return 0;
}

CacheSizes host_cache_sizes() {
  static const CacheSizes sizes = read_host_cache_sizes();
  return sizes;
}

}  // namespace tetune
