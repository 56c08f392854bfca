#include "runtime/spin_pool.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace tetune {
namespace rt {

namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

// Whether this thread is running a task (a worker, or the caller inside do_par_for).
thread_local bool t_in_loop = false;

constexpr int kMaxThreads = SpinPool::kMaxThreads;

// How long workers keep spinning after a parallel loop ends, outside an
// Active scope: back-to-back kernel calls (a timing loop, a caller's own
// sequence of kernels) then find them awake. OpenMP runtimes do the same
// (libgomp's GOMP_SPINCOUNT, LLVM's KMP_BLOCKTIME).
constexpr int64_t kSpinAfterLoopNs = 2'000'000;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The tasks [next, end) of one thread's share of a loop.
struct alignas(64) Share {
  std::atomic<int> next{0};
  int end = 0;
};

// One parallel loop. Its fields change only while no worker is registered
// (busy == 0). Thread k (the caller is 0) first runs the k-th contiguous
// share of the tasks, then takes what is left of the others' shares: kernels
// run one after another then tend to give each core the part of the data it
// wrote before (its own cache), while a late thread's share is still done.
struct Job {
  halide_task_t task = nullptr;
  void *user_context = nullptr;
  uint8_t *closure = nullptr;
  int min = 0, size = 0, shares = 1;
  Share share[kMaxThreads];
  std::atomic<int> done{0}, result{0};
};

// Runs tasks of j, own share first, until none is left.
void run_tasks(Job &j, int me) {
  for (int k = 0; k < j.shares; k++) {
    Share &sh = j.share[(me + k) % j.shares];
    int i;
    while ((i = sh.next.fetch_add(1, std::memory_order_acq_rel)) < sh.end) {
      int r = j.task(j.user_context, j.min + i, j.closure);
      if (r != 0) {
        int none = 0;
        j.result.compare_exchange_strong(none, r);
      }
      j.done.fetch_add(1, std::memory_order_acq_rel);
    }
  }
}

}  // namespace

struct SpinPool::State {
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<uint64_t> generation{0};
  std::atomic<int> busy{0};     // workers registered for the current job
  std::atomic<int> active{0};   // Active scopes alive
  std::atomic<int64_t> last_loop_end_ns{0};
  std::atomic<bool> stop{false};
  Job job;
  std::vector<std::thread> workers;
  std::mutex caller_mu;         // one parallel loop at a time from outside the pool

  // `seen`: the generation when the worker was made (a loop published before
  // the thread got to run is still joined).
  void worker(int me, uint64_t seen) {
    t_in_loop = true;
    for (;;) {
      int spins = 0;
      while (generation.load(std::memory_order_acquire) == seen) {
        if (stop.load(std::memory_order_acquire)) return;
        if (active.load(std::memory_order_acquire) > 0) {
          cpu_relax();
          continue;
        }
        // Within the grace period after the last loop: spin, reading the clock now and then.
        if ((++spins & 255) != 0 || now_ns() - last_loop_end_ns.load(std::memory_order_relaxed) < kSpinAfterLoopNs) {
          cpu_relax();
          continue;
        }
        std::unique_lock<std::mutex> lk(mu);
        cv.wait(lk, [&] { return stop.load() || active.load() > 0 || generation.load() != seen; });
      }
      {
        // Registered under the lock: the caller rewrites the job only when no worker is.
        std::lock_guard<std::mutex> lk(mu);
        seen = generation.load(std::memory_order_acquire);
        busy.fetch_add(1, std::memory_order_acq_rel);
      }
      run_tasks(job, me);
      busy.fetch_sub(1, std::memory_order_acq_rel);
    }
  }

  void stop_workers() {
    {
      std::lock_guard<std::mutex> lk(mu);
      stop.store(true);
    }
    cv.notify_all();
    for (auto &t : workers) t.join();
    workers.clear();
    stop.store(false);
  }
};

SpinPool::SpinPool() : s_(new State), pid_(getpid()) { set_threads(default_threads()); }

int SpinPool::default_threads() {
  const char *env = std::getenv("HL_NUM_THREADS");
  int n = env && *env ? std::atoi(env) : static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, std::min(n, kMaxThreads));
}

// After fork() the child has the pool's memory but none of its worker
// threads (and maybe a mutex held by one): it starts over with a fresh state
// and the same thread count, leaking the old one (its std::thread objects may
// not be destroyed).
void SpinPool::renew_after_fork() {
  if (pid_ == getpid()) return;
  int n = threads();
  pid_ = getpid();
  s_ = new State;
  set_threads(n);
}

SpinPool::~SpinPool() {
  if (pid_ != getpid()) return;  // a forked child that never used the pool: its threads are not ours
  s_->stop_workers();
  delete s_;
}

SpinPool &SpinPool::get() {
  static SpinPool pool;
  return pool;
}

void SpinPool::set_threads(int n) {
  renew_after_fork();
  n = std::max(1, std::min(n, kMaxThreads));
  if (threads() == n) return;
  s_->stop_workers();
  const uint64_t now = s_->generation.load();
  for (int i = 1; i < n; i++) s_->workers.emplace_back([st = s_, i, now] { st->worker(i, now); });
}

int SpinPool::threads() const { return static_cast<int>(s_->workers.size()) + 1; }

std::atomic<uint64_t> g_loops_run{0};

uint64_t SpinPool::loops_run() { return g_loops_run.load(); }

int SpinPool::do_par_for(void *user_context, halide_task_t task, int min, int size, uint8_t *closure) {
  if (!t_in_loop) get().renew_after_fork();
  if (size > 1) g_loops_run.fetch_add(1, std::memory_order_relaxed);
  State &s = *get().s_;
  if (t_in_loop || s.workers.empty() || size <= 1) {
    int first = 0;
    for (int i = 0; i < size; i++) {
      int r = task(user_context, min + i, closure);
      if (r != 0 && first == 0) first = r;
    }
    return first;
  }
  std::lock_guard<std::mutex> one_loop(s.caller_mu);
  t_in_loop = true;
  {
    std::unique_lock<std::mutex> lk(s.mu);
    while (s.busy.load(std::memory_order_acquire) != 0) {  // stragglers of the previous loop
      lk.unlock();
      cpu_relax();
      lk.lock();
    }
    Job &j = s.job;
    j.task = task;
    j.user_context = user_context;
    j.closure = closure;
    j.min = min;
    j.size = size;
    j.shares = std::min(size, static_cast<int>(s.workers.size()) + 1);
    for (int k = 0; k < j.shares; k++) {
      j.share[k].next.store(static_cast<int>(static_cast<int64_t>(size) * k / j.shares));
      j.share[k].end = static_cast<int>(static_cast<int64_t>(size) * (k + 1) / j.shares);
    }
    j.done.store(0);
    j.result.store(0);
    s.generation.fetch_add(1, std::memory_order_acq_rel);
  }
  s.cv.notify_all();  // sleeping workers (outside an Active scope) join too
  run_tasks(s.job, 0);
  while (s.job.done.load(std::memory_order_acquire) < size) cpu_relax();
  s.last_loop_end_ns.store(now_ns(), std::memory_order_relaxed);
  t_in_loop = false;
  return s.job.result.load();
}

SpinPool::Active::Active() {
  get().renew_after_fork();
  State &s = *get().s_;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    s.active.fetch_add(1);
  }
  s.cv.notify_all();
}

SpinPool::Active::~Active() { get().s_->active.fetch_sub(1); }

}  // namespace rt
}  // namespace tetune
