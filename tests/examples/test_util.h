// Helpers for the examples tests: locate the repository (models/,
// tools/reference/) through the runfiles symlink of a data file.
#pragma once

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <string>

namespace tetune {
namespace examples_test {

inline bool path_exists(const std::string &p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

/** The repository root ($TETUNE_ROOT, or resolved through the runfiles symlink of images/README.md), or "". */
inline std::string repo_root() {
  if (const char *r = getenv("TETUNE_ROOT")) return r;
  const std::string rel = "examples/ocr/images/README.md";
  char buf[PATH_MAX];
  if (realpath(rel.c_str(), buf)) {
    std::string p(buf);
    if (p.size() > rel.size() + 1) return p.substr(0, p.size() - rel.size() - 1);
  }
  return "";
}

inline std::string tmp_dir() {
  if (const char *t = getenv("TEST_TMPDIR")) return t;
  return "/tmp";
}

}  // namespace examples_test
}  // namespace tetune
