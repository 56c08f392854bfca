// Measuring schedule candidates in isolated child processes.
//
// Design (2 cores, so deliberately simple and sequential):
//  * The Measurer never JIT-compiles or runs a kernel in the calling process
//    (Halide's thread pool does not survive fork()). Everything that touches
//    the JIT happens in a child made with fork(): one child per candidate.
//    Exception: before the first child, warm_up_jit() compiles (never runs) a
//    trivial pipeline here (MeasureOptions::warm_jit), so that every child
//    inherits an initialised LLVM + Halide JIT runtime (compile ~540 -> ~170 ms).
//  * measure_batch with parallel_builds = N > 1: N children compile and check
//    at once; a child that is done waits to be timed, and the parent forks the
//    next candidate in its place, so both cores keep compiling. Once
//    max_alive children are alive (or no candidate is left), the parent stops
//    forking, lets the compiling ones finish, and then times the waiting ones
//    strictly one at a time (timing overlaps nothing of ours). timeout_s
//    counts each child's own build+check+timing, not the waiting.
//  * Reference: on first use a child builds the task with the default
//    Schedule(outputs), runs it on the fixed random inputs and sends the
//    outputs back over a pipe; the parent keeps them in memory, so every later
//    child sees them (copy-on-write) without further copying.
//  * Per candidate: the parent replays the steps (ScheduleError ->
//    kInvalidSchedule, no child needed); the child sets the thread count
//    (set_num_threads(task.threads)), builds (CodegenError -> kCompileError),
//    runs once and compares with the reference (kWrongAnswer, the message
//    gives the max error), then times it: `warmup` runs, then `repeat`
//    repeats of `number` runs each (number = 0: chosen so that one repeat
//    lasts about min_repeat_ms of wall time, each run's eviction included
//    in the states that evict); costs_ms = per-run time of every repeat,
//    median_ms their median. Results come back over a pipe.
//  * The parent waits at most timeout_s (compile + check + timing); then it
//    kills the child (SIGKILL): kTimeout. A child killed by a signal: kCrash.
//    A kernel raising at run time: kRuntimeError. Anything else: kUnknown.
//    measure() never throws for a property of the candidate; it raises
//    MeasureError only when the machinery fails (fork / pipe) or when the
//    reference itself cannot be computed.
//  * Test hook: MeasureInput::test_fault ("segfault" | "hang" | "wrong" |
//    "compile_error" | "runtime_error") is executed inside the child.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "autotune/measure/reference_cache.h"
#include "runtime/child_process.h"
#include "workload/task.h"
#include "schedule/schedule.h"
#include "base/ndarray.h"
#include "tuning_logs/error_code.h"
#include "tuning_logs/records.h"

