// What a worker rank of `tetune-mpi` compiles and measures for: its own host,
// or, set by the environment variable TETUNE_MPI_TARGET, a smaller x86-64
// target that this CPU can run. A machine then measures for a CPU with fewer
// instruction sets (an AVX-512 node tunes AVX2 records too), and a test on
// one machine can have workers of two targets:
//
//   mpirun -np 1 tetune-mpi tune-op ARGS : -np 1 tetune-mpi tune-op ARGS
//          : -np 1 -x TETUNE_MPI_TARGET=x86-64-linux-avx2-fma tetune-mpi tune-op ARGS
//
// Rank 0 never reads the variable (it measures nothing).
#pragma once

#include <string>

#include "tuning_logs/target_info.h"
#include "workload/task.h"

namespace tetune {
namespace autotune {
namespace mpi {

/** The environment variable a worker rank reads its target from: a Halide target string. */
inline constexpr const char *kTargetVariable = "TETUNE_MPI_TARGET";

/** The target a worker rank measures for. */
class WorkerTarget {
 public:
  /** This machine's own: tasks compile as the command built them; records go under host_target_info(). */
  WorkerTarget() = default;

  /**
   * `spec`: a Halide target string ("x86-64-linux-avx2-fma"); "", "host" or
   * the string "host" resolves to (codegen/host_target.h) mean this machine's
   * own. It must be a CPU target of this machine's architecture, bits and OS
   * whose every instruction-set extension this CPU has (codegen::host_lacks),
   * so that its kernels run here. Only x86-64 hosts take another target: off
   * x86-64 the extensions cannot be checked. Raises UsageError naming
   * kTargetVariable, the value and what is wrong (the extensions this CPU lacks).
   */
  explicit WorkerTarget(const std::string &spec);

  bool is_host() const { return halide_.empty(); }

  /** `task` as this rank compiles it: a CPU task's target replaced by this one; a GPU task, or any task for the host, as is. */
  Task retarget(const Task &task) const;

  /**
   * The target a record measured here for a task of `threads` threads is
   * stored under: host_target_info(threads) for the host; otherwise the same
   * with only the features this target lets the compiler use (the host's
   * /proc/cpuinfo flags whose extension runtime/cpu_features.h's
   * required_extensions() lists). The CPU model stays this machine's.
   */
  tuning_log::TargetInfo info(int threads) const;

 private:
  std::string halide_;  // Halide target string; "" = the host
};

/** WorkerTarget from kTargetVariable (unset or empty: the host). Raises UsageError as WorkerTarget(spec) does. */
WorkerTarget worker_target_from_env();

}  // namespace mpi
}  // namespace autotune
}  // namespace tetune
