#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "base/errors.h"
#include "runtime/child_jobs.h"

namespace tetune {
namespace rt {
namespace {

namespace fs = std::filesystem;

std::string scratch_dir(const std::string &name) {
  const char *t = std::getenv("TEST_TMPDIR");
  fs::path d = fs::path(t ? t : "/tmp") / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

std::string read_file(const std::string &path) {
  std::ifstream f(path);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

TEST(ChildJobs, EachJobRunsInAChildOfItsOwnAndSaysHowItEnded) {
  const std::string dir = scratch_dir("child_jobs_outcomes");
  std::vector<std::function<void()>> jobs;
  for (int j = 0; j < 3; j++)
    jobs.push_back([dir, j] { std::ofstream(dir + "/" + std::to_string(j)) << getpid(); });
  jobs.push_back([] { throw std::runtime_error("group g7 failed to lower"); });
  jobs.push_back([] { ::kill(getpid(), SIGKILL); });
  jobs.push_back([dir] { std::ofstream(dir + "/5") << getpid(); });  // after the failures: still run

  const std::vector<std::string> out = run_jobs_in_children(jobs, 2);
  ASSERT_EQ(out.size(), jobs.size());
  std::set<std::string> pids;
  for (int j : {0, 1, 2, 5}) {
    EXPECT_EQ(out[j], "") << "job " << j;
    const std::string pid = read_file(dir + "/" + std::to_string(j));
    EXPECT_NE(pid, std::to_string(getpid())) << "job " << j << " ran in the parent";
    pids.insert(pid);
  }
  EXPECT_EQ(pids.size(), 4u) << "one child per job";
  EXPECT_EQ(out[3], "group g7 failed to lower");
  EXPECT_EQ(out[4], "died of signal 9 (Killed)");
}

TEST(ChildJobs, AtMostParallelChildrenAtOnce) {
  // Each job marks itself running, waits, and records how many marks it sees.
  const std::string dir = scratch_dir("child_jobs_parallel");
  fs::create_directories(dir + "/running");
  std::vector<std::function<void()>> jobs;
  for (int j = 0; j < 6; j++)
    jobs.push_back([dir, j] {
      const std::string mark = dir + "/running/" + std::to_string(j);
      std::ofstream(mark) << j;
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      size_t seen = 0;
      for (const auto &e : fs::directory_iterator(dir + "/running")) seen += e.is_regular_file();
      std::ofstream(dir + "/seen" + std::to_string(j)) << seen;
      fs::remove(mark);
    });
  for (const std::string &o : run_jobs_in_children(jobs, 2)) EXPECT_EQ(o, "");
  size_t most = 0;
  for (int j = 0; j < 6; j++) most = std::max<size_t>(most, std::stoul(read_file(dir + "/seen" + std::to_string(j))));
  EXPECT_EQ(most, 2u) << "two children at once, never three";
}

TEST(ChildJobs, NoJobsAndBadParallel) {
  EXPECT_TRUE(run_jobs_in_children({}, 4).empty());
  EXPECT_THROW(run_jobs_in_children({[] {}}, 0), Error);
}

}  // namespace
}  // namespace rt
}  // namespace tetune
