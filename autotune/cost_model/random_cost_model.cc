#include "autotune/cost_model/random_cost_model.h"

#include <fstream>
#include <sstream>

#include "base/errors.h"

namespace tetune {
namespace cost_model {

namespace {
const char kMagic[] = "tetune-random-cost-model";
}

RandomCostModel::RandomCostModel(std::uint64_t seed) : seed_(seed), rng_(seed) {}

void RandomCostModel::update(const std::vector<std::vector<float>>& features,
                             const std::vector<double>& throughputs) {
  check_update_batch(features, throughputs, "RandomCostModel::update");
}

std::vector<double> RandomCostModel::predict(
    const std::vector<std::vector<float>>& features) const {
  check_feature_rows(features, "RandomCostModel::predict");
  std::uniform_real_distribution<double> dist(0.0, 1.0);
  std::vector<double> out(features.size());
  for (double& s : out) s = dist(rng_);
  return out;
}

void RandomCostModel::save(const std::string& path) const {
  std::ofstream f(path, std::ios::trunc);
  if (!f) throw Error("RandomCostModel::save: cannot open '" + path + "' for writing");
  f << kMagic << " v1\nseed " << seed_ << "\n";
  f.flush();
  if (!f) throw Error("RandomCostModel::save: write to '" + path + "' failed");
}

void RandomCostModel::load(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw Error("RandomCostModel::load: cannot open '" + path + "'");
  std::string magic, version, key;
  std::uint64_t seed = 0;
  if (!(f >> magic >> version >> key >> seed) || magic != kMagic ||
      version != "v1" || key != "seed") {
    throw ParseError("RandomCostModel::load: '" + path +
                     "' is not a tetune random cost model file");
  }
  seed_ = seed;
  rng_.seed(seed);
}

}  // namespace cost_model
}  // namespace tetune
