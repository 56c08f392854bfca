#include "autotune/default_schedule.h"

#include <optional>

#include "autotune/cost_model_pick.h"
#include "autotune/search_space/search_space.h"
#include "base/errors.h"
#include "schedules/default_schedule.h"
#include "schedules/gpu_schedules.h"

namespace tetune {
namespace autotune {

namespace {
// Halide 14 mis-lowers some integer DAGs once their casts are inlined into a
// vectorized, unrolled accumulator (int32(u8) - int32(zero point) became an
// addition in ONNX MatMulInteger), and an untuned schedule is never checked
// against the reference: integer tiled stages keep the elementwise default,
// which the search's measured (and checked) records replace.
bool all_float(const Task &task) {
  const Schedule dag(task.outputs);  // named: a range-for over a temporary's member would dangle
  for (const auto &st : dag.stages())
    if (st.kind == StageInfo::Compute && !st.tensor->dtype.is_float()) return false;
  return true;
}

// The elementwise default's vector width: the target's fp32 lanes (16 on
// AVX-512, whose NCHW16c channel blocks a pool then reads in one vector), 8
// where the target does not say.
int elementwise_lanes(const Task &task) {
  const int lanes = task.target.vector_unit().lanes;
  return lanes > 0 ? lanes : 8;
}

// The analytical default of a CPU task whose stages are all floating point.
ScheduleChoice analytical_float_schedule(const Task &task) {
  std::string why = "no analytical seed for this DAG";
  try {
    SearchSpace space(task);
    std::vector<Candidate> seeds = space.seeds();
    if (!seeds.empty())
      return {space.schedule(seeds.front()), ScheduleSource::Analytical,
              "analytical seed 1 of " + std::to_string(seeds.size()) + " (" + space.family(seeds.front()) + ")"};
  } catch (const Error &e) {
    why = std::string("no search space: ") + e.what();  // the elementwise default covers every DAG
  }
  return {schedules::simple_cpu_schedule(task.outputs, elementwise_lanes(task), task.threads), ScheduleSource::Analytical,
          "elementwise default (" + why + ")"};
}

// The analytical default, or the reason there is none to rank (GPU, integer stages).
std::optional<ScheduleChoice> unrankable(const Task &task) {
  if (task.target.is_gpu()) return ScheduleChoice{gpu_simple_schedule(task.outputs), ScheduleSource::Analytical, "GPU default"};
  if (!all_float(task))
    return ScheduleChoice{schedules::simple_cpu_schedule(task.outputs, 8, task.threads), ScheduleSource::Analytical,
                          "elementwise default (integer stages: no analytical seed)"};
  return std::nullopt;
}
}  // namespace

ScheduleChoice analytical_schedule(const Task &task) {
  if (auto c = unrankable(task)) return *c;
  return analytical_float_schedule(task);
}

ScheduleChoice default_schedule(const Task &task, const DefaultScheduleOptions &options) {
  if (auto c = unrankable(task)) return *c;
  if (!options.cost_model) return analytical_float_schedule(task);
  std::string why;
  if (!options.cost_model->trained()) {
    why = "the cost model is not trained";
  } else {
    try {
      SearchSpace space(task);
      auto pick = pick_by_cost_model(space, task, *options.cost_model, options.candidates, options.seed);
      if (pick) {
        std::string from = pick->from_seed ? "analytical seed " + std::to_string(pick->seed_index + 1)
                                           : std::string("a random sample");
        return {space.schedule(pick->candidate), ScheduleSource::CostModel,
                "cost model: " + from + ", best of " + std::to_string(pick->ranked) + " ranked (" +
                    space.family(pick->candidate) + ")"};
      }
      why = "no candidate of the search space could be scored";
    } catch (const Error &e) {
      why = e.what();
    }
  }
  ScheduleChoice a = analytical_float_schedule(task);
  a.detail += "; not ranked: " + why;
  return a;
}

}  // namespace autotune
}  // namespace tetune
