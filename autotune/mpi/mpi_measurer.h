// Rank 0 of `tetune-mpi`: a BatchMeasurer (autotune/measure/measure_hooks.h)
// that sends a task's candidates to the worker ranks (autotune/mpi/mpi_worker.h)
// and collects their results, so the tuner, its search, cost model and log
// run unchanged on rank 0.
//
//   set_measure_hooks({nullptr, mpi::make_mpi_measurer});   // on rank 0, after MPI_Init
//   ... tune() / tune_model() ...
//   mpi::stop_workers();                                     // before MPI_Finalize
//
// Scheduling: each live worker holds at most two candidates (one measured,
// one queued behind it, so it never waits for rank 0); a worker that
// answers gets the next one. Results are returned in input order.
//
// Targets: at construction every live worker is probed for the task; it
// answers with its machine's target (tuning_logs/target_info.h, CPUID of
// its host and the task's threads). The measurer uses the workers whose
// target is the most common one (ties: the lowest rank's) and names the
// others on stderr, so every record is stored under the target of the
// machine that measured it.
//
// Faults: results are received with MPI_Irecv + MPI_Test polling. A worker
// whose receive fails (its process died, with MPI_ERRORS_RETURN) or that
// has not answered its current candidate within
// MeasureOptions::timeout_s + 10 s (+ reference_timeout_s before its first
// answer for the task) is dropped for the rest of the run. Its in-flight
// candidates are sent to another live worker, once; a candidate lost twice,
// or lost with no other worker left, becomes a kUnknown result whose message
// names the ranks. MeasureError when no worker can measure the task.
#pragma once

#include <memory>

#include "autotune/measure/measure_hooks.h"

namespace tetune {
namespace autotune {
namespace mpi {

/** For MeasureHooks::make_measurer. Raises MeasureError when no worker rank can measure `task`. */
std::unique_ptr<BatchMeasurer> make_mpi_measurer(const Task &task, const MeasureOptions &options);

/**
 * Sends kStop to every worker still alive (rank 0, once, at the end). Returns
 * the ranks dropped during the run: when there are any, no rank may call
 * MPI_Finalize (Open MPI 4 waits in it for the dead rank forever), and the
 * stop message tells the workers so.
 */
std::vector<int> stop_workers();

}  // namespace mpi
}  // namespace autotune
}  // namespace tetune
