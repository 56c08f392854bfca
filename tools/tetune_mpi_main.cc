// tetune-mpi: the tetune command line on MPI ranks (autotune/mpi/).
//
//   mpirun -np N [--hostfile H] tetune-mpi tune-op|tune ...
//
// Rank 0 runs the command exactly as `tetune` does (task scheduler, search,
// cost model, log); its candidates are measured by the other ranks. Every
// other rank runs the same command line only as far as its tasks (so a
// model is imported on each host, and each rank's tasks compile for its own
// CPU), then measures what rank 0 sends until rank 0 is done. Worker ranks'
// stdout is discarded, and their command's stderr is shown only when it
// fails before tuning; their own messages stay visible. With one rank, tuning
// measures on rank 0 as `tetune` does.
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "autotune/measure/measure_hooks.h"
#include "autotune/mpi/mpi_measurer.h"
#include "autotune/mpi/mpi_worker.h"
#include "base/errors.h"
#include "tools/commands.h"

namespace {

// Thrown on a worker rank when the command reaches tuning: not an Error, so the command's handlers let it pass.
struct WorkerTasks {
  std::vector<tetune::Task> tasks;
  tetune::autotune::MeasureOptions options;
};

// The `tetune` command line (tools/run_cli.cc).
int run_cli(int argc, char **argv) {
  CLI::App app{"tetune-mpi: tetune with candidates measured on MPI ranks"};
  return tetune::cli::run_cli(app, argc, argv);
}

// Each returns the exit code; *finalize: whether MPI_Finalize may be called (no rank was dropped).
int run_rank0(int argc, char **argv, int size, bool *finalize) {
  using namespace tetune::autotune;
  if (size > 1) set_measure_hooks({nullptr, mpi::make_mpi_measurer});
  int rc = run_cli(argc, argv);
  std::vector<int> dropped = mpi::stop_workers();
  *finalize = dropped.empty();
  if (!dropped.empty())
    std::fprintf(stderr, "tetune-mpi: %zu worker rank(s) were dropped during the run; their candidates were "
                         "re-sent or recorded as failed\n", dropped.size());
  return rc;
}

// Holds what the command writes on stderr until release(): rank 0 prints the command's banner once; a
// worker shows its copy only when its command fails before tuning.
class HeldStderr {
 public:
  HeldStderr() : file_(std::tmpfile()), saved_(file_ ? dup(2) : -1) {
    if (saved_ < 0) return;
    std::fflush(stderr);
    dup2(fileno(file_), 2);
  }
  ~HeldStderr() { release(false); }
  void release(bool show) {
    if (saved_ < 0) return;
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    saved_ = -1;
    if (show) {
      std::rewind(file_);
      char buf[4096];
      for (size_t n; (n = std::fread(buf, 1, sizeof buf, file_)) > 0;) std::fwrite(buf, 1, n, stderr);
    }
    std::fclose(file_);
  }

 private:
  FILE *file_;
  int saved_;
};

int run_worker(int argc, char **argv, int rank, bool *finalize) {
  using namespace tetune::autotune;
  if (!std::freopen("/dev/null", "w", stdout)) std::fprintf(stderr, "tetune-mpi rank %d: cannot silence stdout\n", rank);
  set_measure_hooks({[](const std::vector<tetune::Task> &tasks, const MeasureOptions &options) {
                       throw WorkerTasks{tasks, options};
                     },
                     nullptr});
  std::string why = "MPI rank " + std::to_string(rank) + ": ";
  HeldStderr held;
  try {
    int rc = run_cli(argc, argv);
    held.release(true);
    *finalize = mpi::serve({}, MeasureOptions{}, why + "its command tuned nothing (exit code " + std::to_string(rc) + ")");
  } catch (const WorkerTasks &w) {
    held.release(false);
    *finalize = mpi::serve(w.tasks, w.options, "");
  } catch (const tetune::Error &e) {
    held.release(true);
    std::fprintf(stderr, "tetune-mpi rank %d: error: %s\n", rank, e.what());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  // A dead rank must not end the job through its errors: rank 0 drops it and goes on.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bool finalize = true;
  int rc = rank == 0 ? run_rank0(argc, argv, size, &finalize) : run_worker(argc, argv, rank, &finalize);
  if (finalize) MPI_Finalize();
  std::fflush(nullptr);
  return rc;
}
