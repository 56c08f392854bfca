// SimulatedAnnealing (AutoTVM's SA model optimizer): parallel chains walk the
// space by mutation; a move is accepted when the cost model scores it higher,
// or with probability exp(delta / T) otherwise, T falling linearly to 0. The
// best-scored fresh points seen are returned, plus an epsilon share of random
// samples. Chains start from the best measured points (mutated) and random
// samples. Without a trained model it returns random samples.
#include <algorithm>
#include <cmath>
#include <map>

#include "autotune/policy/policy.h"

namespace tetune {
namespace autotune {
namespace policy {
namespace {

class SimulatedAnnealing : public SearchPolicy {
 public:
  explicit SimulatedAnnealing(const PolicyContext &ctx) : ctx_(ctx), rng_(ctx.seed) {}
  std::string name() const override { return "annealing"; }

  std::vector<Candidate> next_batch(int n) override {
    std::set<std::string> taken;
    if (!ctx_.model || !ctx_.model->trained()) return sample_fresh(ctx_, rng_, n, &taken);
    int chains = std::max(8, ctx_.population / 2);
    std::vector<Candidate> cur;
    for (size_t i = 0; i < best_.size() && static_cast<int>(cur.size()) < chains / 2; i++)
      cur.push_back(ctx_.space->mutate(best_[i].point, rng_));
    while (static_cast<int>(cur.size()) < chains) cur.push_back(ctx_.space->sample(rng_));
    std::vector<double> sc = ctx_.scores(cur);
    // Temperature scale: spread of the initial scores.
    double lo = 1e300, hi = -1e300;
    for (double s : sc)
      if (std::isfinite(s)) { lo = std::min(lo, s); hi = std::max(hi, s); }
    double scale = (hi > lo) ? hi - lo : 1.0;
    std::map<std::string, std::pair<double, Candidate>> seen;  // steps_key -> best score
    auto record = [&](const Candidate &p, double s) {
      if (!std::isfinite(s) || !ctx_.fresh(p)) return;
      const std::string &k = ctx_.cache->info(p).steps_key;
      if (!seen.count(k)) seen.emplace(k, std::make_pair(s, p));
    };
    for (size_t i = 0; i < cur.size(); i++) record(cur[i], sc[i]);
    int steps = std::max(1, ctx_.generations * 5);
    std::uniform_real_distribution<double> U(0, 1);
    for (int t = 0; t < steps; t++) {
      double T = scale * 0.5 * (1.0 - static_cast<double>(t) / steps) + 1e-9;
      std::vector<Candidate> next;
      for (const auto &p : cur) next.push_back(ctx_.space->mutate(p, rng_));
      std::vector<double> ns = ctx_.scores(next);
      for (size_t i = 0; i < cur.size(); i++) {
        record(next[i], ns[i]);
        if (!std::isfinite(ns[i])) continue;
        if (ns[i] >= sc[i] || U(rng_) < std::exp((ns[i] - sc[i]) / T)) {
          cur[i] = next[i];
          sc[i] = ns[i];
        }
      }
    }
    std::vector<std::pair<double, Candidate>> ranked;
    for (auto &kv : seen) ranked.push_back(kv.second);
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    int n_model = n - static_cast<int>(std::round(ctx_.epsilon * n));
    std::vector<Candidate> out;
    for (auto &r : ranked) {
      if (static_cast<int>(out.size()) >= n_model) break;
      if (taken.insert(ctx_.cache->info(r.second).steps_key).second) out.push_back(r.second);
    }
    auto extra = sample_fresh(ctx_, rng_, n - static_cast<int>(out.size()), &taken);
    out.insert(out.end(), extra.begin(), extra.end());
    return out;
  }

  void notify(const std::vector<Outcome> &results) override {
    for (const auto &r : results)
      if (r.ok) best_.push_back(r);
    std::stable_sort(best_.begin(), best_.end(), [](const Outcome &a, const Outcome &b) { return a.gflops > b.gflops; });
    if (best_.size() > 64) best_.resize(64);
  }

 private:
  PolicyContext ctx_;
  std::mt19937_64 rng_;
  std::vector<Outcome> best_;
};

bool registered =
    register_policy("annealing", [](const PolicyContext &c) { return std::make_unique<SimulatedAnnealing>(c); });

}  // namespace
}  // namespace policy
}  // namespace autotune
}  // namespace tetune
