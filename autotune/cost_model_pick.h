// A schedule picked by a cost model without measuring anything: the model
// ranks the analytical seeds and random samples of a task's search space, and
// the best-scored candidate that builds is the pick (what `compile` uses for a
// task without a tuning record when a trained model is at hand; see
// autotune/default_schedule.h). The model is typically the shipped one
// (autotune/cost_model/shipped_model.h).
//
//   SearchSpace space(task);
//   auto pick = pick_by_cost_model(space, task, *model, 128, 1);
//   if (pick) Schedule s = space.schedule(pick->candidate);
//
// Features are autotune::features::schedule_features() of the built schedule
// with the task's threads, exactly as the tuner scores candidates
// (policy::PointCache::with_features), so a model trained on exported
// records (tools/cost_model_cmd.cc) ranks what it was trained on.
//
// Cost: building and featurizing a candidate takes a fraction of a
// millisecond (GEMM, conv); 128 samples stay far below one second per task.
#pragma once

#include <cstdint>
#include <optional>

#include "autotune/candidate.h"
#include "autotune/cost_model/cost_model.h"
#include "autotune/search_space/search_space.h"
#include "workload/task.h"

namespace tetune {
namespace autotune {

struct CostModelPick {
  Candidate candidate;     ///< the best-scored candidate; space.schedule(candidate) builds
  double score = 0;        ///< the model's score of it (only comparable with other scores of the same model)
  int ranked = 0;          ///< distinct candidates scored (those that built and featurized)
  bool from_seed = false;  ///< the pick is one of space.seeds()
  int seed_index = -1;     ///< its index in space.seeds() when from_seed, else -1
};

/**
 * Ranks space.seeds() and `samples` random samples (space.sample with
 * std::mt19937_64(seed)) of task's space with `model`, and returns the
 * best-scored candidate whose schedule builds (space.schedule(c) does not
 * throw). Duplicates are scored once; a tie keeps the earlier candidate
 * (seeds first, then samples in drawing order). std::nullopt when no
 * candidate could be scored or the model is not trained. Deterministic for
 * equal inputs. Raises tetune::Error for samples < 0, and the model's
 * ShapeError when its feature length is not this build's.
 */
std::optional<CostModelPick> pick_by_cost_model(const SearchSpace &space, const Task &task,
                                                const cost_model::CostModel &model, int samples, std::uint64_t seed);

}  // namespace autotune
}  // namespace tetune
