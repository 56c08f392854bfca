// Running work in a forked child process under a deadline: the isolation that
// measuring candidate kernels needs (a crash, a hang or a runaway allocation
// ends only the child). Shared by the tuner's Measurer (autotune/measure), the
// remote measure runner (runtime/measure_runner.h) and the kernel bench
// (bench/main.cc, whose children exec the bench binary).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>

namespace tetune {
namespace rt {

/** How a child ended and what it sent. */
struct ChildExit {
  bool timed_out = false;  ///< killed with SIGKILL at its deadline
  int signal = 0;          ///< > 0: it died of this signal
  int exit_status = 0;     ///< its exit status when it exited (3: its work threw)
  std::string payload;     ///< everything it wrote to its pipe (complete only when ok())
  double cpu_s = 0;        ///< user + system CPU seconds of the child and the descendants it reaped
  bool ok() const { return !timed_out && signal == 0 && exit_status == 0; }
  /** "timeout: no result after 8 s", "died of signal 11 (Segmentation fault)", "exited with status 3"; "" when ok(). */
  std::string reason(double timeout_s) const;
};

/** Writes all of s to fd; retries on EINTR, gives up on any other error. */
void write_all(int fd, const std::string &s);

/**
 * A forked child with a pipe from it to the parent. The destructor kills
 * (SIGKILL) and reaps a child that was not reaped, so no child outlives its
 * owner on an exception path.
 */
class Child {
 public:
  /**
   * Forks. The child runs work(fd), fd being the write end of its pipe, and
   * exits with status 0, or 3 when work throws; it never returns. Raises
   * MeasureError when pipe() or fork() fails.
   */
  static Child spawn(const std::function<void(int fd)> &work);
  Child() = default;  ///< no child (reap() returns an empty, ok ChildExit)
  Child(Child &&o) noexcept;
  Child &operator=(Child &&o) noexcept;
  Child(const Child &) = delete;
  Child &operator=(const Child &) = delete;
  ~Child();

  /** The read end of the pipe (for poll()). */
  int fd() const { return fd_; }
  pid_t pid() const { return pid_; }
  /** What has been read so far. */
  const std::string &received() const { return received_; }
  /** Removes the first n received bytes (a protocol's control bytes). */
  void consume(size_t n) { received_.erase(0, n); }
  /** Reads what one read() returns; false at end of file or on error. */
  bool read_some();
  /** Reads until end of file (true) or the deadline passes (false). */
  bool read_until(std::chrono::steady_clock::time_point deadline);
  /**
   * Kills the child first when kill is true (it then counts as timed out),
   * reaps it, and says how it ended; the payload is what was received.
   */
  ChildExit reap(bool kill);

 private:
  Child(pid_t pid, int fd) : pid_(pid), fd_(fd) {}
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string received_;
};

/**
 * Runs work in a child; the string it returns is the payload. Waits at most
 * timeout_s (seconds) for the child to finish, then kills it. Raises
 * MeasureError when pipe() or fork() fails.
 */
ChildExit run_in_child(double timeout_s, const std::function<std::string()> &work);

}  // namespace rt
}  // namespace tetune
