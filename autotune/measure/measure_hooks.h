// Process-wide hooks through which a driver measures a CPU task's candidates
// somewhere else without forking the tuner (tools/tetune_mpi_main.cc sends
// them to MPI ranks). Without hooks, tune() and tune_model() behave as before.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "autotune/measure/measure.h"
#include "tuning_logs/target_info.h"
#include "workload/task.h"

namespace tetune {
namespace autotune {

/** Measures batches of one task's candidates, as Measurer::measure_batch does. */
class BatchMeasurer {
 public:
  virtual ~BatchMeasurer() = default;
  /** One result per input, in order. Raises MeasureError when the machinery fails (that batch is not recorded). */
  virtual std::vector<MeasureResult> measure_batch(const std::vector<MeasureInput> &ins) = 0;
  /** The measuring machine: the records of this task are stored under it. */
  virtual const tuning_log::TargetInfo &target_info() const = 0;
};

struct MeasureHooks {
  /**
   * Called by tune() (one task) and tune_model() (all of a model's tasks)
   * before anything is read, measured or stored. It may throw to leave the
   * caller (an MPI worker rank only wants the tasks).
   */
  std::function<void(const std::vector<Task> &tasks, const MeasureOptions &options)> before_tuning;
  /** When set, tune() measures a CPU task's batches with what it returns (not for remote or GPU tuning). */
  std::function<std::unique_ptr<BatchMeasurer>(const Task &task, const MeasureOptions &options)> make_measurer;
};

/** Replaces the hooks of this process (not thread-safe: set them before tuning starts). */
void set_measure_hooks(MeasureHooks hooks);

/** The calling thread's hooks (ScopedThreadMeasureHooks) if it has any, else the process's. */
const MeasureHooks &measure_hooks();

/**
 * Gives the calling thread its own hooks for the guard's lifetime: a driver
 * that runs several tunings at once in threads of one process (tetune-mpi,
 * one per target of its worker ranks) hands each its own measurer. Other
 * threads keep theirs. Guards nest; each must be destroyed on the thread
 * that made it, in reverse order.
 */
class ScopedThreadMeasureHooks {
 public:
  explicit ScopedThreadMeasureHooks(MeasureHooks hooks);
  ~ScopedThreadMeasureHooks();
  ScopedThreadMeasureHooks(const ScopedThreadMeasureHooks &) = delete;
  ScopedThreadMeasureHooks &operator=(const ScopedThreadMeasureHooks &) = delete;

 private:
  MeasureHooks hooks_;
  const MeasureHooks *previous_;
};

}  // namespace autotune
}  // namespace tetune
