// tetune-mpi: the tetune command line on MPI ranks (autotune/mpi/).
//
//   mpirun -np N [--hostfile H] tetune-mpi tune-op|tune ...
//
// Rank 0 runs the command exactly as `tetune` does (task scheduler, search,
// cost model, log); its candidates are measured by the other ranks. Every
// other rank runs the same command line only as far as its tasks (so a
// model is imported on each host, and each rank's tasks compile for its own
// CPU, or for the target TETUNE_MPI_TARGET names: autotune/mpi/worker_target.h),
// then measures what rank 0 sends until rank 0 is done. Worker ranks'
// stdout is discarded, and their command's stderr is shown only when it
// fails before tuning; their own messages stay visible. With one rank, tuning
// measures on rank 0 as `tetune` does.
//
// Several targets: rank 0 runs the command once per target group of the
// workers (autotune/mpi/mpi_measurer.h), each run a pass with its own search,
// records and budget. Pass 0 runs on the main thread; when its first task's
// probe finds further groups, each gets a thread of its own that runs the
// command for it at once, so no group waits for another. This is safe because
// every pass builds its own tasks, search, cost model (its own XGBoost
// booster) and log connection (SQLite takes writers of one file in turns,
// tuning_logs/database.h); Halide's compiler is thread-safe for pipelines
// that share no IR (its maintainers in halide/Halide#5101); and the MPI
// measurer serialises its MPI calls (MPI_THREAD_SERIALIZED). Each pass prints
// its report as it ends (tune-op's names its target). When MPI does not
// provide MPI_THREAD_SERIALIZED, the passes run one after another.
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "autotune/measure/measure_hooks.h"
#include "autotune/mpi/mpi_measurer.h"
#include "autotune/mpi/mpi_worker.h"
#include "autotune/mpi/worker_target.h"
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

// "1, 2" of a group's ranks.
std::string ranks_of(const tetune::autotune::mpi::TargetGroup &g) {
  std::string s;
  for (int r : g.ranks) s += (s.empty() ? "" : ", ") + std::to_string(r);
  return s;
}

// Pass `group` of the command on the calling thread: its measurers use that target group's workers.
int run_pass(int argc, char **argv, int group) {
  using namespace tetune::autotune;
  ScopedThreadMeasureHooks hooks({nullptr, [group](const tetune::Task &task, const MeasureOptions &options) {
                                    return mpi::make_mpi_measurer(task, options, group);
                                  }});
  try {
    return run_cli(argc, argv);
  } catch (...) {  // run_cli passes on what is not a std::exception; in a thread it would end the process
    std::fprintf(stderr, "tetune-mpi: internal error: the pass of target %d threw a non-standard exception\n",
                 group + 1);
    return 2;
  }
}

// Each returns the exit code; *finalize: whether MPI_Finalize may be called (no rank was dropped).
// concurrent: whether the passes of further target groups may run in threads (MPI_THREAD_SERIALIZED).
int run_rank0(int argc, char **argv, int size, bool concurrent, bool *finalize) {
  using namespace tetune::autotune;
  std::vector<mpi::TargetGroup> groups;
  std::vector<int> rcs;              // the exit code of pass g at g; [0] unused
  std::vector<std::thread> passes;   // passes 1.. when concurrent
  if (size > 1) {
    set_measure_hooks({nullptr, [](const tetune::Task &task, const MeasureOptions &options) {
                         return mpi::make_mpi_measurer(task, options, 0);
                       }});
    mpi::set_on_target_groups([&, argc, argv, concurrent](const std::vector<mpi::TargetGroup> &found) {
      groups = found;
      rcs.assign(found.size(), 0);
      if (concurrent)
        for (size_t g = 1; g < found.size(); g++)
          passes.emplace_back([&rcs, argc, argv, g] { rcs[g] = run_pass(argc, argv, static_cast<int>(g)); });
    });
  }
  int rc = run_cli(argc, argv);
  for (auto &t : passes) t.join();
  if (size > 1) mpi::set_on_target_groups(nullptr);  // it refers to this frame
  if (!concurrent)
    for (size_t g = 1; g < groups.size(); g++) {
      std::fprintf(stderr, "tetune-mpi: MPI gives no MPI_THREAD_SERIALIZED: target %zu (MPI rank(s) %s) is tuned now\n",
                   g + 1, ranks_of(groups[g]).c_str());
      rcs[g] = run_pass(argc, argv, static_cast<int>(g));
    }
  for (size_t g = 0; g < groups.size() && groups.size() > 1; g++) {
    int code = g == 0 ? rc : rcs[g];
    std::fprintf(stderr, "tetune-mpi: target %zu (MPI rank(s) %s): %s\n", g + 1, ranks_of(groups[g]).c_str(),
                 code == 0 ? "done" : ("failed, exit code " + std::to_string(code)).c_str());
    if (rc == 0) rc = code;
  }
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
  mpi::WorkerTarget target;
  try {
    target = mpi::worker_target_from_env();
  } catch (const tetune::Error &e) {  // this rank measures nothing; rank 0 names it when probing
    std::fprintf(stderr, "tetune-mpi rank %d: error: %s\n", rank, e.what());
    *finalize = mpi::serve({}, MeasureOptions{}, why + e.what(), target);
    return 0;
  }
  HeldStderr held;
  try {
    int rc = run_cli(argc, argv);
    held.release(true);
    *finalize = mpi::serve({}, MeasureOptions{}, why + "its command tuned nothing (exit code " + std::to_string(rc) + ")",
                           target);
  } catch (const WorkerTasks &w) {
    held.release(false);
    *finalize = mpi::serve(w.tasks, w.options, "", target);
  } catch (const tetune::Error &e) {
    held.release(true);
    std::fprintf(stderr, "tetune-mpi rank %d: error: %s\n", rank, e.what());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  // A dead rank must not end the job through its errors: rank 0 drops it and goes on.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bool finalize = true;
  int rc = rank == 0 ? run_rank0(argc, argv, size, provided >= MPI_THREAD_SERIALIZED, &finalize)
                     : run_worker(argc, argv, rank, &finalize);
  if (finalize) MPI_Finalize();
  std::fflush(nullptr);
  return rc;
}
