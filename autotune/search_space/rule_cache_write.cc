// Rule "add cache write" (Ansor's RuleAddCacheWrite, CPU): a stage that needs
// multi-level tiling and has no fusible consumer accumulates in a cache stage
// "<stage>.local" (cache_write) that is tiled R0 S2 R1 S3 (at_level 1) or
// R0 R1 S3 (at_level 2) and computed at the tile loop S1 / S2 of the stage,
// which becomes a copy tiled S0 S1 (S2) + vectorized rest. As in Ansor the
// rule also lets the plain multi-level tiling rule apply, so the stage gets a
// sketch with and one without the cache.
//
// Parameters: "<stage>.at_level" in {1, 2}; tiles, parallel and unroll as in
// rule_multi_level_tiling.cc and rule_parallel_vectorize_unroll.cc.
#include "autotune/search_space/search_space_internal.h"

namespace tetune {
namespace autotune {
namespace ss {

namespace {
class RuleCacheWrite : public SketchRule {
 public:
  std::string name() const override { return "add_cache_write"; }
  RuleResult condition(const Graph &g, const Sketch &s, const std::string &stage) const override {
    if (!needs_multi_level_tiling(g.stage(stage))) return RuleResult::Skip;
    return fusible_consumer(g, s, stage).empty() ? RuleResult::Apply : RuleResult::Skip;
  }
  std::vector<Sketch> apply(const Graph &, const Sketch &s, const std::string &stage) const override {
    Sketch out = s;
    StagePlan &p = out.plan(stage);
    p.kind = PlanKind::Tiled;
    p.cache_write = true;
    p.consumer.clear();
    return {out};
  }
};
}  // namespace

std::unique_ptr<SketchRule> make_rule_cache_write() { return std::make_unique<RuleCacheWrite>(); }

}  // namespace ss
}  // namespace autotune
}  // namespace tetune
