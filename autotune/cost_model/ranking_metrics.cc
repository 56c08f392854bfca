#include "autotune/cost_model/ranking_metrics.h"

#include <cmath>
#include <limits>
#include <string>

#include "base/errors.h"

namespace tetune {
namespace cost_model {

namespace {

void check_inputs(const std::vector<double>& a, const std::vector<double>& b,
                  const char* who, const char* name_a, const char* name_b) {
  if (a.size() != b.size()) {
    throw ShapeError(std::string(who) + ": '" + name_a + "' has " + std::to_string(a.size()) +
                     " elements but '" + name_b + "' has " + std::to_string(b.size()));
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i])) throw Error(std::string(who) + ": '" + name_a + "'[" + std::to_string(i) + "] is NaN");
    if (std::isnan(b[i])) throw Error(std::string(who) + ": '" + name_b + "'[" + std::to_string(i) + "] is NaN");
  }
}

int sign(double d) { return (d > 0) - (d < 0); }

}  // namespace

double kendall_tau(const std::vector<double>& a, const std::vector<double>& b) {
  check_inputs(a, b, "kendall_tau", "a", "b");
  const std::size_t n = a.size();
  // n_0 - n_1 = pairs not tied in a; n_0 - n_2 = pairs not tied in b.
  long double concordant = 0, discordant = 0, untied_a = 0, untied_b = 0;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      const int sa = sign(a[i] - a[j]);
      const int sb = sign(b[i] - b[j]);
      if (sa != 0) untied_a += 1;
      if (sb != 0) untied_b += 1;
      const int s = sa * sb;
      if (s > 0) concordant += 1;
      else if (s < 0) discordant += 1;
    }
  }
  if (untied_a == 0 || untied_b == 0) return std::numeric_limits<double>::quiet_NaN();
  return static_cast<double>((concordant - discordant) / std::sqrt(untied_a * untied_b));
}

double pairwise_accuracy(const std::vector<double>& predicted,
                         const std::vector<double>& actual) {
  check_inputs(predicted, actual, "pairwise_accuracy", "predicted", "actual");
  const std::size_t n = predicted.size();
  long double pairs = 0, score = 0;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      const int sa = sign(actual[i] - actual[j]);
      if (sa == 0) continue;
      pairs += 1;
      const int sp = sign(predicted[i] - predicted[j]);
      if (sp == sa) score += 1;
      else if (sp == 0) score += 0.5L;
    }
  }
  if (pairs == 0) return std::numeric_limits<double>::quiet_NaN();
  return static_cast<double>(score / pairs);
}

}  // namespace cost_model
}  // namespace tetune
