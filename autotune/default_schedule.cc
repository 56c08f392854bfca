#include "autotune/default_schedule.h"

#include "autotune/search_space/search_space.h"
#include "base/errors.h"
#include "schedules/default_schedule.h"
#include "schedules/gpu_schedules.h"

namespace tetune {
namespace autotune {

ScheduleChoice analytical_schedule(const Task &task) {
  if (task.target.is_gpu()) return {gpu_simple_schedule(task.outputs), ScheduleSource::Analytical, "GPU default"};
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
  return {schedules::simple_cpu_schedule(task.outputs, 8, task.threads), ScheduleSource::Analytical,
          "elementwise default (" + why + ")"};
}

ScheduleChoice default_schedule(const Task &task, const DefaultScheduleOptions &options) {
  (void)options;  // cost-model ranking: autotune/cost_model_pick.h (wired when it lands)
  return analytical_schedule(task);
}

}  // namespace autotune
}  // namespace tetune
