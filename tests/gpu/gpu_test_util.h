// Helpers of the GPU tests: ptxas on written PTX, the no-GPU skip.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "codegen/gpu_runtime.h"

namespace tetune {
namespace gputest {

inline const char *ptxas_path() {
  const char *env = std::getenv("PTXAS");
  return env ? env : "/usr/local/cuda/bin/ptxas";
}
inline bool have_ptxas() { return access(ptxas_path(), X_OK) == 0; }

inline std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/** A fresh directory for this test's outputs. */
inline std::string out_dir(const std::string &name) {
  const char *base = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(base ? base : "/tmp") + "/gpu_" + name;
  std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "'").c_str());
  return dir;
}

/** Runs ptxas -arch on ptx (writing .cubin next to it); returns its exit status and output. */
inline int run_ptxas(const std::string &ptx, const std::string &arch, std::string *log) {
  std::string cubin = ptx.substr(0, ptx.rfind('.')) + "_" + arch + ".cubin";
  std::string logf = cubin + ".log";
  std::string cmd = std::string(ptxas_path()) + " -v -arch=" + arch + " '" + ptx + "' -o '" + cubin + "' > '" + logf + "' 2>&1";
  int rc = std::system(cmd.c_str());
  if (log) *log = read_file(logf);
  return rc;
}

}  // namespace gputest
}  // namespace tetune

#define SKIP_WITHOUT_PTXAS()                                                                      \
  do {                                                                                            \
    if (!::tetune::gputest::have_ptxas())                                                         \
      GTEST_SKIP() << "ptxas not found at " << ::tetune::gputest::ptxas_path() << " (set PTXAS)"; \
  } while (0)

#define SKIP_WITHOUT_GPU()                                              \
  do {                                                                  \
    std::string why_;                                                   \
    if (!::tetune::cuda_device_available(&why_))                        \
      GTEST_SKIP() << "no GPU on this machine: " << why_;               \
  } while (0)
