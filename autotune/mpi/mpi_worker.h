// A worker rank of `tetune-mpi` (tools/tetune_mpi_main.cc): it compiles and
// measures the candidates rank 0 sends, on its own host, for its target
// (autotune/mpi/worker_target.h), with the same Measurer as a single-process
// run (forked children, reference check, timing rules of `options`), and
// answers each with its result.
#pragma once

#include <string>
#include <vector>

#include "autotune/measure/measure.h"
#include "autotune/mpi/worker_target.h"
#include "workload/task.h"

namespace tetune {
namespace autotune {
namespace mpi {

/**
 * Serves rank 0 (autotune/mpi/mpi_messages.h) until it sends kStop; returns
 * whether this rank may call MPI_Finalize (kStop's "finalize").
 * `tasks`: the tasks this rank can measure, built from the same command line
 * as rank 0's, so their workload keys match. `setup_error`: when not empty,
 * why this rank has no tasks; it is the answer to every probe (rank 0 then
 * measures elsewhere). `target`: what this rank compiles the tasks for, and
 * the target it reports when probed (WorkerTarget::info with the task's
 * threads). Never throws for a candidate: a failure of the machinery becomes
 * a kUnknown result naming this rank. Raises MeasureError when MPI itself
 * fails.
 */
bool serve(const std::vector<Task> &tasks, const MeasureOptions &options, const std::string &setup_error,
           const WorkerTarget &target);

}  // namespace mpi
}  // namespace autotune
}  // namespace tetune
