// Adapter: the rule-based SearchSpace (autotune/search_space/, Ansor-style
// sketches + random annotation) seen as a tuner policy::Space named "ansor".
//
// policy::Point and search_space Candidate carry the same data (a sketch index
// plus named integer parameters), so the mapping is field by field. Linking
// this library (//autotune:ansor_space, alwayslink) registers the space, and
// policy::default_space_name() then answers "ansor"; "basic" stays registered.
//
// from_steps() recovers a point only for schedules this process produced from
// a point (the SearchSpace cannot invert steps in general); records of earlier
// runs still train the cost model (tuner.cc does that from their features).
#include <memory>
#include <mutex>
#include <unordered_map>

#include "autotune/policy/space.h"
#include "autotune/search_space/search_space.h"

namespace tetune {
namespace autotune {
namespace policy {

namespace {

Candidate to_candidate(const Point &p) {
  Candidate c;
  c.sketch = p.sketch;
  c.params = p.params;
  return c;
}

Point to_point(const Candidate &c) {
  Point p;
  p.sketch = c.sketch;
  p.params = c.params;
  return p;
}

class AnsorSpace : public Space {
 public:
  explicit AnsorSpace(const Task &task) : space_(task) {}

  std::string name() const override { return "ansor"; }
  Point sample(std::mt19937_64 &rng) const override { return to_point(space_.sample(rng)); }
  Point mutate(const Point &p, std::mt19937_64 &rng) const override {
    return to_point(space_.mutate(to_candidate(p), rng));
  }
  Point crossover(const Point &a, const Point &b, std::mt19937_64 &rng) const override {
    return to_point(space_.crossover(to_candidate(a), to_candidate(b), rng));
  }
  std::string family(const Point &p) const override { return space_.family(to_candidate(p)); }
  std::vector<Point> seeds() const override {
    std::vector<Point> out;
    for (const auto &c : space_.seeds()) out.push_back(to_point(c));
    return out;
  }
  std::vector<Step> steps(const Point &p) const override { return schedule(p)->trace(); }
  std::shared_ptr<const Schedule> schedule(const Point &p) const override {
    auto s = std::make_shared<const Schedule>(space_.schedule(to_candidate(p)));
    std::lock_guard<std::mutex> lk(mu_);
    seen_.emplace(steps_key(s->trace()), p);
    return s;
  }
  std::optional<Point> from_steps(const std::vector<Step> &steps) const override {
    std::lock_guard<std::mutex> lk(mu_);
    auto it = seen_.find(steps_key(steps));
    if (it == seen_.end()) return std::nullopt;
    return it->second;
  }

 private:
  SearchSpace space_;
  mutable std::mutex mu_;
  mutable std::unordered_map<std::string, Point> seen_;
};

bool registered = register_space("ansor", [](const Task &task) { return std::unique_ptr<Space>(new AnsorSpace(task)); });

}  // namespace

}  // namespace policy
}  // namespace autotune
}  // namespace tetune
