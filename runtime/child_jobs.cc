#include "runtime/child_jobs.h"

#include <poll.h>

#include <cerrno>
#include <cstring>
#include <exception>

#include "base/errors.h"
#include "runtime/child_process.h"

namespace tetune {
namespace rt {

namespace {

struct Running {
  size_t job;
  Child child;
};

// What a finished child says of its job: "" when it returned.
std::string outcome(Child &c) {
  ChildExit e = c.reap(false);
  if (e.ok()) return "";
  if (e.exit_status == 3 && !e.payload.empty()) return e.payload;  // the message of what the job threw
  return e.reason(0);
}

}  // namespace

std::vector<std::string> run_jobs_in_children(const std::vector<std::function<void()>> &jobs, int parallel) {
  if (parallel < 1) throw Error("run_jobs_in_children: parallel must be >= 1, got " + std::to_string(parallel));
  std::vector<std::string> out(jobs.size());
  std::vector<Running> running;  // a Child's destructor kills it: an exception here leaves none behind
  size_t next = 0;
  while (next < jobs.size() || !running.empty()) {
    while (next < jobs.size() && running.size() < static_cast<size_t>(parallel)) {
      const std::function<void()> &job = jobs[next];
      running.push_back({next++, Child::spawn([&job](int fd) {
                           try {
                             job();
                           } catch (const std::exception &e) {
                             write_all(fd, e.what());
                             throw;  // exit status 3: Child::spawn
                           }
                         })});
    }
    std::vector<pollfd> fds;
    for (const Running &r : running) fds.push_back({r.child.fd(), POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw MeasureError(std::string("poll() on the children's pipes failed: ") + std::strerror(errno));
    }
    for (size_t i = fds.size(); i-- > 0;) {
      if (fds[i].revents == 0 || running[i].child.read_some()) continue;  // still running (or more to read)
      out[running[i].job] = outcome(running[i].child);                   // end of file: the child has exited
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  return out;
}

}  // namespace rt
}  // namespace tetune
