// Runs a program to its end and keeps what it printed (tests only).
#pragma once

#include <string>
#include <vector>

namespace tetune::tuning_log::testing {

/** How a program ended. */
struct ProgramResult {
  bool ok = false;     ///< exited with status 0 before the deadline
  std::string how;     ///< "" when ok, else "exited with status 1" and the like
  std::string output;  ///< stdout and stderr, interleaved
};

/**
 * Runs argv[0] (a path, not looked up in $PATH) with arguments argv[1..]
 * in a child process (runtime/child_process), at most timeout_s seconds.
 */
ProgramResult run_program(const std::vector<std::string> &argv, double timeout_s = 60);

}  // namespace tetune::tuning_log::testing
