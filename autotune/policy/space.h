// The search space as seen by search policies: an abstract interface, so that
// the tuner works with the rule-based SearchSpace (autotune/search_space/,
// adapted by policy/ansor_space.cc when that target is linked), with the
// built-in BasicSpace (policy/basic_space.h), or with a test's fake space.
// Spaces are looked up by name in a registry; a researcher adds one by
// calling register_space() from a static initialiser in a linked library.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "autotune/candidate.h"
#include "workload/task.h"
#include "schedule/schedule.h"

namespace tetune {
namespace autotune {
namespace policy {

class Space {
 public:
  virtual ~Space() = default;
  virtual std::string name() const = 0;
  virtual Candidate sample(std::mt19937_64 &rng) const = 0;
  virtual Candidate mutate(const Candidate &p, std::mt19937_64 &rng) const = 0;
  virtual Candidate crossover(const Candidate &a, const Candidate &b, std::mt19937_64 &rng) const = 0;
  /** Schedule steps of p (replayable on the task's outputs). May raise ScheduleError. */
  virtual std::vector<Step> steps(const Candidate &p) const = 0;
  /**
   * The schedule of p, for a space that builds it anyway while making its
   * steps (its trace() is steps(p)); nullptr when the caller should replay
   * steps(p) instead (the default). Saves the search a replay per point.
   * May raise ScheduleError.
   */
  virtual std::shared_ptr<const Schedule> schedule(const Candidate &p) const {
    (void)p;
    return nullptr;
  }
  /**
   * A coarse structural class of p (the Ansor space: its sketch, register
   * block shape and accumulator level; SearchSpace::family). Policies spread
   * a batch over classes so that a cost model sure of one class does not
   * spend every trial on it. Default: one class.
   */
  virtual std::string family(const Candidate &p) const {
    (void)p;
    return "";
  }
  /**
   * Points an analytical model of the target expects to be good (the Ansor
   * space: SearchSpace::seeds), for a policy to measure before its own
   * picks. Default: none.
   */
  virtual std::vector<Candidate> seeds() const { return {}; }
  /** Recovers the point whose steps these are (used to warm-start from a database); nullopt if unknown. */
  virtual std::optional<Candidate> from_steps(const std::vector<Step> &steps) const {
    (void)steps;
    return std::nullopt;
  }
};

using SpaceFactory = std::function<std::unique_ptr<Space>(const Task &)>;

/** Registers (or replaces) a space under a name. Returns true (for static initialisers). */
bool register_space(const std::string &name, SpaceFactory f);
/** Raises Error naming the known spaces when the name is unknown. */
std::unique_ptr<Space> make_space(const std::string &name, const Task &task);
std::vector<std::string> space_names();
/** "ansor" when the rule-based SearchSpace is linked, else "basic". */
std::string default_space_name();

/** Canonical text of a step list (the dedup key of a schedule). */
std::string steps_key(const std::vector<Step> &steps);
/** The divisors of n (>= 1) that are <= cap, ascending: tile-size candidates of the spaces. */
std::vector<int64_t> divisors_up_to(int64_t n, int64_t cap);

}  // namespace policy
}  // namespace autotune
}  // namespace tetune
