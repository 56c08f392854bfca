#include "tuning_logs/records.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace tetune::tuning_log {
namespace {

bool same_double(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return a == b;
}

}  // namespace

bool same_record(const MeasureRecord &a, const MeasureRecord &b,
                 bool compare_id) {
  if (compare_id && a.id != b.id) return false;
  if (a.costs_ms.size() != b.costs_ms.size()) return false;
  for (size_t i = 0; i < a.costs_ms.size(); ++i) {
    if (!same_double(a.costs_ms[i], b.costs_ms[i])) return false;
  }
  return a.workload_key == b.workload_key && a.target_key == b.target_key &&
         a.schedule_json == b.schedule_json &&
         same_double(a.median_ms, b.median_ms) &&
         a.error_code == b.error_code && a.error_msg == b.error_msg &&
         same_double(a.gflops, b.gflops) &&
         a.timestamp_unix_ms == b.timestamp_unix_ms &&
         a.tuner_version == b.tuner_version && a.trial_index == b.trial_index;
}

double median_of(std::vector<double> values) {
  if (values.empty()) return std::numeric_limits<double>::infinity();
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  if (n % 2 == 1) return values[n / 2];
  return 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

int64_t now_unix_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch())
      .count();
}

}  // namespace tetune::tuning_log
