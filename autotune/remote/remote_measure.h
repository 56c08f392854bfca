// Remote measurement: candidates are compiled here and measured on another
// machine (typically one with a GPU) that has only tetune_measure_runner and,
// for CUDA, the NVIDIA driver (runtime/measure_runner.h gives the batch
// format and how the runner times and checks).
//
//   RemoteOptions ro;
//   ro.command = "rsync -a {dir}/ gpu:/tmp/tb/ && ssh gpu /opt/tetune_measure_runner /tmp/tb"
//                " && rsync gpu:/tmp/tb/results.json {dir}/";
//   RemoteMeasurer m(task, MeasureOptions{}, ro);
//   std::vector<MeasureResult> r = m.measure_batch(inputs);  // one per input, in order
//   tuning_log::TargetInfo where = m.target_info();           // the measuring machine
//
// Per batch: each candidate's steps are replayed (ScheduleError ->
// kInvalidSchedule) and AOT-compiled without runtime (CodegenError ->
// kCompileError, also for a GPU schedule over the target's limits); the rest
// are linked with one Halide runtime into BATCH/batch.so
// (codegen/kernel_library.h); the inputs (NDArray::random, seed as
// MeasureOptions) and the reference outputs (the task's default schedule,
// computed on this host's CPU in a child process) go next to it as .npy; a
// candidate that reads a constant input through a packed copy at root gets
// that input packed (codegen/prepack.h), as the local measurer and a
// compiled model give it.
// Then `command` runs with {dir} = the batch directory and {runner} = the
// runner binary; it must leave {dir}/results.json. The default command runs
// the runner on this machine.
//
// The measuring machine is probed once, at construction, with an empty
// batch: target_info() then names its CPU (from its /proc/cpuinfo), the
// task's target kind and thread count, and for CUDA its GPU, so records are
// stored under that machine, not this one.
//
// Errors: MeasureError when the command fails or leaves no readable
// results.json (its output is in the message); the candidates of that batch
// are not recorded.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "autotune/measure/measure.h"
#include "workload/task.h"
#include "tuning_logs/target_info.h"

namespace tetune {
namespace autotune {

struct RemoteOptions {
  /** /bin/sh command running a batch; {dir} and {runner} are substituted (quoted). */
  std::string command = "{runner} {dir}";
  /** tetune_measure_runner here; "" = $TETUNE_MEASURE_RUNNER, else next to this executable, else on PATH. */
  std::string runner;
  /** Where batch directories are made; "" = a fresh directory under $TMPDIR (default /tmp). */
  std::string work_dir;
  /** Keep the batch directories (for inspection) instead of removing them. */
  bool keep = false;
};

class RemoteMeasurer {
 public:
  /** Probes the measuring machine (see above). Raises MeasureError when the probe fails. */
  RemoteMeasurer(const Task &task, const MeasureOptions &options, const RemoteOptions &remote);
  ~RemoteMeasurer();
  RemoteMeasurer(const RemoteMeasurer &) = delete;
  RemoteMeasurer &operator=(const RemoteMeasurer &) = delete;

  /** One result per input, in order (see above). */
  std::vector<MeasureResult> measure_batch(const std::vector<MeasureInput> &ins);

  /** The measuring machine as a tuning-log target. */
  const tuning_log::TargetInfo &target_info() const;
  /** Its device as the runner reported it (GPU name, or CPU model). */
  const std::string &device() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/** The runner binary RemoteOptions::runner resolves to ("" when none is found). */
std::string find_measure_runner(const std::string &configured);

}  // namespace autotune
}  // namespace tetune
