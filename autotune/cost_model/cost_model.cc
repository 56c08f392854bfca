#include "autotune/cost_model/cost_model.h"

#include <algorithm>
#include <cmath>

#include "base/errors.h"

namespace tetune {
namespace cost_model {

std::size_t check_feature_rows(const std::vector<std::vector<float>>& features,
                               const std::string& who) {
  if (features.empty()) return 0;
  const std::size_t len = features[0].size();
  for (std::size_t i = 1; i < features.size(); ++i) {
    if (features[i].size() != len) {
      throw ShapeError(who + ": feature row " + std::to_string(i) +
                       " has length " + std::to_string(features[i].size()) +
                       ", expected " + std::to_string(len) +
                       " (the length of row 0)");
    }
  }
  return len;
}

std::size_t check_update_batch(const std::vector<std::vector<float>>& features,
                               const std::vector<double>& throughputs,
                               const std::string& who) {
  if (features.size() != throughputs.size()) {
    throw ShapeError(who + ": " + std::to_string(features.size()) +
                     " feature rows but " + std::to_string(throughputs.size()) +
                     " throughputs");
  }
  const std::size_t len = check_feature_rows(features, who);
  for (std::size_t i = 0; i < throughputs.size(); ++i) {
    const double t = throughputs[i];
    if (!std::isfinite(t) || t < 0) {
      throw Error(who + ": throughput of record " + std::to_string(i) +
                  " is " + std::to_string(t) +
                  "; throughputs must be finite and >= 0");
    }
  }
  return len;
}

std::vector<float> normalise_throughputs(const std::vector<double>& throughputs) {
  double mx = 0;
  for (double t : throughputs) mx = std::max(mx, t);
  std::vector<float> out(throughputs.size(), 0.0f);
  if (mx > 0) {
    for (std::size_t i = 0; i < throughputs.size(); ++i) {
      out[i] = static_cast<float>(throughputs[i] / mx);
    }
  }
  return out;
}

}  // namespace cost_model
}  // namespace tetune
