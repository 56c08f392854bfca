// XGBCostModel: gradient-boosted trees trained with a pairwise ranking
// objective on measured records, as in Ansor (Zheng et al., OSDI 2020,
// section 5.2) and AutoTVM's XGBoost cost model.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "autotune/cost_model/cost_model.h"

namespace tetune {
namespace cost_model {

/** Hyper-parameters of XGBCostModel. The defaults retrain on a few thousand
 *  records in well under a second on one core. */
struct XGBCostModelOptions {
  int num_rounds = 80;           ///< boosting rounds per retrain
  int max_depth = 6;
  double eta = 0.2;              ///< learning rate
  double min_child_weight = 1.0;
  int nthread = 1;               ///< XGBoost threads (training, DMatrix build, predict)
  std::uint64_t seed = 42;       ///< XGBoost "seed"
  std::string tree_method = "hist";
};

/** XGBoost booster (gbtree, objective rank:pairwise) behind the CostModel
 *  interface, via the XGBoost C API.
 *
 *  Training: every update() call appends its records as one query group
 *  (labels = throughput / max throughput of that call, see cost_model.h) to the
 *  stored training set, then retrains a fresh booster from scratch on all
 *  stored groups for options.num_rounds rounds. Pairs are only formed inside a
 *  group, so callers should pass one task's records per update() call.
 *
 *  Prediction: raw ranking margins (higher = faster). Before the first
 *  non-empty update() (or after loading an untrained model) trained() is false
 *  and predict() returns all zeros, so the caller can fall back to random
 *  exploration explicitly. Feature rows must have the length the model was
 *  trained with, otherwise tetune::ShapeError.
 *
 *  Persistence: save(path) writes the booster as XGBoost JSON to `path` and
 *  the training records (raw throughputs, group sizes, features, bit-exact) to
 *  the sidecar `path + ".rows"`; load(path) restores both, so predictions are
 *  identical and later update() calls keep the old records. Hyper-parameters
 *  are not saved: the loading instance's options apply to later retrains. An
 *  untrained model writes only the sidecar. A model file without its sidecar
 *  (the shipped one) loads as the booster alone: it predicts, and a later
 *  update() trains on the new records only.
 *
 *  Every XGBoost C API failure raises tetune::Error carrying XGBGetLastError().
 *  Not thread-safe; the object is movable, not copyable. */
class XGBCostModel : public CostModel {
 public:
  struct BoosterDeleter { void operator()(void* h) const; };
  using BoosterPtr = std::unique_ptr<void, BoosterDeleter>;

  explicit XGBCostModel(XGBCostModelOptions options = XGBCostModelOptions());
  ~XGBCostModel() override;
  XGBCostModel(XGBCostModel&&) noexcept;
  XGBCostModel& operator=(XGBCostModel&&) noexcept;
  XGBCostModel(const XGBCostModel&) = delete;
  XGBCostModel& operator=(const XGBCostModel&) = delete;

  void update(const std::vector<std::vector<float>>& features,
              const std::vector<double>& throughputs) override;
  /** One query group of update_groups(): one task's records. */
  struct Group {
    std::vector<std::vector<float>> features;
    std::vector<double> throughputs;
  };
  /** Appends every group, then retrains once (update() is this with one
   *  group): offline training on many tasks' records without one retrain per
   *  task. Checks and errors as update(); nothing is appended on an error. */
  void update_groups(const std::vector<Group>& groups);

  std::vector<double> predict(
      const std::vector<std::vector<float>>& features) const override;
  void save(const std::string& path) const override;
  void load(const std::string& path) override;
  std::string name() const override { return "xgb"; }
  bool trained() const override;

  /** Stored training records (all groups). */
  std::size_t num_records() const { return throughputs_.size(); }
  /** Stored query groups (one per non-empty update()). */
  std::size_t num_groups() const { return group_sizes_.size(); }
  /** Feature length fixed by the first record; 0 while there is none. */
  std::size_t num_features() const { return num_features_; }
  const XGBCostModelOptions& options() const { return options_; }

  /** Sidecar path used by save()/load() for `path`. */
  static std::string rows_path(const std::string& path) { return path + ".rows"; }

 private:

  /** Trains a fresh booster on the stored records; the current one is kept
   *  if training throws. */
  void retrain();

  XGBCostModelOptions options_;
  std::size_t num_features_ = 0;
  std::vector<float> rows_;           ///< row-major, num_records() x num_features_
  std::vector<double> throughputs_;   ///< raw, as passed to update()
  std::vector<unsigned> group_sizes_;
  BoosterPtr booster_;
};

}  // namespace cost_model
}  // namespace tetune
