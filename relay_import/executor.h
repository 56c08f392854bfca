// Graph compiler + executor (JIT path).
//
//   Graph g = import_onnx(path, opts);
//   CompiledModel m = compile_model(std::move(g));   // passes, fusion, kernels
//   std::vector<NDArray> y = m.run({x});
//
// Passes (in order): constant folding, layer-norm fusion, batch-norm folding, Gemm weight layout,
// channel-scale folding, blocked layout (NCHW[b]c conv chains), CSE, DCE, fusion.
// Each fused group becomes one tetune::Task (make_task, so equal groups
// share a workload key) and one JIT Kernel built from the ScheduleChoice
// returned by the `schedule_for` hook; kernels are shared between groups with
// equal keys, and so is the choice. The default hook is
// autotune::default_schedule(task, CompileOptions::untuned) (the cost model's
// pick, or the analytical default; the bare Schedule(outputs) with
// CompileOptions::plain_default_schedule); a tuning-log lookup plugs in by
// passing its own hook (relay_import/tuned_schedules.h). CompileStats counts
// groups and tasks per ScheduleSource and lists each task's source and detail.
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

#include "autotune/default_schedule.h"
#include "workload/task.h"
#include "codegen/kernel.h"
#include "relay_import/conv_forms.h"
#include "relay_import/dynamic_rows.h"
#include "relay_import/graph.h"
#include "relay_import/passes/fusion.h"
#include "schedule/schedule.h"
#include "schedule/schedule_choice.h"