namespace tetune {
namespace autotune {

/**
 * What the caches hold when a timed run starts. Inside a model a kernel reads
 * activations its producer has just written and weights it last read one
 * inference ago; back-to-back repeats find both in cache and flatter kernels
 * whose weights fill L2, a cold start flushes the activations too.
 */
enum class CacheState {
  kWarm,   // repeats back to back: a run finds what the last one left
  kCold,   // every input and output evicted from every level (clflush) before each run, as TVM's enable_cpu_cache_flush
  kModel,  // Task::constant_inputs evicted before each run, the other inputs and the outputs as the last run left them
  /**
   * Task::constant_inputs in the L3 but in no core's L2 before each run, the
   * other inputs and the outputs in the calling core's caches: as a model
   * whose weights fit the L3 finds them, last read one inference ago while
   * the other kernels' weights passed through the L2. Made by flushing the
   * weights, then twice reading them on the calling core and a scratch buffer
   * of three times its L2 after them (the L3 keeps what the L2 evicts; a
   * non-inclusive one only lines read again), then the other arrays.
   */
  kL3,
};

/** "warm" | "cold" | "model" | "l3"; raises Error naming the accepted values otherwise. */
CacheState parse_cache_state(const std::string &name);
const char *cache_state_name(CacheState c);

/**
 * Before one timed run: evicts (clflush, then a fence) what `c` names from
 * every cache level; kWarm evicts nothing. `inputs` are in kernel argument
 * order, as Task::constant_inputs indexes them.
 */
void evict_before_run(CacheState c, const Task &task, const std::vector<NDArray> &inputs,
                      const std::vector<NDArray> &outs);

/** One run of `k` after evict_before_run(c, task, inputs, outs): its wall time in ms, the eviction not counted. */
double run_after_evicting_ms(const Kernel &k, CacheState c, const Task &task, const std::vector<NDArray> &inputs,
                             std::vector<NDArray> &outs);

struct MeasureOptions {
  int number = 0;              // runs per repeat; 0 = auto from min_repeat_ms
  int repeat = 3;              // timed repeats (costs_ms has this many values)
  int warmup = 0;              // untimed runs before timing (the checked run and the calibration run warm up)
  /**
   * Target duration of one repeat when number = 0. 10 ms: the machine's slow
   * and fast phases last seconds, so longer repeats do not average them out
   * (the tuner's confirmation rounds do); they only cost candidates per second.
   */
  double min_repeat_ms = 10;
  int max_number = 1000;       // cap of the automatic number
  double timeout_s = 20;       // per candidate: compile + check + timing
  double reference_timeout_s = 600;
  double rtol = 1e-3;          // |out-ref| <= atol + rtol * max|ref| (scale-aware: reductions reorder)
  double atol = 1e-5;
  uint64_t seed = 1234;        // inputs are NDArray::random(shape, dtype, seed + i)
  std::string test_fault;      // applied to every candidate (see MeasureInput::test_fault)
  int parallel_builds = 2;     // measure_batch: children that compile + check at once (timing is never parallel)
  /**
   * measure_batch: children alive at once, compiling or waiting to be timed.
   * More amortise the moment when one core idles while the last build of a
   * group finishes. A waiting child holds its compiled kernel in pages it
   * mostly shares with the parent: 8 of them (conv) added about 20 MB in use.
   */
  int max_alive = 8;
  /**
   * Build candidates with Halide's runtime assertions (BuildOptions::runtime_checks).
   * Off by default: the measurer passes buffers of the exact shapes, the
   * reference check catches a wrong kernel, and compiles are 25-30% faster.
   */
  bool runtime_checks = false;
  bool warm_jit = true;        // compile (never run) a trivial pipeline in this process first (see warm_up_jit)
  /** What the caches hold when a timed run starts (CacheState). */
  CacheState cache = CacheState::kWarm;
};

struct MeasureInput {
  std::vector<Step> steps;     // the candidate's schedule steps
  std::string test_fault;      // test hook: "", "segfault", "hang", "wrong", "compile_error", "runtime_error"
};

struct MeasureResult {
  tuning_log::ErrorCode error = tuning_log::ErrorCode::kNoError;
  std::string error_msg;
  std::vector<double> costs_ms;
  double median_ms = 0;        // +inf on error
  double gflops = 0;           // task.flops / median; 0 on error
  double compile_s = 0;        // build time in the child
  double wall_s = 0;           // whole measurement, parent side (measure_batch: its wall time / inputs)
  // The child's windows, in steady-clock seconds (CLOCK_MONOTONIC, comparable
  // across processes); 0 where it did not get there. build: compile and the
  // reference check; timing: warm-up and timed runs.
  double build_begin_s = 0, build_end_s = 0;
  double timing_begin_s = 0, timing_end_s = 0;
  bool ok() const { return error == tuning_log::ErrorCode::kNoError; }
};

/**
 * The log record of measurement `m` of `schedule_json`: its costs, median
 * (+inf on error), error code and message, GFLOP/s (0 on error), and the
 * given tuner version and trial index; id and timestamp left for the log.
 */
tuning_log::MeasureRecord measure_record(const std::string &schedule_json, const MeasureResult &m,
                                         const std::string &tuner_version, int trial_index);

/**
 * Completes a result from its costs: median_ms and GFLOP/s (task.flops /
 * median) when it succeeded (kUnknown "no timings" when it has no costs);
 * costs cleared when it failed.
 */
void finalize_result(const Task &task, MeasureResult &res);

class Measurer {
 public:
  /**
   * `references` (may be null, else it must outlive this Measurer): where the
   * reference outputs are looked up before computing them, and stored after.
   */
  Measurer(const Task &task, const MeasureOptions &options = {}, ReferenceCache *references = nullptr);

  /** Measures one candidate (sequentially, in a child process). */
  MeasureResult measure(const MeasureInput &in);
  /**
   * Measures each candidate in order; one result per input. Each candidate
   * is compiled and checked once and timed in `rounds` (>= 1) rounds that
   * interleave the candidates alive together (A B C A B C); its costs hold
   * every round's options.repeat runs.
   */
  std::vector<MeasureResult> measure_batch(const std::vector<MeasureInput> &ins, int rounds = 1);

  /** Computes (once, or finds in the ReferenceCache) and returns the reference outputs. Raises MeasureError. */
  const std::vector<NDArray> &reference();
  /**
   * reference() in two halves, so that several tasks' references build at
   * once: start_reference forks the child that computes it (an empty Child
   * when it is known already); finish_reference waits for that child (at most
   * options.reference_timeout_s), stores and returns the outputs. Raises
   * MeasureError as reference() does.
   */
  rt::Child start_reference();
  const std::vector<NDArray> &finish_reference(rt::Child &child);
  const std::vector<NDArray> &inputs() const { return inputs_; }
  const Task &task() const { return task_; }
  const MeasureOptions &options() const { return options_; }

 private:
  Task task_;
  MeasureOptions options_;
  std::vector<NDArray> inputs_;
  ReferenceCache *references_ = nullptr;
  ReferenceCache::Outputs reference_;  // null until computed or found
  bool warmed_ = false;
  void warm_up();
};

/**
 * Computes the reference outputs of the tasks that `cache` lacks, up to
 * options.parallel_builds at a time (each in its own child, as
 * Measurer::reference), into `cache`, in the tasks' order. Stops starting new
 * ones once `stop` (may be empty) returns true. A reference that fails is left
 * out: the task's Measurer computes it again and raises the error there.
 * Why: a reference build is a single-threaded LLVM compile of 0.5-3 s, and a
 * model tuner needs one per task before its first trial.
 */
void prefill_references(const std::vector<Task> &tasks, const MeasureOptions &options, ReferenceCache &cache,
                        const std::function<bool()> &stop = {});

}  // namespace autotune
}  // namespace tetune
