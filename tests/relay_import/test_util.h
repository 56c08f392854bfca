// Helpers for the relay_import tests: locate the repository (models/,
// tools/reference/) from the runfiles symlink of make_reference.sh.
#pragma once

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <string>

namespace tetune {
namespace testing {

inline bool path_exists(const std::string &p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

/** The repository root ($TETUNE_ROOT, or resolved through the runfiles symlink), or "" . */
inline std::string repo_root() {
  if (const char *r = getenv("TETUNE_ROOT")) return r;
  char buf[PATH_MAX];
  if (realpath("tests/relay_import/make_reference.sh", buf)) {
    std::string p(buf);
    return p.substr(0, p.size() - std::string("/tests/relay_import/make_reference.sh").size());
  }
  return "";
}

inline std::string tmp_dir() {
  if (const char *t = getenv("TEST_TMPDIR")) return t;
  return "/tmp";
}

}  // namespace testing
}  // namespace tetune
