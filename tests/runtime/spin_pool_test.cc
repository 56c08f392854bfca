// SpinPool: every task of a parallel loop runs exactly once, on more than one
// thread when it has workers, with or without an Active scope; nested loops
// run serially; the first non-zero task result is returned; a forked child
// gets workers of its own.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "runtime/spin_pool.h"

namespace tetune {
namespace rt {
namespace {

struct Counts {
  std::vector<std::atomic<int>> runs;
  std::mutex mu;
  std::set<std::thread::id> threads;
  explicit Counts(int n) : runs(n) {}
};

int count_task(void *, int i, uint8_t *closure) {
  auto *c = reinterpret_cast<Counts *>(closure);
  c->runs[i]++;
  std::lock_guard<std::mutex> lk(c->mu);
  c->threads.insert(std::this_thread::get_id());
  return 0;
}

// Task 0 and task 1 each wait (up to 5 s) until the other has started: they can
// only both finish in time if two threads run them at once.
struct Rendezvous {
  std::atomic<int> started{0};
  std::atomic<int> met{0};
};
int rendezvous_task(void *, int, uint8_t *closure) {
  auto *r = reinterpret_cast<Rendezvous *>(closure);
  r->started++;
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (r->started.load() < 2 && std::chrono::steady_clock::now() < end) std::this_thread::yield();
  if (r->started.load() >= 2) r->met++;
  return 0;
}

int nested_task(void *uc, int, uint8_t *closure) {
  // A loop inside a task runs on this thread, serially.
  auto *c = reinterpret_cast<Counts *>(closure);
  return SpinPool::do_par_for(uc, count_task, 0, static_cast<int>(c->runs.size()), closure);
}

int failing_task(void *, int i, uint8_t *) { return i == 5 ? -7 : 0; }

TEST(SpinPool, EveryTaskOnceOnSeveralThreads) {
  SpinPool::get().set_threads(2);
  EXPECT_EQ(SpinPool::get().threads(), 2);
  for (bool active : {false, true}) {
    std::unique_ptr<SpinPool::Active> scope;
    if (active) scope = std::make_unique<SpinPool::Active>();
    for (int size : {1, 2, 7, 1000}) {
      Counts c(size + 3);
      ASSERT_EQ(SpinPool::do_par_for(nullptr, count_task, 3, size, reinterpret_cast<uint8_t *>(&c)), 0);
      for (int i = 0; i < size + 3; i++) EXPECT_EQ(c.runs[i].load(), i >= 3 ? 1 : 0) << "task " << i << " of " << size;
    }
    Rendezvous r;
    ASSERT_EQ(SpinPool::do_par_for(nullptr, rendezvous_task, 0, 2, reinterpret_cast<uint8_t *>(&r)), 0);
    EXPECT_EQ(r.met.load(), 2) << (active ? "spinning" : "sleeping") << " workers did not run a task alongside the caller";
  }
}

TEST(SpinPool, NestedLoopsAndErrors) {
  SpinPool::get().set_threads(2);
  SpinPool::Active scope;
  Counts inner(4);
  ASSERT_EQ(SpinPool::do_par_for(nullptr, nested_task, 0, 3, reinterpret_cast<uint8_t *>(&inner)), 0);
  for (int i = 0; i < 4; i++) EXPECT_EQ(inner.runs[i].load(), 3);
  EXPECT_EQ(SpinPool::do_par_for(nullptr, failing_task, 0, 50, nullptr), -7);
}

// A child made by fork() has none of the parent's worker threads: the pool
// must start its own, so that two tasks still run at once there.
TEST(SpinPool, ForkedChildRunsLoopsOnItsOwnWorkers) {
  SpinPool::get().set_threads(2);
  Counts warm(8);
  ASSERT_EQ(SpinPool::do_par_for(nullptr, count_task, 0, 8, reinterpret_cast<uint8_t *>(&warm)), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    Rendezvous r;
    int rc = SpinPool::do_par_for(nullptr, rendezvous_task, 0, 2, reinterpret_cast<uint8_t *>(&r));
    _exit(rc == 0 && r.met.load() == 2 && SpinPool::get().threads() == 2 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child's parallel loop did not run on two threads";
}

TEST(SpinPool, OneThreadRunsOnTheCaller) {
  SpinPool::get().set_threads(1);
  Counts c(64);
  ASSERT_EQ(SpinPool::do_par_for(nullptr, count_task, 0, 64, reinterpret_cast<uint8_t *>(&c)), 0);
  EXPECT_EQ(c.threads, std::set<std::thread::id>{std::this_thread::get_id()});
  SpinPool::get().set_threads(2);
}

}  // namespace
}  // namespace rt
}  // namespace tetune
