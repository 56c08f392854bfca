// Registries of spaces, policies and cost models; PointCache and helpers.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

#include "autotune/cost_model/random_cost_model.h"
#include "autotune/cost_model/xgb_cost_model.h"
#include "autotune/features/features.h"
#include "autotune/policy/policy.h"
#include "autotune/policy/space.h"
#include "schedule/trace.h"
#include "base/errors.h"

namespace tetune {
namespace autotune {
namespace policy {

namespace {
template <typename F>
std::map<std::string, F> &registry() {
  static std::map<std::string, F> r;
  return r;
}
template <typename F>
std::string known(const std::map<std::string, F> &r) {
  std::string s;
  for (const auto &kv : r) s += (s.empty() ? "" : ", ") + kv.first;
  return s;
}
template <typename F>
std::vector<std::string> names(const std::map<std::string, F> &r) {
  std::vector<std::string> v;
  for (const auto &kv : r) v.push_back(kv.first);
  return v;
}

bool builtin_models = [] {
  register_cost_model("xgb", [](uint64_t seed) {
    cost_model::XGBCostModelOptions o;
    o.seed = seed;
    o.num_rounds = 60;
    return std::unique_ptr<cost_model::CostModel>(new cost_model::XGBCostModel(o));
  });
  register_cost_model("random", [](uint64_t seed) {
    return std::unique_ptr<cost_model::CostModel>(new cost_model::RandomCostModel(seed));
  });
  return true;
}();
}  // namespace

std::vector<int64_t> divisors_up_to(int64_t n, int64_t cap) {
  std::vector<int64_t> d;
  for (int64_t i = 1; i <= std::min(n, cap); i++)
    if (n % i == 0) d.push_back(i);
  return d;
}

std::string steps_key(const std::vector<Step> &steps) {
  std::string s;
  for (const auto &st : steps) s += to_string(st) + "\n";
  return s;
}

bool register_space(const std::string &name, SpaceFactory f) {
  registry<SpaceFactory>()[name] = std::move(f);
  return true;
}
std::unique_ptr<Space> make_space(const std::string &name, const Task &task) {
  auto &r = registry<SpaceFactory>();
  auto it = r.find(name);
  if (it == r.end()) throw Error("unknown search space '" + name + "' (known: " + known(r) + ")");
  return it->second(task);
}
std::vector<std::string> space_names() { return names(registry<SpaceFactory>()); }
std::string default_space_name() { return registry<SpaceFactory>().count("ansor") ? "ansor" : "basic"; }

bool register_policy(const std::string &name, PolicyFactory f) {
  registry<PolicyFactory>()[name] = std::move(f);
  return true;
}
std::unique_ptr<SearchPolicy> make_policy(const std::string &name, const PolicyContext &ctx) {
  auto &r = registry<PolicyFactory>();
  auto it = r.find(name);
  if (it == r.end()) throw Error("unknown search policy '" + name + "' (known: " + known(r) + ")");
  return it->second(ctx);
}
std::vector<std::string> policy_names() { return names(registry<PolicyFactory>()); }

bool register_cost_model(const std::string &name, CostModelFactory f) {
  registry<CostModelFactory>()[name] = std::move(f);
  return true;
}
std::unique_ptr<cost_model::CostModel> make_cost_model(const std::string &name, uint64_t seed) {
  (void)builtin_models;
  auto &r = registry<CostModelFactory>();
  auto it = r.find(name);
  if (it == r.end()) throw Error("unknown cost model '" + name + "' (known: " + known(r) + ")");
  return it->second(seed);
}
std::vector<std::string> cost_model_names() { return names(registry<CostModelFactory>()); }

const PointInfo &PointCache::info(const Candidate &p) {
  std::string k = p.key();
  auto it = cache_.find(k);
  if (it != cache_.end()) return it->second;
  PointInfo in;
  try {
    in.built = space_.schedule(p);
    if (in.built) {
      in.steps = in.built->trace();
    } else {
      in.steps = space_.steps(p);
      in.built = std::make_shared<const Schedule>(replay(task_.outputs, in.steps));
    }
    in.steps_key = steps_key(in.steps);
    in.valid = true;
  } catch (const Error &e) {
    in.valid = false;
    in.error = e.what();
  }
  return cache_.emplace(k, std::move(in)).first->second;
}

const PointInfo &PointCache::with_features(const Candidate &p) {
  const PointInfo &c = info(p);
  if (!c.valid || c.has_features) return c;
  PointInfo &in = cache_[p.key()];
  try {
    in.features = features::schedule_features(in.built ? *in.built : replay(task_.outputs, in.steps), task_);
    lowered_++;
  } catch (const Error &e) {
    in.valid = false;
    in.error = e.what();
    in.features.assign(features::kNumFeatures, 0.0f);
  }
  in.has_features = true;
  in.built.reset();  // thousands of points are cached: keep their steps, not their schedules
  return in;
}

bool PolicyContext::fresh(const Candidate &p) const {
  const PointInfo &in = cache->info(p);
  return in.valid && (!measured || !measured->count(in.steps_key));
}

std::vector<double> PolicyContext::scores(const std::vector<Candidate> &pts) const {
  std::vector<double> out(pts.size(), 0.0);
  if (!model || !model->trained()) {
    for (size_t i = 0; i < pts.size(); i++)
      if (!cache->info(pts[i]).valid) out[i] = -std::numeric_limits<double>::infinity();
    return out;
  }
  std::vector<std::vector<float>> rows;
  std::vector<size_t> idx;
  for (size_t i = 0; i < pts.size(); i++) {
    const PointInfo &in = cache->with_features(pts[i]);
    if (!in.valid) {
      out[i] = -std::numeric_limits<double>::infinity();
      continue;
    }
    rows.push_back(in.features);
    idx.push_back(i);
  }
  if (!rows.empty()) {
    auto s = model->predict(rows);
    for (size_t j = 0; j < idx.size(); j++) out[idx[j]] = s[j];
  }
  return out;
}

std::vector<size_t> pick_spread(const std::vector<std::string> &families, int n, int cap) {
  std::vector<size_t> out;
  std::vector<bool> used(families.size(), false);
  std::map<std::string, int> per;
  for (size_t i = 0; i < families.size() && static_cast<int>(out.size()) < n; i++)
    if (per[families[i]] < cap) per[families[i]]++, used[i] = true, out.push_back(i);
  for (size_t i = 0; i < families.size() && static_cast<int>(out.size()) < n; i++)
    if (!used[i]) out.push_back(i);
  return out;
}

std::vector<size_t> pick_novel(const std::vector<std::string> &families, const std::map<std::string, int> &tried, int n,
                               int top) {
  std::vector<std::tuple<int, size_t>> best;  // (trials of the family, index of its best candidate)
  std::set<std::string> seen;
  for (size_t i = 0; i < families.size() && static_cast<int>(i) < top; i++) {
    if (!seen.insert(families[i]).second) continue;
    auto it = tried.find(families[i]);
    best.emplace_back(it == tried.end() ? 0 : it->second, i);
  }
  std::sort(best.begin(), best.end());
  std::vector<size_t> out;
  for (size_t k = 0; k < best.size() && static_cast<int>(out.size()) < n; k++) out.push_back(std::get<1>(best[k]));
  return out;
}

std::vector<Candidate> sample_fresh(const PolicyContext &ctx, std::mt19937_64 &rng, int n, std::set<std::string> *taken,
                                int tries) {
  std::vector<Candidate> out;
  if (tries <= 0) tries = 20 * n + 50;
  for (int t = 0; t < tries && static_cast<int>(out.size()) < n; t++) {
    Candidate p = ctx.space->sample(rng);
    if (!ctx.fresh(p)) continue;
    const std::string &k = ctx.cache->info(p).steps_key;
    if (taken && !taken->insert(k).second) continue;
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace policy
}  // namespace autotune
}  // namespace tetune
