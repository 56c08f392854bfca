// Search policies: which candidates to measure next.
//
//   auto p = make_policy("evolutionary", ctx);
//   for (...) { auto batch = p->next_batch(16); ...measure...; p->notify(outcomes); }
//
// Policies: "random" (RandomSearch), "annealing" (SimulatedAnnealing, AutoTVM
// style, guided by the cost model), "evolutionary" (EvolutionarySearch, Ansor
// 5.1). Every policy returns candidates that are valid (their steps replay and
// lower), distinct from each other and not yet measured (ctx.measured), as far
// as it can find them; it may return fewer than n when the space runs dry.
// Policies and cost models are registered by name; a researcher adds one by
// calling register_policy() / register_cost_model() from a static
// initialiser in a linked library (alwayslink).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "autotune/cost_model/cost_model.h"
#include "autotune/policy/space.h"
#include "workload/task.h"

namespace tetune {
namespace autotune {
namespace policy {

/** Per-point derived data, computed once and cached by Candidate::key(). */
struct PointInfo {
  bool valid = false;            // steps replay and the schedule lowers
  std::vector<Step> steps;
  std::string steps_key;         // steps_key(steps)
  std::vector<float> features;   // features::schedule_features (when computed)
  bool has_features = false;
  std::shared_ptr<const Schedule> built;  // the schedule (as the space built it, or replayed), kept until the features are taken
  std::string error;             // why it is invalid
};

/** Caches steps / validity / features of points. */
class PointCache {
 public:
  PointCache(const Task &task, const Space &space) : task_(task), space_(space) {}
  /** Steps and replay validity (cheap; no lowering). */
  const PointInfo &info(const Candidate &p);
  /** info() plus features (lowers without JIT; a failure to lower makes the point invalid). */
  const PointInfo &with_features(const Candidate &p);
  size_t lowered() const { return lowered_; }

 private:
  const Task &task_;
  const Space &space_;
  std::unordered_map<std::string, PointInfo> cache_;
  size_t lowered_ = 0;
};

/** What a policy can use. Pointers stay owned by the tuner and outlive the policy. */
struct PolicyContext {
  const Task *task = nullptr;
  const Space *space = nullptr;
  PointCache *cache = nullptr;
  cost_model::CostModel *model = nullptr;        // may be untrained (then policies explore randomly)
  const std::set<std::string> *measured = nullptr;  // steps_key of every measured schedule
  uint64_t seed = 0;
  double epsilon = 0.1;   // share of each batch sampled at random (evolutionary / annealing)
  // Evolutionary population / annealing chains. Cheap (features come from the
  // schedule state, features/schedule_nest.h): 512 x 4 generations took 4 s of
  // a 244 s GEMM 2048 run of 192 trials. Ansor's default is 2048.
  int population = 512;
  int generations = 4;    // evolutionary generations / annealing steps per batch (x 10)

  /** Not measured yet (by steps key), and valid. */
  bool fresh(const Candidate &p) const;
  /** Cost-model scores of points (invalid ones: -inf); all 0 if the model is untrained. */
  std::vector<double> scores(const std::vector<Candidate> &pts) const;
};

/** One measured candidate, as reported to notify(). */
struct Outcome {
  Candidate point;
  bool ok = false;
  double gflops = 0;  // 0 when failed
};

class SearchPolicy {
 public:
  virtual ~SearchPolicy() = default;
  virtual std::string name() const = 0;
  /** Up to n new candidates to measure. */
  virtual std::vector<Candidate> next_batch(int n) = 0;
  /** Measurements of candidates (of this run or loaded from the database on resume). */
  virtual void notify(const std::vector<Outcome> &results) = 0;
};

using PolicyFactory = std::function<std::unique_ptr<SearchPolicy>(const PolicyContext &)>;
bool register_policy(const std::string &name, PolicyFactory f);
/** Raises Error naming the known policies when the name is unknown. */
std::unique_ptr<SearchPolicy> make_policy(const std::string &name, const PolicyContext &ctx);
std::vector<std::string> policy_names();

using CostModelFactory = std::function<std::unique_ptr<cost_model::CostModel>(uint64_t seed)>;
bool register_cost_model(const std::string &name, CostModelFactory f);
/** "xgb" and "random" are built in. Raises Error for an unknown name. */
std::unique_ptr<cost_model::CostModel> make_cost_model(const std::string &name, uint64_t seed);
std::vector<std::string> cost_model_names();

/**
 * Picks up to n of `families.size()` ranked candidates (best first, given by
 * their family) so that no family gets more than `cap` while others are left:
 * first the best of each family up to cap, in rank order; then the rest in rank
 * order if fewer than n were picked. Returns their indices in pick order.
 * (Niching, to keep an evolutionary search from spending a batch on one class.)
 */
std::vector<size_t> pick_spread(const std::vector<std::string> &families, int n, int cap);
/**
 * Optimism for families the measurements have hardly seen: among the families
 * whose best candidate ranks in the first `top` of the ranked candidates
 * (`families` best first), the n with the fewest measured trials (`tried`;
 * ties: better rank first), each given by the index of its best candidate.
 * A cost model trained on a few bad samples of a family otherwise never ranks
 * it first again, however good its best members (measured on GEMM 2048: about
 * 10 of 192 trials went to accumulators at the register block, the structure
 * of a schedule that runs in 57 ms against 64 ms for the best one found).
 */
std::vector<size_t> pick_novel(const std::vector<std::string> &families, const std::map<std::string, int> &tried, int n,
                               int top);

/** Samples up to n fresh, distinct points (at most `tries` samples). */
std::vector<Candidate> sample_fresh(const PolicyContext &ctx, std::mt19937_64 &rng, int n, std::set<std::string> *taken,
                                int tries = 0);

}  // namespace policy
}  // namespace autotune
}  // namespace tetune
