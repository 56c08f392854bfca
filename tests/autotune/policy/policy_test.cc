// Policies on a small GEMM, and the XGB cost model's ranking on held-out records.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <set>

#include "tests/autotune/gemm_task.h"
#include "autotune/cost_model/ranking_metrics.h"
#include "autotune/features/features.h"
#include "autotune/measure/record_store.h"
#include "autotune/policy/policy.h"
#include "autotune/tuner.h"
#include "schedule/trace.h"
#include "base/errors.h"

namespace tetune {
namespace autotune {
namespace {

using testing::gemm_task;

TuneOptions fast(const std::string &db, const std::string &policy, int trials) {
  TuneOptions o;
  o.trials = trials;
  o.batch_size = 8;
  o.policy = policy;
  o.db_path = db;
  o.seed = 7;
  o.population = 48;
  o.generations = 3;
  o.measure.min_repeat_ms = 3;
  o.measure.repeat = 3;
  return o;
}

TEST(Policy, RegistryKnowsBuiltins) {
  auto p = policy::policy_names();
  for (const char *n : {"random", "annealing", "evolutionary"})
    EXPECT_NE(std::find(p.begin(), p.end(), n), p.end()) << n;
  EXPECT_THROW(policy::make_cost_model("nope", 0), Error);
  EXPECT_NO_THROW(policy::make_cost_model("xgb", 0));
}

TEST(Policy, PickSpreadCapsEachFamilyFirst) {
  std::vector<std::string> fam = {"a", "a", "a", "b", "a", "c"};
  EXPECT_EQ(policy::pick_spread(fam, 4, 2), (std::vector<size_t>{0, 1, 3, 5}));
  // Once every family is at its cap, the rest follow in rank order.
  EXPECT_EQ(policy::pick_spread(fam, 6, 2), (std::vector<size_t>{0, 1, 3, 5, 2, 4}));
  EXPECT_EQ(policy::pick_spread(fam, 2, 1), (std::vector<size_t>{0, 3}));
  EXPECT_TRUE(policy::pick_spread({}, 3, 1).empty());
}

TEST(Policy, PickNovelPrefersPromisingFamiliesMeasuredLeast) {
  //                              0    1    2    3    4    5    6
  std::vector<std::string> fam = {"a", "b", "a", "c", "d", "b", "e"};
  std::map<std::string, int> tried = {{"a", 30}, {"b", 2}, {"c", 5}, {"e", 0}};
  // Within the first 5 ranks: a (30 trials), b (2), c (5), d (never measured); e ranks too low.
  EXPECT_EQ(policy::pick_novel(fam, tried, 2, 5), (std::vector<size_t>{4, 1}));
  EXPECT_EQ(policy::pick_novel(fam, tried, 9, 5), (std::vector<size_t>{4, 1, 3, 0}));
  EXPECT_EQ(policy::pick_novel(fam, tried, 3, 7), (std::vector<size_t>{4, 6, 1}));  // ties: better rank first
  EXPECT_TRUE(policy::pick_novel(fam, tried, 0, 7).empty());
}

// The basic space with two of its points offered as analytical seeds.
class SeededSpace : public policy::Space {
 public:
  explicit SeededSpace(const Task &t) : base_(policy::make_space("basic", t)) {
    std::mt19937_64 rng(11);
    while (seeds_.size() < 2) {
      Candidate p = base_->sample(rng);
      if (seeds_.empty() || p.key() != seeds_[0].key()) seeds_.push_back(p);
    }
  }
  std::string name() const override { return "seeded"; }
  Candidate sample(std::mt19937_64 &rng) const override { return base_->sample(rng); }
  Candidate mutate(const Candidate &p, std::mt19937_64 &rng) const override { return base_->mutate(p, rng); }
  Candidate crossover(const Candidate &a, const Candidate &b, std::mt19937_64 &rng) const override {
    return base_->crossover(a, b, rng);
  }
  std::vector<Step> steps(const Candidate &p) const override { return base_->steps(p); }
  std::vector<Candidate> seeds() const override { return seeds_; }

 private:
  std::unique_ptr<policy::Space> base_;
  std::vector<Candidate> seeds_;
};

// Evolutionary search measures the space's seeds first, once: the first
// batch starts with them, later batches hold no seed (measured or not).
TEST(Policy, EvolutionaryMeasuresTheSeedsFirst) {
  Task t = gemm_task(96);
  SeededSpace space(t);
  policy::PointCache cache(t, space);
  std::set<std::string> measured;
  auto model = policy::make_cost_model("xgb", 1);
  policy::PolicyContext ctx;
  ctx.task = &t;
  ctx.space = &space;
  ctx.cache = &cache;
  ctx.model = model.get();
  ctx.measured = &measured;
  ctx.seed = 3;
  ctx.population = 16;
  auto p = policy::make_policy("evolutionary", ctx);
  auto seeds = space.seeds();
  auto first = p->next_batch(6);
  ASSERT_EQ(first.size(), 6u);
  for (size_t i = 0; i < seeds.size(); i++) EXPECT_EQ(first[i].key(), seeds[i].key()) << i;
  for (const auto &x : first) measured.insert(cache.info(x).steps_key);
  for (int b = 0; b < 3; b++)
    for (const auto &x : p->next_batch(6))
      for (const auto &s : seeds) EXPECT_NE(x.key(), s.key()) << "batch " << b + 2;
}

TEST(Policy, EvolutionaryAtLeastAsGoodAsRandom) {
  Task t = gemm_task(96);
  std::string dir = std::getenv("TEST_TMPDIR");
  TuneResult rnd = tune(t, fast(dir + "/rnd.db", "random", 40));
  TuneResult evo = tune(t, fast(dir + "/evo.db", "evolutionary", 40));
  TuneResult sa = tune(t, fast(dir + "/sa.db", "annealing", 24));
  std::printf("gemm96 best GFLOP/s after 40 trials: random %.2f evolutionary %.2f (annealing, 24 trials: %.2f)\n",
              rnd.best_gflops, evo.best_gflops, sa.best_gflops);
  EXPECT_GT(sa.best_gflops, 0);
  // Loose: timing noise on a shared 2-core machine.
  EXPECT_GE(evo.best_gflops, 0.8 * rnd.best_gflops);

  // Cost model: train on 2/3 of the random-search records, Kendall tau on the rest.
  RecordStore st(dir + "/rnd.db", t.workload_key, t.name, "{}", 1);
  auto recs = st.records();
  std::vector<std::vector<float>> x;
  std::vector<double> y;
  for (const auto &r : recs) {
    x.push_back(features::schedule_features(replay(t.outputs, trace_from_json(r.schedule_json, t.outputs)), t));
    y.push_back(r.ok() ? r.gflops : 0.0);
  }
  size_t cut = x.size() * 2 / 3;
  auto m = policy::make_cost_model("xgb", 1);
  m->update({x.begin(), x.begin() + cut}, {y.begin(), y.begin() + cut});
  auto pred = m->predict({x.begin() + cut, x.end()});
  double tau = cost_model::kendall_tau(pred, {y.begin() + cut, y.end()});
  std::printf("xgb kendall tau on %zu held-out records: %.3f\n", x.size() - cut, tau);
  EXPECT_GT(tau, 0);
}

}  // namespace
}  // namespace autotune
}  // namespace tetune
