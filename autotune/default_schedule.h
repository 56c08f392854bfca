// The schedule of a task that no measured record covers: what `compile` uses
// before (or without) tuning, and what the search measures first.
//
//   autotune::DefaultScheduleOptions o;
//   o.cost_model = model.get();           // null: the analytical default only
//   ScheduleChoice c = autotune::default_schedule(task, o);
//   // c.source: CostModel (ranked, not measured) or Analytical
//
// Analytical default (no measurement, no model): the task's search space
// (autotune/search_space/search_space.h) builds its analytical seeds from the
// shape and the target (vector width, register file, threads): GEMM and
// batched matmul blocked as in BLIS (Low et al., ACM TOMS 43(2), 2016),
// convolutions as a channel-vectorized direct register block (Georganas et
// al., SC 2018), depthwise convs and other reductions as vectors along the
// last axis; the first seed is the default. A task without a seed
// (elementwise and injective chains, pooling, reductions without data reuse)
// gets schedules::simple_cpu_schedule: inlined, vectorized, parallel over the
// outer fused axes with a grain that keeps every thread busy. So does a task
// with integer stages (quantized ops: Halide 14 mis-lowers their inlined casts
// in a vectorized accumulator, and an untuned schedule is never checked
// against the reference). A CUDA task gets schedules::gpu_simple_schedule.
//
// Cost-model default: the model ranks the seeds and `candidates` random
// samples of the space (autotune/cost_model_pick.h) and the best-ranked one is
// compiled; nothing runs. Falls back to the analytical default, saying so in
// ScheduleChoice::detail, when the space has no candidate the model can score.
#pragma once

#include <cstdint>

#include "autotune/cost_model/cost_model.h"
#include "schedule/schedule_choice.h"
#include "workload/task.h"

namespace tetune {
namespace autotune {

struct DefaultScheduleOptions {
  /** Ranks unmeasured candidates (not owned; must outlive the call). Null: the analytical default. */
  const cost_model::CostModel *cost_model = nullptr;
  /** Random samples of the search space ranked beside the analytical seeds. */
  int candidates = 128;
  /** Seed of the samples: the same task, model and seed give the same schedule. */
  std::uint64_t seed = 1;
};

/** The analytical default of `task` (source Analytical). Raises ScheduleError only for an unschedulable DAG. */
ScheduleChoice analytical_schedule(const Task &task);

/** The cost model's pick when options.cost_model is set and trained, else analytical_schedule(task). */
ScheduleChoice default_schedule(const Task &task, const DefaultScheduleOptions &options = DefaultScheduleOptions());

}  // namespace autotune
}  // namespace tetune
