// A writer killed with SIGKILL loses nothing it reported as committed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <set>
#include <thread>
#include <vector>

#include "tests/tuning_logs/backends.h"
#include "tests/tuning_logs/test_util.h"
#include "tuning_logs/database.h"

namespace tetune::tuning_log {
namespace {

bool write_all(int fd, const void *data, size_t n) {
  const char *p = static_cast<const char *>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

[[noreturn]] void writer_child(const std::string &path, int fd) {
  try {
    TuningLog log = TuningLog::open(path);
    const std::string tk = testing::cpu_target(8).key();
    for (int i = 0;; ++i) {
      MeasureRecord r = testing::record("kill_wl", tk, 1.0 + (i % 97), i);
      r.schedule_json += std::string(512, ' ');  // bigger pages, more I/O
      int64_t id = log.add_record(r);  // committed once this returns
      if (!write_all(fd, &id, sizeof id)) _exit(2);
    }
  } catch (...) {
    _exit(1);
  }
}

// On PostgreSQL the child may die inside a transaction holding the write
// lock: the server rolls it back and frees the lock when the connection drops.
class KillSafetyTest : public testing::BackendTest {};
INSTANTIATE_FOR_BOTH_BACKENDS(KillSafetyTest);

TEST_P(KillSafetyTest, CommittedRecordsSurviveSigkill) {
  const std::string path = path_;
  {
    TuningLog log = TuningLog::open(path);  // schema exists before the child
    log.upsert_target(testing::cpu_target(8));
  }
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    writer_child(path, fds[1]);
  }
  close(fds[1]);

  // Drain the pipe while the child runs so it never blocks on a full pipe.
  std::vector<int64_t> reported;
  std::thread reader([&] {
    int64_t id;
    char *p = reinterpret_cast<char *>(&id);
    size_t got = 0;
    for (;;) {
      ssize_t n = ::read(fds[0], p + got, sizeof id - got);
      if (n <= 0) break;
      got += static_cast<size_t>(n);
      if (got == sizeof id) {
        reported.push_back(id);
        got = 0;
      }
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  reader.join();  // EOF once the child is gone
  close(fds[0]);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited early with status "
                                   << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  ASSERT_FALSE(reported.empty()) << "child committed nothing in 0.3 s";

  TuningLog log = TuningLog::open(path);
  EXPECT_EQ(log.integrity_check(), "ok");
  std::set<int64_t> stored;
  for (const auto &r : log.records("kill_wl", testing::cpu_target(8).key())) {
    stored.insert(r.id);
  }
  size_t missing = 0;
  for (int64_t id : reported) missing += stored.count(id) ? 0 : 1;
  EXPECT_EQ(missing, 0u) << "of " << reported.size() << " reported ids";
  EXPECT_GE(stored.size(), reported.size());
  // The database is still writable after the crash.
  EXPECT_GT(log.add_record(testing::record("kill_wl", "t", 1.0)), 0);
  std::printf("child committed %zu records before SIGKILL\n", reported.size());
}

}  // namespace
}  // namespace tetune::tuning_log
