// The shipped cost model: an XGBCostModel trained offline on the datasets in
// autotune/cost_model/data/ (records measured on more than one CPU), shipped
// as autotune/cost_model/shipped/xgb.json, the booster alone (no training rows). `compile --cost-model shipped`
// ranks the candidates of a task without a tuning record with it
// (autotune/cost_model_pick.h). Retrain: tools/train_cost_model.sh.
//
// It is found the way the shipped tuning log is (tuning_logs/log_paths.h),
// in order: $TETUNE_COST_MODEL (set but empty: no shipped model); the
// runfiles of the running binary (a data dependency on
// //autotune/cost_model:shipped_model_files); autotune/cost_model/shipped/xgb.json
// in a directory above the binary (the repository, an install prefix);
// $BUILD_WORKSPACE_DIRECTORY/autotune/cost_model/shipped/xgb.json.
#pragma once

#include <memory>
#include <string>

#include "autotune/cost_model/cost_model.h"

namespace tetune {
namespace cost_model {

/** The shipped model's path (symbolic links resolved), or "" when none is found. */
std::string shipped_cost_model_path();

/**
 * Loads the shipped model (an XGBCostModel, one XGBoost thread). Returns
 * nullptr and says why in *reason (when given) when it is not found, does not
 * load, is untrained, or was trained on feature rows of another length than
 * this build computes (autotune/features/features.h): the caller prints the
 * reason, there is no silent fallback.
 */
std::unique_ptr<CostModel> load_shipped_cost_model(std::string *reason = nullptr);

}  // namespace cost_model
}  // namespace tetune
