#include "autotune/cost_model/shipped_model.h"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <vector>

#include "autotune/cost_model/xgb_cost_model.h"
#include "autotune/features/features.h"
#include "base/errors.h"
#include "base/package_data.h"

namespace tetune {
namespace cost_model {
namespace {

constexpr const char *kShippedRelative = "autotune/cost_model/shipped/xgb.json";

}  // namespace

std::string shipped_cost_model_path() {
  if (const char *v = std::getenv("TETUNE_COST_MODEL")) return v;  // "" turns it off
  return find_package_data(kShippedRelative);
}

std::unique_ptr<CostModel> load_shipped_cost_model(std::string *reason) {
  auto why = [&](const std::string &r) {
    if (reason) *reason = r;
    return std::unique_ptr<CostModel>();
  };
  const std::string path = shipped_cost_model_path();
  if (path.empty()) {
    if (const char *v = std::getenv("TETUNE_COST_MODEL"); v && !*v)
      return why("no shipped cost model: TETUNE_COST_MODEL is set but empty");
    return why(std::string("no shipped cost model: ") + kShippedRelative +
               " was not found next to the binary, in its runfiles or in $BUILD_WORKSPACE_DIRECTORY "
               "(set TETUNE_COST_MODEL to its path)");
  }
  auto model = std::make_unique<XGBCostModel>();
  try {
    model->load(path);
  } catch (const Error &e) {
    return why("shipped cost model " + path + " does not load: " + e.what());
  }
  if (!model->trained()) return why("shipped cost model " + path + " is untrained");
  if (model->num_features() != static_cast<size_t>(autotune::features::kNumFeatures))
    return why("shipped cost model " + path + " was trained on " + std::to_string(model->num_features()) +
               " features, this build computes " + std::to_string(autotune::features::kNumFeatures) +
               ": retrain it with tools/train_cost_model.sh");
  return model;
}

}  // namespace cost_model
}  // namespace tetune
