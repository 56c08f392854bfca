#include "tuning_logs/log_uri.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace tetune::tuning_log {
namespace {

bool starts_with(const std::string &s, const char *prefix) { return s.rfind(prefix, 0) == 0; }

// [begin, end) of each password in a PostgreSQL URI: the one in user:password@
// (which ends before the first '/' or '?' after the scheme; a '@' or '/'
// inside a password or a socket path is percent-encoded), and each
// password=VALUE parameter.
std::vector<std::pair<size_t, size_t>> password_spans(const std::string &uri) {
  std::vector<std::pair<size_t, size_t>> spans;
  const size_t start = uri.find("://") + 3;
  const size_t auth_end = std::min({uri.find('/', start), uri.find('?', start), uri.size()});
  const size_t at = uri.rfind('@', auth_end);
  if (at != std::string::npos && at >= start) {
    const size_t colon = uri.find(':', start);
    if (colon < at) spans.emplace_back(colon + 1, at);
  }
  for (size_t p = uri.find('?'); p != std::string::npos; p = uri.find('&', p + 1)) {
    if (uri.compare(p + 1, 9, "password=") != 0) continue;
    spans.emplace_back(p + 10, std::min(uri.find('&', p + 10), uri.size()));
  }
  return spans;
}

}  // namespace

bool is_postgres_uri(const std::string &location) {
  return starts_with(location, "postgresql://") || starts_with(location, "postgres://");
}

std::string redact_location(const std::string &location) {
  if (!is_postgres_uri(location)) return location;
  std::string out = location;
  auto spans = password_spans(location);
  for (auto it = spans.rbegin(); it != spans.rend(); ++it) out.replace(it->first, it->second - it->first, "***");
  return out;
}

std::string hide_passwords(const std::string &text, const std::string &location) {
  if (!is_postgres_uri(location)) return text;
  std::string out = text;
  for (const auto &[begin, end] : password_spans(location)) {
    const std::string password = location.substr(begin, end - begin);
    if (password.empty()) continue;
    for (size_t p = out.find(password); p != std::string::npos; p = out.find(password, p + 3)) {
      out.replace(p, password.size(), "***");
    }
  }
  return out;
}

}  // namespace tetune::tuning_log
