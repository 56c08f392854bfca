// Lesson 3: tune an operator and replay the best record.
//
// Lesson 2 wrote a schedule by hand. The tuner writes them instead, in the
// manner of Ansor (Zheng et al., OSDI 2020): sketch rules (multi-level
// tiling, caching, inlining, parallel outer loops) give the shapes a
// schedule may take, random tile sizes and annotations fill them in, an
// evolutionary search guided by an XGBoost cost model proposes the next
// batch, and every candidate is compiled, checked against the reference and
// timed in a child process (a crash or a hang ends only the child).
//
// Every measurement becomes a record in a tuning log (a SQLite file): the
// schedule's trace as JSON, its times, its GFLOP/s or the error it hit. A
// record is keyed by the workload (a hash of the compute, so the same matmul
// in two models is one task) and the target (this CPU, its extensions, the
// thread count). tune() resumes from the records already there; the log
// ranks them and best() returns the winner.
//
// Replaying is lesson 1 again: parse the trace, apply it to the compute,
// build. The compute may be built afresh (a model compiled tomorrow); equal
// computes have equal workload keys and the trace names its stages
// canonically, so it applies. This lesson tunes a small matmul for a few
// seconds into a temporary log, replays the best record on a freshly built
// compute, and checks it against the reference interpreter. The command line
// does the same with `tetune tune-op --op matmul --shape 128,128,128`.
//
//   bazel run //examples/tutorial:lesson_03_tune
#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "autotune/tuner.h"
#include "base/errors.h"
#include "codegen/kernel.h"
#include "schedule/trace.h"
#include "te/interpreter.h"
#include "te/ops/registry.h"
#include "tuning_logs/database.h"
#include "workload/task.h"

using namespace tetune;

namespace {

void check(bool ok, const std::string &what) {
  if (ok) return;
  std::fprintf(stderr, "FAILED: %s\n", what.c_str());
  std::exit(1);
}

// A fresh directory under $TMPDIR (or /tmp) for the lesson's log; removed at the end.
std::string make_temp_dir() {
  const char *tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/tetune-lesson3-XXXXXX";
  check(mkdtemp(pattern.data()) != nullptr, "cannot create a directory under $TMPDIR");
  return pattern;
}

}  // namespace

int main() {
  set_num_threads(1);  // kernels in this process run as they are tuned: one thread
  const std::vector<int64_t> shape = {128, 128, 128};  // matmul M, N, K (`tetune ops` lists the operators)
  std::string dir = make_temp_dir();
  std::string log_path = dir + "/lesson3.db";

  // The task: the operator's compute, the target (this CPU) and the thread count.
  ops::OpWorkload op = ops::build_op("matmul", shape);
  Task task = make_task("matmul_128x128x128", op.outputs, Target{}, /*threads=*/1);
  std::printf("task %s: workload key %s, %.1f MFLOP per run\n", task.name.c_str(), task.workload_key.c_str(),
              task.flops / 1e6);

  // A small budget: 16 candidates in batches of 8 (real tuning takes hundreds).
  autotune::TuneOptions options;
  options.trials = 16;
  options.batch_size = 8;
  options.db_path = log_path;  // read_dbs is empty: the shipped log is not read
  options.seed = 1;
  options.op_name = "matmul";
  options.progress = [](const autotune::TuneProgress &p) {
    if (p.trials_done % 8 == 0)
      std::printf("  %2d / %d trials, best so far %.1f GFLOP/s, %d errors\n", p.trials_done, p.trials_total,
                  p.best_gflops, p.errors);
  };
  autotune::TuneResult r = autotune::tune(task, options);
  std::printf("tuned: %d records in %.1f s (search %.1f s, measure %.1f s) into %s\n", r.total_records, r.elapsed_s,
              r.search_s, r.measure_s, log_path.c_str());
  check(r.best.has_value(), "tuning found no valid schedule");

  // The log: its best record of this workload on this target.
  tuning_log::TuningLog log = tuning_log::TuningLog::open_read_only(log_path);
  std::vector<tuning_log::MeasureRecord> best = log.best(task.workload_key, r.target_key);
  check(!best.empty(), "the log holds no valid record of the task");
  const tuning_log::MeasureRecord &record = best[0];
  std::printf("best record #%lld (trial %d): %.4f ms, %.1f GFLOP/s\n", static_cast<long long>(record.id),
              record.trial_index, record.median_ms, record.gflops);

  // Replay it on the compute built again: new tensors, the same workload key.
  ops::OpWorkload again = ops::build_op("matmul", shape);
  check(make_task("again", again.outputs).workload_key == task.workload_key, "equal computes must share a key");
  Schedule replayed = replay(again.outputs, trace_from_json(record.schedule_json, again.outputs));
  std::printf("its trace, step by step (lesson 2's ideas, found by the search):\n");
  for (const Step &step : replayed.trace()) std::printf("  %s\n", to_string(step).c_str());
  Kernel tuned = Kernel::build(replayed);
  Kernel plain = Kernel::build(Schedule(again.outputs));

  std::vector<NDArray> inputs;
  for (size_t i = 0; i < replayed.inputs().size(); i++)
    inputs.push_back(NDArray::random(replayed.inputs()[i].shape(), float32(), 7 + i));
  std::vector<NDArray> reference = interpret(again.outputs, replayed.inputs(), inputs);
  std::vector<NDArray> out = tuned.run(inputs);
  double error = scaled_max_error(out[0], reference[0]);
  std::printf("replayed kernel vs the interpreter: scaled error %.1e\n", error);
  check(error < 1e-5, "the replayed schedule differs from the reference");

  std::vector<NDArray> scratch = plain.run(inputs);
  double plain_ms = plain.median_ms(inputs, scratch, 1, 5), tuned_ms = tuned.median_ms(inputs, out, 1, 20);
  std::printf("default schedule %.3f ms, tuned %.3f ms (%.1fx)\n", plain_ms, tuned_ms, plain_ms / tuned_ms);

  std::filesystem::remove_all(dir);  // the lesson's own temporary log
  std::printf("\nlesson 3 OK\n");
  return 0;
}
