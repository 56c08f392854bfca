#include "autotune/policy/gpu_reduction_params.h"

#include <algorithm>
#include <numeric>

#include "base/errors.h"

namespace tetune {
namespace autotune {
namespace policy {

namespace {

constexpr int64_t kThreads = 1024, kTile = 4096, kMaxVthread = 8, kMaxInner = 16, kMaxReduceLevel = 16, kReduceStep = 128;

// What is left of the budgets for the axes not drawn yet.
struct Budget {
  int64_t threads = kThreads, tile = kTile, step = kReduceStep;
};

// A divisor of n no larger than cap (>= 1), uniformly.
int64_t pick_divisor(int64_t n, int64_t cap, std::mt19937_64 &rng) {
  std::vector<int64_t> ds = divisors_up_to(n, cap);
  if (ds.empty()) return 1;
  return ds[std::uniform_int_distribution<size_t>(0, ds.size() - 1)(rng)];
}

int64_t param(const Candidate &p, const std::string &name) {
  auto it = p.params.find(name);
  return it == p.params.end() ? 1 : it->second;
}

void draw_spatial(const std::string &a, int64_t extent, Budget &b, Candidate &p, std::mt19937_64 &rng) {
  int64_t inner = pick_divisor(extent, std::min(kMaxInner, b.tile), rng);
  int64_t thread = pick_divisor(extent / inner, std::min(b.threads, b.tile / inner), rng);
  int64_t vthread = pick_divisor(extent / (inner * thread), std::min(kMaxVthread, b.tile / (inner * thread)), rng);
  p.params[a + ".inner"] = inner;
  p.params[a + ".thread"] = thread;
  p.params[a + ".vthread"] = vthread;
  b.threads = std::max<int64_t>(1, b.threads / thread);
  b.tile = std::max<int64_t>(1, b.tile / (inner * thread * vthread));
}

void draw_reduce(const std::string &a, int64_t extent, Budget &b, Candidate &p, std::mt19937_64 &rng) {
  int64_t inner = pick_divisor(extent, std::min(kMaxReduceLevel, b.step), rng);
  int64_t mid = pick_divisor(extent / inner, std::min(kMaxReduceLevel, b.step / inner), rng);
  p.params[a + ".inner"] = inner;
  p.params[a + ".mid"] = mid;
  b.step = std::max<int64_t>(1, b.step / (inner * mid));
}

// The budgets left by every axis of p except `skip` (an index into spatial then reduce axes).
Budget left_by_others(const GpuReductionNest &nest, const Candidate &p, size_t skip) {
  Budget b;
  for (size_t i = 0; i < nest.spatial.size(); i++) {
    if (i == skip) continue;
    const std::string &a = nest.spatial[i].first;
    int64_t t = param(p, a + ".thread"), tile = t * param(p, a + ".inner") * param(p, a + ".vthread");
    b.threads = std::max<int64_t>(1, b.threads / std::max<int64_t>(1, t));
    b.tile = std::max<int64_t>(1, b.tile / std::max<int64_t>(1, tile));
  }
  for (size_t k = 0; k < nest.reduce.size(); k++) {
    if (nest.spatial.size() + k == skip) continue;
    const std::string &a = nest.reduce[k].first;
    b.step = std::max<int64_t>(1, b.step / std::max<int64_t>(1, param(p, a + ".mid") * param(p, a + ".inner")));
  }
  return b;
}

}  // namespace

Candidate sample_reduction_point(const GpuReductionNest &nest, std::mt19937_64 &rng) {
  Candidate p;
  p.sketch = 2;
  Budget b;
  // A random order, so that no axis always gets the first pick of the threads.
  std::vector<size_t> order(nest.spatial.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  for (size_t i : order) draw_spatial(nest.spatial[i].first, nest.spatial[i].second, b, p, rng);
  order.resize(nest.reduce.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  for (size_t k : order) draw_reduce(nest.reduce[k].first, nest.reduce[k].second, b, p, rng);
  return p;
}

Candidate mutate_reduction_point(const GpuReductionNest &nest, const Candidate &p, std::mt19937_64 &rng) {
  Candidate q = p;
  size_t n = nest.spatial.size() + nest.reduce.size();
  size_t i = std::uniform_int_distribution<size_t>(0, n - 1)(rng);
  Budget b = left_by_others(nest, p, i);
  if (i < nest.spatial.size()) draw_spatial(nest.spatial[i].first, nest.spatial[i].second, b, q, rng);
  else draw_reduce(nest.reduce[i - nest.spatial.size()].first, nest.reduce[i - nest.spatial.size()].second, b, q, rng);
  return q;
}

Candidate crossover_reduction_points(const GpuReductionNest &nest, const Candidate &a, const Candidate &b, std::mt19937_64 &rng) {
  Candidate c = a;
  auto take = [&](const std::string &axis, std::initializer_list<const char *> levels) {
    if (!std::uniform_int_distribution<int>(0, 1)(rng)) return;
    for (const char *l : levels) c.params[axis + l] = param(b, axis + l);
  };
  for (const auto &[axis, e] : nest.spatial) take(axis, {".vthread", ".thread", ".inner"});
  for (const auto &[axis, e] : nest.reduce) take(axis, {".mid", ".inner"});
  return c;
}

GpuReductionTiles reduction_tiles(const GpuReductionNest &nest, const Candidate &p) {
  auto get = [&](const std::string &name) {
    auto it = p.params.find(name);
    if (it == p.params.end()) throw ScheduleError("gpu space: point " + p.key() + " lacks parameter '" + name + "'");
    return it->second;
  };
  GpuReductionTiles t;
  for (const auto &[axis, e] : nest.spatial)
    t.spatial[axis] = GpuSpatialSplit{get(axis + ".vthread"), get(axis + ".thread"), get(axis + ".inner")};
  for (const auto &[axis, e] : nest.reduce) t.reduce[axis] = GpuReduceSplit{get(axis + ".mid"), get(axis + ".inner")};
  return t;
}

}  // namespace policy
}  // namespace autotune
}  // namespace tetune
