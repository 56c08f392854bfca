// EvolutionarySearch (Ansor, Zheng et al. OSDI 2020, section 5.1).
//
// Each batch: the initial population is the best measured points (up to 30%
// of it) plus random samples; for `generations` rounds, parents are chosen
// with probability proportional to their rank under the cost model, children
// come from mutation (80%) or crossover (20%); the population is the best of
// parents + children by predicted score. The batch is the top predicted fresh,
// distinct points seen during the whole evolution, (1 - epsilon) of it, with
// at most a quarter of those from one family (Space::family: sketch, register
// block shape, accumulator level; measured on GEMM 2048, the search otherwise
// spent 130 of 192 trials on 4x32 blocks and 26 on 8x32, whose best schedule
// is 17% faster), after a sixth of them went to the best candidates of
// promising families measured least (pick_novel: optimism under uncertainty,
// as in UCB bandits); the rest are random samples (epsilon-greedy
// exploration). Without a trained cost model, the whole batch is random.
// The first batch starts with the space's analytical seeds (Space::seeds:
// for GEMM-like stages, Low et al.'s register and cache blocking), which the
// population then holds among the best measured points.
#include <algorithm>
#include <cmath>
#include <map>

#include "autotune/policy/policy.h"

namespace tetune {
namespace autotune {
namespace policy {
namespace {

class EvolutionarySearch : public SearchPolicy {
 public:
  explicit EvolutionarySearch(const PolicyContext &ctx) : ctx_(ctx), rng_(ctx.seed) {}
  std::string name() const override { return "evolutionary"; }

  std::vector<Candidate> next_batch(int n) override {
    std::set<std::string> taken;
    std::vector<Candidate> out = unmeasured_seeds(n, taken);
    std::vector<Candidate> rest = evolve(n - static_cast<int>(out.size()), taken);
    out.insert(out.end(), rest.begin(), rest.end());
    return out;
  }

  void notify(const std::vector<Outcome> &results) override {
    for (const auto &r : results) {
      tried_[ctx_.space->family(r.point)]++;
      if (r.ok) best_.push_back(r);
    }
    std::stable_sort(best_.begin(), best_.end(), [](const Outcome &a, const Outcome &b) { return a.gflops > b.gflops; });
    if (best_.size() > 64) best_.resize(64);
  }

 private:
  // The space's analytical seeds not measured yet, once per run (the first batch).
  std::vector<Candidate> unmeasured_seeds(int n, std::set<std::string> &taken) {
    std::vector<Candidate> out;
    if (seeded_) return out;
    seeded_ = true;
    for (const Candidate &p : ctx_.space->seeds())
      if (static_cast<int>(out.size()) < n && ctx_.fresh(p) && taken.insert(ctx_.cache->info(p).steps_key).second)
        out.push_back(p);
    return out;
  }

  std::vector<Candidate> evolve(int n, std::set<std::string> &taken) {
    if (n <= 0) return {};
    if (!ctx_.model || !ctx_.model->trained()) return sample_fresh(ctx_, rng_, n, &taken);
    const int P = std::max(8, ctx_.population);
    std::vector<Candidate> pop;
    for (size_t i = 0; i < best_.size() && static_cast<int>(pop.size()) < P * 3 / 10; i++) pop.push_back(best_[i].point);
    for (int t = 0; static_cast<int>(pop.size()) < P && t < 20 * P; t++) {
      Candidate p = ctx_.space->sample(rng_);
      if (ctx_.cache->info(p).valid) pop.push_back(std::move(p));
    }
    std::vector<double> sc = ctx_.scores(pop);
    std::map<std::string, std::pair<double, Candidate>> seen;
    auto record = [&](const Candidate &p, double s) {
      if (!std::isfinite(s) || !ctx_.fresh(p)) return;
      const std::string &k = ctx_.cache->info(p).steps_key;
      if (!seen.count(k)) seen.emplace(k, std::make_pair(s, p));
    };
    for (size_t i = 0; i < pop.size(); i++) record(pop[i], sc[i]);
    std::uniform_real_distribution<double> U(0, 1);
    for (int g = 0; g < ctx_.generations && !pop.empty(); g++) {
      // Rank-proportional parent selection.
      std::vector<size_t> idx(pop.size());
      for (size_t i = 0; i < idx.size(); i++) idx[i] = i;
      std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return sc[a] > sc[b]; });
      std::vector<double> w(pop.size());
      for (size_t r = 0; r < idx.size(); r++) w[idx[r]] = std::isfinite(sc[idx[r]]) ? static_cast<double>(idx.size() - r) : 0.0;
      std::discrete_distribution<size_t> pick(w.begin(), w.end());
      std::vector<Candidate> kids;
      for (int c = 0; c < P; c++) {
        const Candidate &a = pop[pick(rng_)];
        if (U(rng_) < 0.2) kids.push_back(ctx_.space->crossover(a, pop[pick(rng_)], rng_));
        else kids.push_back(ctx_.space->mutate(a, rng_));
      }
      std::vector<double> ks = ctx_.scores(kids);
      for (size_t i = 0; i < kids.size(); i++) record(kids[i], ks[i]);
      // Survivors: best P of parents + children (distinct keys).
      std::vector<std::pair<double, Candidate>> all;
      for (size_t i = 0; i < pop.size(); i++) all.emplace_back(sc[i], pop[i]);
      for (size_t i = 0; i < kids.size(); i++) all.emplace_back(ks[i], kids[i]);
      std::stable_sort(all.begin(), all.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
      std::set<std::string> keys;
      pop.clear();
      sc.clear();
      for (auto &e : all) {
        if (static_cast<int>(pop.size()) >= P) break;
        if (!std::isfinite(e.first) || !keys.insert(e.second.key()).second) continue;
        pop.push_back(e.second);
        sc.push_back(e.first);
      }
    }
    std::vector<std::pair<double, Candidate>> ranked;
    for (auto &kv : seen) ranked.push_back(kv.second);
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    int n_model = n - static_cast<int>(std::round(ctx_.epsilon * n));
    std::vector<std::string> fam;
    for (const auto &r : ranked) fam.push_back(ctx_.space->family(r.second));
    std::vector<Candidate> out;
    auto take = [&](size_t i) {
      if (static_cast<int>(out.size()) < n_model && taken.insert(ctx_.cache->info(ranked[i].second).steps_key).second)
        out.push_back(ranked[i].second);
    };
    // A sixth of the model's picks: the best of promising families measured least.
    for (size_t i : pick_novel(fam, tried_, n_model / 6, static_cast<int>(ranked.size()) / 4)) take(i);
    // The rest: at most a quarter per family, in rank order.
    for (size_t i : pick_spread(fam, static_cast<int>(ranked.size()), std::max(1, n_model / 4))) take(i);
    auto extra = sample_fresh(ctx_, rng_, n - static_cast<int>(out.size()), &taken);
    out.insert(out.end(), extra.begin(), extra.end());
    return out;
  }

  PolicyContext ctx_;
  std::mt19937_64 rng_;
  std::vector<Outcome> best_;
  std::map<std::string, int> tried_;  // measured trials per family
  bool seeded_ = false;
};

bool registered =
    register_policy("evolutionary", [](const PolicyContext &c) { return std::make_unique<EvolutionarySearch>(c); });

}  // namespace
}  // namespace policy
}  // namespace autotune
}  // namespace tetune
