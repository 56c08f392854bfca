// RandomCostModel: the trivial baseline. Scores are i.i.d. uniform in [0, 1).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "autotune/cost_model/cost_model.h"

namespace tetune {
namespace cost_model {

/** Uniform random scores from a seeded std::mt19937_64, so a run is
 *  reproducible for a given seed and call sequence. update() only validates
 *  its input (it learns nothing); trained() is always false because the scores
 *  carry no information. save() writes the seed; load() restores it and
 *  restarts the random stream. */
class RandomCostModel : public CostModel {
 public:
  explicit RandomCostModel(std::uint64_t seed = 0);

  void update(const std::vector<std::vector<float>>& features,
              const std::vector<double>& throughputs) override;
  std::vector<double> predict(
      const std::vector<std::vector<float>>& features) const override;
  void save(const std::string& path) const override;
  void load(const std::string& path) override;
  std::string name() const override { return "random"; }
  bool trained() const override { return false; }

  std::uint64_t seed() const { return seed_; }

 private:
  std::uint64_t seed_;
  mutable std::mt19937_64 rng_;
};

}  // namespace cost_model
}  // namespace tetune
