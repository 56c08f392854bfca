// Rank 0 of `tetune-mpi`: a BatchMeasurer (autotune/measure/measure_hooks.h)
// that sends a task's candidates to the worker ranks (autotune/mpi/mpi_worker.h)
// and collects their results, so the tuner, its search, cost model and log
// run unchanged on rank 0.
//
//   // rank 0, after MPI_Init_thread:
//   set_measure_hooks({nullptr, [](auto &t, auto &o) { return mpi::make_mpi_measurer(t, o, 0); }});
//   mpi::set_on_target_groups(start_a_pass_for_each_further_group);
//   ... tune() / tune_model() ...
//   mpi::stop_workers();                                     // before MPI_Finalize
//
// Scheduling: each live worker holds at most two candidates (one measured,
// one queued behind it, so it never waits for rank 0); a worker that
// answers gets the next one. Results are returned in input order.
//
// Targets: the run's first measurer (pass 0's first task) probes every live
// worker for the task; each answers with the target it measures for
// (tuning_logs/target_info.h: its host's CPU and the task's threads, or the
// smaller target TETUNE_MPI_TARGET sets, autotune/mpi/worker_target.h).
// Workers of one target form a target group, numbered by size (ties: the
// group of the lowest rank first) and fixed for the run. Every group gets its
// own tuning pass: the driver runs the command once per group, and pass g's
// measurers use group g's workers only, so each pass has its own search,
// cost model and budget, and its records are stored under its group's
// target. A one-target fleet is one group and one pass. Later tasks probe
// again: pass g >= 1 its group's workers, pass 0 every live worker that no
// other group holds (with one group: every live worker). A pass uses the
// workers whose target is the most common among its replies and names the
// others on stderr.
//
// Threads: passes may run at once, one per thread, when MPI was initialised
// with MPI_THREAD_SERIALIZED or more: every MPI call and the table of
// workers are behind one mutex, and no worker serves two passes.
//
// Faults: results are received with MPI_Irecv + MPI_Test polling. A worker
// whose receive fails (its process died, with MPI_ERRORS_RETURN) or that
// has not answered its current candidate within
// MeasureOptions::timeout_s + 10 s (+ reference_timeout_s before its first
// answer for the task) is dropped for the rest of the run. Its in-flight
// candidates are sent to another live worker of the pass, once; a candidate
// lost twice, or lost with no other worker left, becomes a kUnknown result
// whose message names the ranks. MeasureError when no worker of the pass can
// measure the task.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "autotune/measure/measure_hooks.h"
#include "tuning_logs/target_info.h"

namespace tetune {
namespace autotune {
namespace mpi {

/** Worker ranks that measure for one target (see the header comment); group g is tuned by pass g. */
struct TargetGroup {
  tuning_log::TargetInfo target;  ///< what they reported for the run's first task
  std::vector<int> ranks;         ///< MPI ranks, ascending
};

/**
 * For MeasureHooks::make_measurer of tuning pass `group` (0 for the first
 * pass, which also forms the groups). Raises MeasureError when no worker
 * rank of the pass can measure `task`, or when `group` is not 0 and no such
 * group has been formed.
 */
std::unique_ptr<BatchMeasurer> make_mpi_measurer(const Task &task, const MeasureOptions &options, int group);

/**
 * Sets what is called once the first probe has formed the target groups,
 * with all of them (one with a one-target fleet). It is called on pass 0's
 * thread, inside the make_mpi_measurer call of its first task, with no lock
 * held, so it may start the other passes. Set it before tuning starts.
 */
void set_on_target_groups(std::function<void(const std::vector<TargetGroup> &groups)> fn);

/**
 * Sends kStop to every worker still alive (rank 0, once, after every pass
 * has ended). Returns the ranks dropped during the run: when there are any,
 * no rank may call MPI_Finalize (Open MPI 4 waits in it for the dead rank
 * forever), and the stop message tells the workers so.
 */
std::vector<int> stop_workers();

}  // namespace mpi
}  // namespace autotune
}  // namespace tetune
