#include "runtime/child_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "base/errors.h"

namespace tetune {
namespace rt {

using Clock = std::chrono::steady_clock;

std::string ChildExit::reason(double timeout_s) const {
  if (timed_out) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", timeout_s);
    return std::string("timeout: no result after ") + buf + " s";
  }
  if (signal > 0) return "died of signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  if (exit_status != 0) return "exited with status " + std::to_string(exit_status);
  return "";
}

void write_all(int fd, const std::string &s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t w = ::write(fd, s.data() + off, s.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    off += static_cast<size_t>(w);
  }
}

Child Child::spawn(const std::function<void(int fd)> &work) {
  int fds[2];
  if (::pipe(fds) != 0) throw MeasureError(std::string("pipe() failed: ") + std::strerror(errno));
  std::fflush(nullptr);  // buffered output would otherwise be written twice
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw MeasureError(std::string("fork() failed: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    int status = 0;
    try {
      work(fds[1]);
    } catch (...) {
      status = 3;
    }
    ::close(fds[1]);
    ::_exit(status);
  }
  ::close(fds[1]);
  return Child(pid, fds[0]);
}

Child::Child(Child &&o) noexcept : pid_(o.pid_), fd_(o.fd_), received_(std::move(o.received_)) {
  o.pid_ = -1;
  o.fd_ = -1;
}

Child &Child::operator=(Child &&o) noexcept {
  if (this != &o) {
    if (pid_ > 0 || fd_ >= 0) reap(true);
    pid_ = o.pid_;
    fd_ = o.fd_;
    received_ = std::move(o.received_);
    o.pid_ = -1;
    o.fd_ = -1;
  }
  return *this;
}

Child::~Child() {
  if (pid_ > 0 || fd_ >= 0) reap(true);
}

bool Child::read_some() {
  if (fd_ < 0) return false;
  char chunk[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    received_.append(chunk, static_cast<size_t>(n));
    return true;
  }
}

bool Child::read_until(Clock::time_point deadline) {
  for (;;) {
    double left_ms = std::chrono::duration<double, std::milli>(deadline - Clock::now()).count();
    if (left_ms <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(std::min(left_ms, 1e9)) + 1);
    if (r < 0 && errno != EINTR) return true;  // nothing more can be read
    if (r <= 0) continue;
    if (!read_some()) return true;
  }
}

ChildExit Child::reap(bool kill) {
  ChildExit e;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (pid_ > 0) {
    if (kill) ::kill(pid_, SIGKILL);
    int status = 0;
    rusage ru{};
    while (::wait4(pid_, &status, 0, &ru) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    e.cpu_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
    e.timed_out = kill;
    if (!kill && WIFSIGNALED(status)) e.signal = WTERMSIG(status);
    if (!kill && WIFEXITED(status)) e.exit_status = WEXITSTATUS(status);
  }
  e.payload = std::move(received_);
  received_.clear();
  return e;
}

ChildExit run_in_child(double timeout_s, const std::function<std::string()> &work) {
  Child c = Child::spawn([&](int fd) { write_all(fd, work()); });
  auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  bool finished = c.read_until(deadline);
  return c.reap(!finished);
}

}  // namespace rt
}  // namespace tetune
