// Graph compiler + executor (JIT path).
//
//   Graph g = import_onnx(path, opts);
//   CompiledModel m = compile_model(std::move(g));   // passes, fusion, kernels
//   std::vector<NDArray> y = m.run({x});
//
// Passes (in order): constant folding, batch-norm folding, CSE, DCE, fusion.
// Each fused group becomes one tetune::Task (make_task, so equal groups
// share a workload key) and one JIT Kernel built from the Schedule returned by
// the `schedule_for` hook; kernels are shared between groups with equal keys.
// The default hook returns the simple CPU schedule (or the bare
// Schedule(outputs) with CompileOptions::plain_default_schedule) and counts
// the group as untuned; a tuned-log lookup plugs in by passing its own hook.
//
// Memory plan: intermediate values get buffers by liveness (greedy best fit,
// a buffer is free after its value's last reader ran); the plan reports the
// peak bytes with reuse against the no-reuse total. At run time every
// intermediate is released right after its last reader.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "workload/task.h"
#include "codegen/kernel.h"
#include "relay_import/dynamic_rows.h"
#include "relay_import/graph.h"
#include "relay_import/passes/fusion.h"
#include "schedule/schedule.h"

namespace tetune {
namespace relay {

using ScheduleFn = std::function<Schedule(const tetune::Task &)>;

struct CompileOptions {
  Target target;
  int threads = 1;                       // recorded in tasks
  FusionOptions fusion;
  bool fold_batch_norm = true;
  bool cse = true;
  bool plain_default_schedule = false;   // default hook: bare Schedule(outputs) instead of simple_cpu_schedule
  /** Schedule for a task (must be built on task.outputs). Unset = the default described above. */
  ScheduleFn schedule_for;
  /** Called for each task to say whether schedule_for's result counts as tuned (default: false when schedule_for is unset). */
  std::function<bool(const tetune::Task &)> is_tuned;
};

struct MemoryPlan {
  struct Slot {
    int value = -1;    // value id
    int buffer = -1;   // buffer index
    int64_t bytes = 0;
    int first = 0, last = 0;  // step (group index) that writes it / last reads it
  };
  std::vector<Slot> slots;              // one per intermediate value
  std::vector<int64_t> buffer_bytes;    // size of each buffer
  int64_t peak_bytes = 0;               // sum of buffer_bytes (with reuse)
  int64_t no_reuse_bytes = 0;           // sum of all intermediate sizes
  int64_t max_live_bytes = 0;           // largest sum of simultaneously live values (lower bound)
};

/** Liveness-based buffer assignment over groups in execution order. */
MemoryPlan plan_memory(const Graph &g, const std::vector<FusedGroup> &groups);

/**
 * The memory plan's greedy best fit, shared by plan_memory and the exporter:
 * among the buffers free at step `first` (busy_until[b] < first), the smallest
 * that holds `bytes`, else the largest (it grows least often); a new buffer
 * when none is free. Grows the chosen buffer to `bytes`, marks it busy until
 * step `last` and returns its index. Sizes in bytes.
 */
int assign_buffer(std::vector<int64_t> &buffer_bytes, std::vector<int> &busy_until, int64_t bytes, int first, int last);

struct CompileStats {
  int nodes_imported = 0, nodes_after_passes = 0;
  int folded_batch_norms = 0, cse_removed = 0, dce_removed = 0;
  int groups = 0, kernel_groups = 0, view_groups = 0;
  int unique_workloads = 0, kernels_built = 0;
  int untuned = 0, tuned = 0;
  double passes_s = 0, build_s = 0;
};

class CompiledModel {
 public:
  CompiledModel() = default;
  const Graph &graph() const { return graph_; }
  const std::vector<FusedGroup> &groups() const { return groups_; }
  const MemoryPlan &memory_plan() const { return plan_; }
  const CompileStats &stats() const { return stats_; }
  /** Names / shapes / dtypes of the graph inputs and outputs. */
  std::vector<std::string> input_names() const;
  std::vector<std::string> output_names() const;

  /**
   * Runs the model; inputs in graph-input order. Raises ShapeError naming the
   * input when a count, shape or dtype differs. An output with a
   * data-dependent extent (NonZero, NonMaxSuppression, ... see host_ops.h) is
   * trimmed to its real extent.
   */
  std::vector<NDArray> run(const std::vector<NDArray> &inputs) const;
  /** By name; raises ShapeError naming a missing or unknown input. */
  std::map<std::string, NDArray> run(const std::map<std::string, NDArray> &inputs) const;
  /** Per-group wall time (seconds) of the last run, in group order. */
  const std::vector<double> &last_group_times() const { return group_times_; }

  /** Graphviz of the fused graph (one box per group, edges labelled with shapes). */
  std::string to_dot() const;
  /** Human-readable summary (groups, tasks, workload keys, memory plan). */
  std::string summary() const;

 private:
  friend CompiledModel compile_model(Graph g, const CompileOptions &options);
  friend CompiledModel compile_groups_only(Graph g, const CompileOptions &options);
  Graph graph_;
  std::vector<FusedGroup> groups_;
  std::vector<std::shared_ptr<Kernel>> kernels_;  // per group (null for views)
  std::vector<std::vector<int>> release_after_;   // per group: values to free after it
  std::vector<DynamicAxis> dynamic_;               // per value: data-dependent axis (host_ops.h)
  MemoryPlan plan_;
  CompileStats stats_;
  mutable std::vector<double> group_times_;
};

/** Runs the graph passes in place (folding, BN folding, CSE, DCE); fills the pass counters of stats. */
void run_graph_passes(Graph &g, const CompileOptions &options, CompileStats *stats = nullptr);

/** Passes, fusion, task creation and kernel compilation. */
CompiledModel compile_model(Graph g, const CompileOptions &options = CompileOptions());
/** Passes, fusion and tasks without building kernels (for `tetune graph`). run() raises. */
CompiledModel compile_groups_only(Graph g, const CompileOptions &options = CompileOptions());

}  // namespace relay
}  // namespace tetune
