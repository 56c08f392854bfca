// Cost models for the auto-tuner: predict a score per schedule candidate from
// a fixed-length feature vector, in the spirit of Ansor (Zheng et al., OSDI
// 2020, section 5.2).
//
// Conventions shared by every CostModel:
//  * A feature matrix is a std::vector of rows, one row per candidate. All rows
//    of a call have the same length; a row of another length raises
//    tetune::ShapeError naming the row index and both lengths
//    (see check_feature_rows()).
//  * A higher predicted score means a faster candidate. Scores are only
//    comparable with each other (they rank candidates); they are not
//    throughputs.
//  * Throughputs passed to update() are "bigger is better" measurements, e.g.
//    GFLOP/s or 1/ms. They must be finite and >= 0 (0 = the candidate failed).
//    One update() call is one group of candidates of one task; a learning
//    model normalises the group's throughputs by dividing by the group's
//    maximum (so the best candidate of the group has label 1, and a group
//    whose maximum is 0 gets all labels 0). This makes records of tasks with
//    very different absolute speeds comparable.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tetune {
namespace cost_model {

/** Abstract cost model. Not thread-safe: callers serialise calls on one
 *  instance. */
class CostModel {
 public:
  virtual ~CostModel() = default;

  /** Adds one group of measured records (one task) and retrains.
   *  features.size() must equal throughputs.size(); an empty batch is a no-op.
   *  Raises tetune::ShapeError on mismatched sizes/row lengths, tetune::Error
   *  on a negative or non-finite throughput. */
  virtual void update(const std::vector<std::vector<float>>& features,
                      const std::vector<double>& throughputs) = 0;

  /** One score per row; higher = predicted faster. A model for which
   *  trained() is false returns scores that carry no information (zeros for
   *  learning models), so callers should fall back to random exploration. */
  virtual std::vector<double> predict(
      const std::vector<std::vector<float>>& features) const = 0;

  /** Writes the model to `path` (implementations may add sidecar files next
   *  to it, named path + suffix). Raises tetune::Error on I/O failure. */
  virtual void save(const std::string& path) const = 0;

  /** Replaces this model's state with the one saved at `path`. Raises
   *  tetune::Error (tetune::ParseError for malformed content). */
  virtual void load(const std::string& path) = 0;

  /** Short identifier, e.g. "xgb" or "random". */
  virtual std::string name() const = 0;

  /** True when predict() returns informative scores. */
  virtual bool trained() const = 0;
};

/** Checks that all rows have the same length and returns it (0 for an empty
 *  matrix). Raises tetune::ShapeError naming the first offending row, e.g.
 *  "<who>: feature row 3 has length 5, expected 6 (the length of row 0)". */
std::size_t check_feature_rows(const std::vector<std::vector<float>>& features,
                               const std::string& who);

/** Checks an update() batch: equal counts, equal row lengths, throughputs
 *  finite and >= 0. Returns the row length. Raises tetune::ShapeError or
 *  tetune::Error naming the record index. */
std::size_t check_update_batch(const std::vector<std::vector<float>>& features,
                               const std::vector<double>& throughputs,
                               const std::string& who);

/** Per-group normalisation used for training: throughput / max(throughputs),
 *  or all zeros when the maximum is 0. Expects a checked batch. */
std::vector<float> normalise_throughputs(const std::vector<double>& throughputs);

}  // namespace cost_model
}  // namespace tetune
