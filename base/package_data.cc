#include "base/package_data.h"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <vector>

namespace tetune {
namespace {

constexpr const char *kWorkspace = "tetune";

const char *env(const char *name) {
  const char *v = std::getenv(name);
  return v && *v ? v : nullptr;
}

std::string self_exe() {
  std::vector<char> buf(4096);
  ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  return n > 0 ? std::string(buf.data(), static_cast<size_t>(n)) : std::string();
}

}  // namespace

bool is_regular_file(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string find_package_data(const std::string &relative, const std::function<bool(const std::string &)> &accept) {
  std::vector<std::string> candidates;
  const std::string exe = self_exe();
  const std::string rel = std::string(kWorkspace) + "/" + relative;
  if (!exe.empty()) candidates.push_back(exe + ".runfiles/" + rel);
  if (const char *r = env("RUNFILES_DIR")) candidates.push_back(std::string(r) + "/" + rel);
  if (const char *r = env("TEST_SRCDIR")) candidates.push_back(std::string(r) + "/" + rel);
  for (std::string dir = exe; !dir.empty();) {
    size_t slash = dir.rfind('/');
    if (slash == std::string::npos || slash == 0) break;
    dir.resize(slash);
    candidates.push_back(dir + "/" + relative);
  }
  if (const char *ws = env("BUILD_WORKSPACE_DIRECTORY")) candidates.push_back(std::string(ws) + "/" + relative);
  for (const auto &c : candidates) {
    if (!accept(c)) continue;
    char *real = ::realpath(c.c_str(), nullptr);
    std::string out = real ? real : c;
    std::free(real);
    return out;
  }
  return "";
}

}  // namespace tetune
