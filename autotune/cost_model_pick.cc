#include "autotune/cost_model_pick.h"

#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "autotune/features/features.h"
#include "base/errors.h"

namespace tetune {
namespace autotune {

std::optional<CostModelPick> pick_by_cost_model(const SearchSpace &space, const Task &task,
                                                const cost_model::CostModel &model, int samples, std::uint64_t seed) {
  if (samples < 0) throw Error("pick_by_cost_model: samples must be >= 0, got " + std::to_string(samples));
  if (!model.trained()) return std::nullopt;

  struct Scored {
    Candidate candidate;
    int seed_index;  // -1 for a sample
  };
  std::vector<Scored> built;
  std::vector<std::vector<float>> rows;
  std::set<std::string> seen;
  auto consider = [&](Candidate c, int seed_index) {
    if (!seen.insert(c.key()).second) return;
    try {
      Schedule s = space.schedule(c);
      rows.push_back(features::schedule_features(s, task));
    } catch (const Error &) {
      return;  // does not build (or its loop nest cannot be featurized): not a pick
    }
    built.push_back({std::move(c), seed_index});
  };

  std::vector<Candidate> seeds = space.seeds();
  for (size_t i = 0; i < seeds.size(); i++) consider(seeds[i], static_cast<int>(i));
  std::mt19937_64 rng(seed);
  for (int i = 0; i < samples; i++) consider(space.sample(rng), -1);
  if (rows.empty()) return std::nullopt;

  std::vector<double> scores = model.predict(rows);
  int best = -1;
  for (size_t i = 0; i < scores.size(); i++)
    if (std::isfinite(scores[i]) && (best < 0 || scores[i] > scores[best])) best = static_cast<int>(i);
  if (best < 0) return std::nullopt;

  CostModelPick p;
  p.candidate = built[best].candidate;
  p.score = scores[best];
  p.ranked = static_cast<int>(built.size());
  p.seed_index = built[best].seed_index;
  p.from_seed = p.seed_index >= 0;
  return p;
}

}  // namespace autotune
}  // namespace tetune
