#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <stdexcept>

#include "runtime/child_process.h"

namespace tetune {
namespace rt {
namespace {

using Clock = std::chrono::steady_clock;

TEST(ChildProcess, ReturnsWhatTheChildSent) {
  std::string big(200000, 'x');  // more than one pipe buffer
  ChildExit e = run_in_child(10, [&] { return "pid " + std::to_string(getpid()) + " " + big; });
  EXPECT_TRUE(e.ok()) << e.reason(10);
  EXPECT_EQ(e.payload.rfind("pid ", 0), 0u);
  EXPECT_NE(e.payload, "pid " + std::to_string(getpid()) + " " + big);  // ran in another process
  EXPECT_EQ(e.payload.size(), 4 + std::to_string(getpid()).size() + 1 + big.size());
  EXPECT_EQ(e.reason(10), "");
}

TEST(ChildProcess, HangIsKilledAtTheDeadline) {
  auto t0 = Clock::now();
  ChildExit e = run_in_child(0.3, [] {
    for (;;) pause();
    return std::string();
  });
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_TRUE(e.timed_out);
  EXPECT_FALSE(e.ok());
  EXPECT_GE(s, 0.3);
  EXPECT_LT(s, 5.0);
  EXPECT_EQ(e.reason(0.3), "timeout: no result after 0.3 s");
}

TEST(ChildProcess, ReportsTheChildsCpuTime) {
  ChildExit e = run_in_child(30, [] {
    while (std::clock() < CLOCKS_PER_SEC / 4) {  // 0.25 s of this process's CPU time
    }
    return std::string("done");
  });
  ASSERT_TRUE(e.ok()) << e.reason(30);
  EXPECT_GE(e.cpu_s, 0.24);
  EXPECT_LT(e.cpu_s, 30.0);
  ChildExit idle = run_in_child(10, [] { return std::string(); });
  EXPECT_LT(idle.cpu_s, 0.2);
}

TEST(ChildProcess, CrashAndThrowAreReported) {
  ChildExit crash = run_in_child(10, [] {
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
    return std::string("never");
  });
  EXPECT_FALSE(crash.timed_out);
  EXPECT_EQ(crash.signal, SIGSEGV);
  EXPECT_NE(crash.reason(10).find("died of signal 11"), std::string::npos) << crash.reason(10);
  ChildExit threw = run_in_child(10, []() -> std::string { throw std::runtime_error("boom"); });
  EXPECT_EQ(threw.signal, 0);
  EXPECT_EQ(threw.exit_status, 3);
  EXPECT_EQ(threw.reason(10), "exited with status 3");
}

// A child still running when its owner goes away is killed and reaped.
TEST(ChildProcess, OwnerKillsAnUnreapedChild) {
  pid_t pid = -1;
  {
    Child c = Child::spawn([](int) {
      for (;;) pause();
    });
    pid = c.pid();
    ASSERT_GT(pid, 0);
    EXPECT_EQ(kill(pid, 0), 0);  // alive
  }
  EXPECT_NE(kill(pid, 0), 0);  // gone (reaped, so not even a zombie)
}

}  // namespace
}  // namespace rt
}  // namespace tetune
