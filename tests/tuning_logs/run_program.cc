#include "tests/tuning_logs/run_program.h"

#include <unistd.h>

#include <chrono>

#include "runtime/child_process.h"

namespace tetune::tuning_log::testing {

ProgramResult run_program(const std::vector<std::string> &argv, double timeout_s) {
  rt::Child child = rt::Child::spawn([&](int fd) {
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    // Only stdout and stderr lead to the pipe: a daemon it starts (pg_ctl
    // start) must not keep it open, or the pipe never ends.
    ::close(fd);
    std::vector<char *> args;
    for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    rt::write_all(STDERR_FILENO, "cannot run " + argv[0] + "\n");
    ::_exit(127);
  });
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  bool finished = child.read_until(deadline);
  rt::ChildExit exit = child.reap(!finished);
  return ProgramResult{exit.ok(), exit.reason(timeout_s), exit.payload};
}

}  // namespace tetune::tuning_log::testing