namespace tetune {
namespace relay {

/** A task's schedule and where it came from; the schedule must be built on task.outputs. */
using ScheduleFn = std::function<ScheduleChoice(const tetune::Task &)>;

struct CompileOptions {
  Target target;
  int threads = 1;                       // recorded in tasks
  FusionOptions fusion;
  /** BatchNormalization at inference: folded into the conv before it, else a Mul and an Add (passes/batch_norm_folding.h). */
  bool fold_batch_norm = true;
  /** A layer norm written out as ReduceMean, Sub, Pow... becomes one LayerNormalization (passes/layer_norm_fusion.h). */
  bool fuse_layer_norm = true;
  /** Conv(x * s, W) with s a per-channel scale -> Conv(x, W * s) (passes/channel_scale_folding.h). */
  bool fold_channel_scales = true;
  /**
   * Convolution chains in NCHW[b]c, b = channel_block(target) (passes/blocked_layout.h);
   * false keeps every tensor NCHW.
   */
  bool blocked_layout = true;
  /**
   * With blocked_layout: 3x3 stride-1 convs by Winograd F(2x2, 3x3) (passes/winograd.h);
   * false keeps the direct conv (its exact rounding and NaN / inf propagation).
   */
  bool winograd = true;
  /**
   * A constant that a kernel's schedule copies into panels at root is packed
   * once, here (packed_weights.h); false: the kernel packs it on every call, as
   * onnxruntime's session.disable_prepacking does.
   */
  bool prepack_weights = true;
  /**
   * Each task of a kernel's parallel loop prefetches the next task's panels
   * of the prepacked constants (BuildOptions::prefetch_packed,
   * codegen/next_task_prefetch.h); false: no software prefetch. The tuner
   * measures kernels with it.
   */
  bool prefetch_packed = true;
  /** Subnormal float constants become zeros (passes/denormal_weights.h); false keeps them. */
  bool flush_subnormal_weights = true;
  bool cse = true;
  bool plain_default_schedule = false;   // default hook: bare Schedule(outputs) instead of autotune::default_schedule
  /** The default hook's options (cost model, candidates, seed); the default: the analytical default. */
  autotune::DefaultScheduleOptions untuned;
  /** Schedule of a task, with its source. Unset = default_choice(task, *this). */
  ScheduleFn schedule_for;
  /**
   * The time (ms per run) of the record a task's schedule comes from, NaN when
   * it has none measured on this machine (set with schedule_for by
   * use_tuned_schedules). Set, with winograd, each eligible conv takes the
   * faster of its direct and Winograd forms by these times (conv_forms.h).
   */
  std::function<double(const tetune::Task &)> record_ms;
  /** CompileStats::conv_forms (the tasks of both forms) also without record_ms: tuning tunes both. */
  bool list_conv_forms = false;
  /**
   * Each eligible conv takes the form its record times do not favour (Winograd
   * where direct is faster, else direct), so that both forms of every conv can
   * be timed inside the model (model_tuning/in_model_pick.h); never for a
   * deployment.
   */
  bool other_conv_forms = false;
};

/**
 * The graph layouts a user picks (`--layout`, Python layout=), in this order:
 * "blocked" (the default: NCHW[b]c, 3x3 stride-1 convs by Winograd), "blocked-direct"
 * (NCHW[b]c, every conv direct: the direct conv's exact rounding), "nchw" (the model's own layout).
 */
const std::vector<std::string> &layout_names();
/** Sets co.blocked_layout and co.winograd for a layout name; UsageError naming it when it is none of layout_names(). */
void set_layout(CompileOptions &co, const std::string &layout);

/**
 * The default hook: the bare Schedule(task.outputs) (source Analytical) with
 * plain_default_schedule, else autotune::default_schedule(task, options.untuned).
 */
ScheduleChoice default_choice(const tetune::Task &task, const CompileOptions &options);
/** options.schedule_for(task) when set, else default_choice(task, options). */
ScheduleChoice choose_schedule(const tetune::Task &task, const CompileOptions &options);

/** Counts per ScheduleSource. */
struct SourceCounts {
  int record = 0, cost_model = 0, analytical = 0;
  int &operator[](ScheduleSource s);
  int operator[](ScheduleSource s) const;
  int total() const { return record + cost_model + analytical; }
};

/** How one task (unique workload key) got its schedule. */
struct TaskSchedule {
  std::string group;          // the first group of the task (its task name)
  std::string workload_key;
  int groups = 1;             // kernel groups sharing the task
  ScheduleSource source = ScheduleSource::Analytical;
  std::string detail;         // ScheduleChoice::detail
};

/**
 * One line per task, in order: "  NAME  SOURCE  DETAIL" (columns aligned;
 * NAME gets " (xN)" when N groups share it); "" for no tasks.
 */
std::string format_task_schedules(const std::vector<TaskSchedule> &tasks);
/** "N record, N cost model, N analytical". */
std::string format_source_counts(const SourceCounts &counts);

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
  int folded_batch_norms = 0, folded_channel_scales = 0, cse_removed = 0, dce_removed = 0;
  int affine_batch_norms = 0;                     // batch norms no conv output feeds alone: Mul + Add
  int fused_layer_norms = 0;                      // passes/layer_norm_fusion.h
  int transposes_as_views = 0;                    // passes/unit_axis_transpose.h
  int blocked_convs = 0, layout_transforms = 0;  // passes/blocked_layout.h
  int winograd_convs = 0, winograd_f4_convs = 0;  // passes/winograd.h: all, and those by F(4x4)
  std::vector<ConvForms> conv_forms;             // with record_ms or list_conv_forms: each eligible conv's two forms
  int64_t flushed_subnormals = 0;                 // passes/denormal_weights.h
  int prepacked_weights = 0;                      // constants packed once for their kernels (packed_weights.h)
  int64_t prepacked_bytes = 0;
  int groups = 0, kernel_groups = 0, view_groups = 0;
  int unique_workloads = 0, kernels_built = 0;
  SourceCounts group_sources;            // kernel groups by the source of their kernel's schedule
  SourceCounts task_sources;             // unique tasks (kernels built) by source
  std::vector<TaskSchedule> task_schedules;  // per unique task, in build order (empty for compile_groups_only)
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
/** The passes run_graph_passes ends with, after the layout ones: subnormal flush, CSE, DCE. */
void run_cleanup_passes(Graph &g, const CompileOptions &options, CompileStats *stats = nullptr);

/** Passes, fusion, task creation and kernel compilation. */
CompiledModel compile_model(Graph g, const CompileOptions &options = CompileOptions());
/** Passes, fusion and tasks without building kernels (for `tetune graph`). run() raises. */
CompiledModel compile_groups_only(Graph g, const CompileOptions &options = CompileOptions());

}  // namespace relay
}  // namespace tetune
