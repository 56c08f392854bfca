// Several processes write one log at the same time: a SQLite file, or a
// PostgreSQL database (backends.h), each opening it while it may still be
// empty, so they also race to create its schema.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <set>
#include <vector>

#include "tests/tuning_logs/backends.h"
#include "tests/tuning_logs/test_util.h"
#include "tuning_logs/database.h"

namespace tetune::tuning_log {
namespace {

constexpr int kChildren = 4;
constexpr int kRecordsPerChild = 200;

// Child body: returns the exit status (never returns into gtest).
int child_main(const std::string &path, int child) {
  try {
    // Every child opens the (possibly not yet created) file itself.
    TuningLog log = TuningLog::open(path);
    TargetInfo t = testing::cpu_target(child + 1);
    log.upsert_target(t);
    log.upsert_workload(testing::workload("shared_wl"));
    for (int i = 0; i < kRecordsPerChild; ++i) {
      MeasureRecord r =
          testing::record("shared_wl", t.key(), 1.0 + i, i, 1700000000000 + child * 100000);
      log.add_record(r);
    }
    return 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "child %d failed: %s\n", child, e.what());
    return 1;
  }
}

class ConcurrencyTest : public testing::BackendTest {};
INSTANTIATE_FOR_BOTH_BACKENDS(ConcurrencyTest);

TEST_P(ConcurrencyTest, FourProcessesWriteOneDatabase) {
  const std::string path = path_;
  std::vector<pid_t> pids;
  for (int c = 0; c < kChildren; ++c) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0) << "fork failed";
    if (pid == 0) _exit(child_main(path, c));
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "child " << pid << " did not exit normally";
    EXPECT_EQ(WEXITSTATUS(status), 0) << "child " << pid << " reported an error";
  }
  TuningLog log = TuningLog::open(path);
  EXPECT_EQ(log.count_all_records(), kChildren * kRecordsPerChild);
  for (int c = 0; c < kChildren; ++c) {
    EXPECT_EQ(log.count_records("shared_wl", testing::cpu_target(c + 1).key()),
              kRecordsPerChild)
        << "child " << c;
  }
  std::set<int64_t> ids;
  for (int c = 0; c < kChildren; ++c)
    for (const auto &r : log.records("shared_wl", testing::cpu_target(c + 1).key())) ids.insert(r.id);
  EXPECT_EQ(ids.size(), static_cast<size_t>(kChildren * kRecordsPerChild)) << "every record has its own id";
  EXPECT_EQ(log.targets().size(), static_cast<size_t>(kChildren));
  EXPECT_EQ(log.integrity_check(), "ok");
}

}  // namespace
}  // namespace tetune::tuning_log
