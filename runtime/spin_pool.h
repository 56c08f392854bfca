// A thread pool for the kernel calls of a model run whose workers spin
// between parallel loops instead of sleeping.
//
// Why: Halide's default pool puts its workers to sleep a few microseconds
// after a parallel loop ends, so each of a model's ~100 kernel calls pays a
// wake-up (a futex and a reschedule). Measured on PP-OCRv4 rec at 2 threads:
// 48 of its kernels ran slower at 2 threads than at 1 (tiny ones 10 us
// against 1 us), 0.57 ms per inference in all. onnxruntime's pool spins
// between operators for the same reason. Here the workers spin inside a
// SpinPool::Active scope (Model::run) and for 2 ms after each parallel loop
// (as OpenMP runtimes do), and sleep on a condition variable otherwise, so an
// idle process costs no CPU.
//
// It is installed with halide_set_custom_do_par_for in the exported library's
// Halide runtime, and as the JIT handler of kernels built by Kernel::build
// (so the tuner measures kernels on the pool that runs them in a model) (Halide 14: Func::set_custom_do_par_for documents the
// contract: run task(user_context, min + i, closure) for i in [0, size),
// return the first non-zero result). A parallel loop inside a task (nested
// parallelism) runs serially on the thread that reached it. A child process
// made by fork() starts a fresh pool with the parent's thread count.
#pragma once

#include <halide14/HalideRuntime.h>

#include <cstdint>

namespace tetune {
namespace rt {

class SpinPool {
 public:
  /** The process-wide pool (a Halide runtime holds one do_par_for hook). */
  static SpinPool &get();
  /** Most threads a parallel loop runs on (set_threads clamps to it; tetune's --threads options reject more). */
  static constexpr int kMaxThreads = 64;
  /**
   * Halide's default thread count: HL_NUM_THREADS when set, else the hardware threads, at least 1. The pool
   * starts with it, and it is the default of every --threads option of `tetune` (so that `tune` records and
   * `compile` looks up the same target).
   */
  static int default_threads();
  /** Threads that run a parallel loop, the caller included (n - 1 workers); n >= 1. */
  void set_threads(int n);
  int threads() const;
  /** Parallel loops of more than one task run so far by this process (for tests and profiles). */
  static uint64_t loops_run();
  /** halide_do_par_for_t: the hook given to halide_set_custom_do_par_for. */
  static int do_par_for(void *user_context, halide_task_t task, int min, int size, uint8_t *closure);

  /** While one exists, the workers spin waiting for parallel loops; nested scopes are fine. */
  class Active {
   public:
    Active();
    ~Active();
    Active(const Active &) = delete;
    Active &operator=(const Active &) = delete;
  };

  ~SpinPool();
  struct State;

 private:
  SpinPool();
  void renew_after_fork();
  State *s_;
  int pid_;
};

}  // namespace rt
}  // namespace tetune
