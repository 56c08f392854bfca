// Whole-file reads and writes for the export tests (corrupting an export's files).
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace tetune::test {

/** The bytes of file p ("" when it cannot be read). */
inline std::string slurp(const std::string &p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/** Replaces file p's contents with s. */
inline void spit(const std::string &p, const std::string &s) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f << s;
}

}  // namespace tetune::test
