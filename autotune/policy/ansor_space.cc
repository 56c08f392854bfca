// Adapter: the rule-based SearchSpace (autotune/search_space/, Ansor-style
// sketches + random annotation) seen as a tuner policy::Space named "ansor".
//
// Both sides speak of the same Candidate (autotune/candidate.h). Linking
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

class AnsorSpace : public Space {
 public:
  explicit AnsorSpace(const Task &task) : space_(task) {}

  std::string name() const override { return "ansor"; }
  Candidate sample(std::mt19937_64 &rng) const override { return space_.sample(rng); }
  Candidate mutate(const Candidate &p, std::mt19937_64 &rng) const override { return space_.mutate(p, rng); }
  Candidate crossover(const Candidate &a, const Candidate &b, std::mt19937_64 &rng) const override {
    return space_.crossover(a, b, rng);
  }
  std::string family(const Candidate &p) const override { return space_.family(p); }
  std::vector<Candidate> seeds() const override { return space_.seeds(); }
  std::vector<Step> steps(const Candidate &p) const override { return schedule(p)->trace(); }
  std::shared_ptr<const Schedule> schedule(const Candidate &p) const override {
    auto s = std::make_shared<const Schedule>(space_.schedule(p));
    std::lock_guard<std::mutex> lk(mu_);
    seen_.emplace(steps_key(s->trace()), p);
    return s;
  }
  std::optional<Candidate> from_steps(const std::vector<Step> &steps) const override {
    std::lock_guard<std::mutex> lk(mu_);
    auto it = seen_.find(steps_key(steps));
    if (it == seen_.end()) return std::nullopt;
    return it->second;
  }

 private:
  SearchSpace space_;
  mutable std::mutex mu_;
  mutable std::unordered_map<std::string, Candidate> seen_;
};

bool registered = register_space("ansor", [](const Task &task) { return std::unique_ptr<Space>(new AnsorSpace(task)); });

}  // namespace

}  // namespace policy
}  // namespace autotune
}  // namespace tetune
