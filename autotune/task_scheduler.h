// Gradient-based task scheduler (Zheng et al., "Ansor", OSDI 2020, section 6):
// decides which task of a model gets the next batch of measurement trials.
//
// Objective: f = sum_i w_i * g_i, with g_i the best latency (ms) of task i and
// w_i its number of occurrences in the model; a task that is another form of
// other tasks' kernels counts by what it saves over them (SchedTaskInfo::rivals).
//
// Warm-up: round robin, every task is first topped up to warmup_trials records
// (default one batch; min with its cap; stored records count). With a measured
// default-schedule baseline a warm-up of 1 is enough to know every g_i (the
// paper's warm-up only serves that purpose), which model_tuning uses.
// Then each step picks argmin_i of the estimated gradient df/dt_i (the most
// negative = the largest expected drop of f per unit of tuning; t_i counted in
// rounds = trials / batch):
//
//   df/dt_i ~= w_i * ( alpha * (g_i(t_i) - g_i(t_i - dt)) / dt
//                    + (1 - alpha) * (min(g_i - g_i / t_i, beta * C_i / max_{k in N(i)} V_k) - g_i) )
//
// the first term is the backward window (dt = backward_window rounds of the
// task's own history; 0 while the history is shorter), the second the
// optimistic forward guess: either the latency keeps falling like 1/t, or the
// task reaches 1/beta of the best throughput V_k = C_k / g_k among tasks with
// the same similarity key N(i) (C = flops); only used when N(i) has another
// task with a result. With probability epsilon a random live task is picked
// instead (epsilon-greedy, as in the paper / TVM's implementation). For a
// task with rivals each g_i in the formula is min(g_i, R_i) (SchedTaskInfo::rivals).
// A task with no successful record yet has gradient -inf (picked first).
// A task is dead when a step added no records (its space is exhausted); one
// at its cap (max_trials) gets no step while capped. A cap is lifted once the
// task's w_i * g_i reaches heavy_share of f: a cap meant for cheap tasks
// (model_tuning's few-flops ones) must not hold a copy or layout transform
// of a high-resolution tensor, which does no arithmetic yet can take a tenth
// of a model (PP-OCR det's 1x96x160x160 NCHW -> NCHW8c, 7-9 ms of 115).
//
// Budget: total_trials counts every record of the tasks, including those
// already in the database at start (set_initial), so a rerun with the same
// budget measures nothing new once the budget is spent.
//
// The scheduler never measures anything itself: run_task_scheduler() drives it
// with a StepFn (the real tuner in model_tuning.cc, a fake in tests).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace tetune {
namespace autotune {

struct SchedTaskInfo {
  std::string name;
  double weight = 1;            // occurrences in the model
  double flops = 0;             // per run (C_i)
  std::string similarity_key;   // tasks with equal non-empty keys are "similar" (N(i))
  int max_trials = -1;          // cap on records of this task; < 0 = none; 0 = skipped (never lifted)
  /**
   * Non-empty: this task is another form of the kernels these tasks run (a
   * direct conv beside the input, GEMM and output kernels of its Winograd form,
   * relay_import/conv_forms.h), and the model runs the faster form. f counts
   * it only by what it saves over their sum R (objective()), and so does its
   * gradient: g_i enters it as min(g_i, R), so a step is worth taking only
   * where the 1/t guess (or a similar task's throughput) takes it below R.
   */
  std::vector<int> rivals;
};

/**
 * f = sum_i w_i * g_i over the tasks without rivals that have a result, less
 * w_i * max(0, sum_{r in rivals_i} g_r - g_i) for each task with rivals where
 * it and all its rivals have one (g = best_ms, inf without a result): the
 * model's latency with each kernel in its faster form.
 */
double objective(const std::vector<SchedTaskInfo> &tasks, const std::vector<double> &best_ms);

struct SchedulerOptions {
  int batch = 16;               // trials per step
  int warmup_trials = 0;        // records each task is topped up to in the warm-up; <= 0: batch
  int total_trials = 0;         // budget over all tasks (records already stored count); <= 0: none
  double alpha = 0.2;
  double beta = 2.0;
  int backward_window = 3;      // rounds
  double epsilon = 0.05;
  uint64_t seed = 0;
  double heavy_share = 0;       // a capped task (max_trials > 0) at this share of f or more is no longer capped; 0 = never
};

struct SchedTaskState {
  int trials = 0;                                      // records so far (stored + new)
  double best_ms = std::numeric_limits<double>::infinity();
  std::vector<double> history;                         // best_ms after each round (index = round)
  int rounds = 0;                                      // steps given to this task (+ stored rounds)
  bool dead = false;                                   // a step added no records (never for the cap)
  bool warmed = false;
};

class TaskScheduler {
 public:
  TaskScheduler(std::vector<SchedTaskInfo> tasks, SchedulerOptions options);

  /** Stored records of task i at start (resume): trial count and best successful latency (inf if none). */
  void set_initial(int i, int trials, double best_ms);

  struct Pick {
    int task = -1;            // -1: nothing left (budget spent or every task dead)
    int trials_target = 0;    // total records wanted for the task after this step
    bool warmup = false;
  };
  /** The next step (does not change state). */
  Pick next();
  /** Result of a step: the task's record count and best latency now. No new records marks it dead. */
  void report(int i, int trials_now, double best_ms);

  /** autotune::objective() over the tasks' best latencies. */
  double objective() const;
  /** Number of tasks without rivals and without a successful record. */
  int tasks_without_result() const;
  int trials_used() const;
  int remaining() const;  // budget left (INT_MAX when unlimited)
  double gradient(int i) const;
  int size() const { return static_cast<int>(tasks_.size()); }
  const SchedTaskInfo &info(int i) const { return tasks_[i]; }
  const SchedTaskState &state(int i) const { return state_[i]; }
  const SchedulerOptions &options() const { return opt_; }

 private:
  std::vector<double> best_ms() const;  // each task's best latency (inf without a result)
  int cap_left(int i) const;
  bool heavy(int i) const;
  int warm_target(int i) const;
  std::vector<SchedTaskInfo> tasks_;
  std::vector<SchedTaskState> state_;
  SchedulerOptions opt_;
  std::mt19937_64 rng_;
};

/**
 * One step: bring task `task` to `trials_target` records; return false to stop
 * the whole run (interrupt / deadline). *trials_now and *best_ms must be set
 * to the task's state after the step even when returning false.
 */
using SchedStepFn = std::function<bool(int task, int trials_target, bool warmup, int *trials_now, double *best_ms)>;

/** Drives the scheduler until nothing is left or step() / should_stop() says stop. Returns the number of steps. */
int run_task_scheduler(TaskScheduler &s, const SchedStepFn &step, const std::function<bool()> &should_stop = nullptr);

}  // namespace autotune
}  // namespace tetune
