// Rule "rfactor" (Ansor's RuleAddRfactor): a reduction with a small spatial
// extent and a large reduce extent would be split by rfactor into a parallel
// partial reduction and a final one.
//
// NOT IMPLEMENTED: schedule/schedule.h has no rfactor primitive yet, so the
// rule never applies. Such reductions are scheduled by rule_simple.cc
// (parallel over the spatial axes, unrolled inner reduce loop) instead.
#include "autotune/search_space/search_space_internal.h"

namespace tetune {
namespace autotune {
namespace ss {

namespace {
class RuleRfactor : public SketchRule {
 public:
  std::string name() const override { return "rfactor"; }
  RuleResult condition(const Graph &, const Sketch &, const std::string &) const override {
    // Would be: reduction, spatial extent < #threads, reduce extent >= 64.
    return RuleResult::Skip;
  }
  std::vector<Sketch> apply(const Graph &, const Sketch &s, const std::string &) const override { return {s}; }
};
}  // namespace

std::unique_ptr<SketchRule> make_rule_rfactor() { return std::make_unique<RuleRfactor>(); }

}  // namespace ss
}  // namespace autotune
}  // namespace tetune
