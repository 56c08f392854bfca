// Helpers shared by the tuning_logs tests: temporary directories and
// record factories. Never touches the shipped log tuning_logs/shipped.db.
#pragma once

#include <stdlib.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "base/errors.h"

#include "tuning_logs/database.h"

namespace tetune::tuning_log::testing {

/** A fresh directory under $TEST_TMPDIR (or /tmp). */
inline std::string make_temp_dir() {
  const char *base = std::getenv("TEST_TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") +
                     "/tuning_log_test_XXXXXX";
  char *dir = mkdtemp(tmpl.data());
  if (!dir) throw std::runtime_error("mkdtemp failed for " + tmpl);
  return dir;
}

inline std::string read_file_bytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/** The message of the TuningLogError that f() raises; a test failure when it raises none. */
inline std::string tuning_log_error(const std::function<void()> &f) {
  try {
    f();
  } catch (const TuningLogError &e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a TuningLogError";
  return "";
}

inline TargetInfo cpu_target(int threads = 8,
                             const std::string &features = "avx2,fma",
                             const std::string &cpu = "Test CPU 9000") {
  TargetInfo t;
  t.kind = "llvm";
  t.cpu_model = cpu;
  t.features = features;
  t.threads = threads;
  t.library_versions = "halide=14.0.0";
  return t;
}

inline WorkloadInfo workload(const std::string &key,
                             const std::string &op = "matmul") {
  return WorkloadInfo{key, op, R"({"M":64,"N":64,"K":64})"};
}

inline MeasureRecord record(const std::string &wk, const std::string &tk,
                            double median, int trial = 0,
                            int64_t timestamp = 1700000000000) {
  MeasureRecord r;
  r.workload_key = wk;
  r.target_key = tk;
  r.schedule_json = R"({"steps":[["split","i",)" + std::to_string(trial) + "]]}";
  r.costs_ms = {median * 1.01, median, median * 0.99};
  r.median_ms = median;
  r.error_code = 0;
  r.gflops = 1.0 / median;
  r.timestamp_unix_ms = timestamp + trial;
  r.tuner_version = "tetune-test-0.1";
  r.trial_index = trial;
  return r;
}

}  // namespace tetune::tuning_log::testing
