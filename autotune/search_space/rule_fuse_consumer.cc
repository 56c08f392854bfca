// Rule "multi-level tiling with fusion" (Ansor's RuleMultiLevelTilingWithFusion):
// a stage that needs multi-level tiling and has a fusible elementwise
// consumer (e.g. conv -> bias + relu) is tiled SSRSRS, and the consumer is
// tiled following its outer levels: the consumer's loops are S0 S1 (at_level
// 1) or S0 S1 S2 (at_level 2), and the producer is computed at the innermost
// of them with R0 S2 R1 S3 (or R0 R1 S3) inside. No cache_write is needed:
// the producer's buffer is the accumulator of one tile.
//
// Fusible: the unique consumer (looking through inlined stages) is an output
// elementwise stage of the same shape that reads the producer (and every
// inlined stage on the way) with the identity index. Stages on the way that
// are not strictly inlineable only for an expensive op (SiLU's sigmoid,
// GELU's erf) are inlined in the fused sketch: read with the identity index,
// each is computed once per output either way, and fused, the producer's tile
// stays in cache instead of making a round trip through memory. Not behind a
// channel-vectorizable conv: its tile holds few columns, so the epilogue's
// exp would run on 2-lane vectors (the unfused epilogue pass was faster).
#include <set>

#include "autotune/search_space/search_space_internal.h"

namespace tetune {
namespace autotune {
namespace ss {

namespace {
// Every path from producer to consumer goes through sketch-inlined stages with identity accesses.
bool identity_chain(const Graph &g, const Sketch &s, const std::string &producer, const std::string &consumer,
                    int depth = 0) {
  if (depth > 16) return false;
  auto it = g.consumers.find(producer);
  if (it == g.consumers.end()) return false;
  for (const auto &c : it->second) {
    if (!is_identity_access(g.stage(c), g.stage(producer))) return false;
    if (c == consumer) continue;
    if (s.plan(c).kind != PlanKind::Inline) return false;
    if (!identity_chain(g, s, c, consumer, depth + 1)) return false;
  }
  return true;
}

// s with every elementwise stage between `producer` and its epilogue that has a
// compute-location choice inlined (see the top of this file).
Sketch with_epilogue_inlined(const Graph &g, const Sketch &s, const std::string &producer) {
  Sketch out = s;
  if (channel_vector_input(g.stage(producer)).found()) return out;
  std::vector<std::string> todo = {producer};
  std::set<std::string> seen;
  while (!todo.empty()) {
    std::string p = todo.back();
    todo.pop_back();
    if (!seen.insert(p).second) continue;
    auto it = g.consumers.find(p);
    if (it == g.consumers.end()) continue;
    for (const auto &c : it->second) {
      StagePlan &cp = out.plan(c);
      const StageInfo &cs = g.stage(c);
      if (cp.kind == PlanKind::Simple && cp.loc_choice && !cs.is_output && !cs.is_reduction() &&
          is_identity_access(cs, g.stage(p))) {
        cp.kind = PlanKind::Inline;
        cp.loc_choice = false;
      }
      if (cp.kind == PlanKind::Inline) todo.push_back(c);
    }
  }
  return out;
}

class RuleFuseConsumer : public SketchRule {
 public:
  std::string name() const override { return "multi_level_tiling_with_fusion"; }
  RuleResult condition(const Graph &g, const Sketch &s, const std::string &stage) const override {
    if (!needs_multi_level_tiling(g.stage(stage))) return RuleResult::Skip;
    return fusible_consumer(g, s, stage).empty() ? RuleResult::Skip : RuleResult::ApplyAndSkipRest;
  }
  std::vector<Sketch> apply(const Graph &g, const Sketch &s, const std::string &stage) const override {
    Sketch out = with_epilogue_inlined(g, s, stage);
    std::string c = fusible_consumer(g, s, stage);
    StagePlan &p = out.plan(stage);
    p.kind = PlanKind::Tiled;
    p.cache_write = false;
    p.consumer = c;
    StagePlan &cp = out.plan(c);
    cp.kind = PlanKind::FusedConsumer;
    cp.producer = stage;
    return {out};
  }
};
}  // namespace

std::unique_ptr<SketchRule> make_rule_fuse_consumer() { return std::make_unique<RuleFuseConsumer>(); }

std::string fusible_consumer(const Graph &g, const Sketch &sketch, const std::string &stage) {
  const StageInfo &st = g.stage(stage);
  if (st.is_output || st.spatial_axes.empty()) return "";
  const Sketch s = with_epilogue_inlined(g, sketch, stage);
  std::string c = effective_consumer(g, s, stage);
  if (c.empty()) return "";
  const StageInfo &cs = g.stage(c);
  const StagePlan &cp = s.plan(c);
  if (cp.kind != PlanKind::Simple || cp.loc_choice || !cs.is_output) return "";
  if (cs.kind != StageInfo::Compute || cs.is_reduction() || cs.shape != st.shape) return "";
  if (!identity_chain(g, s, stage, c)) return "";
  return c;
}

void instantiate_fused_consumer(Inst &in, const StagePlan &p) {
  const StageInfo &prod = in.g.stage(p.producer);
  const StageInfo &cons = in.g.stage(p.stage);
  AxisTiles t = read_tiles(in, prod);
  int L = static_cast<int>(in.param(p.producer + ".at_level", 1));
  if (L != 2) L = 1;
  std::string at = tile_outer(in, p.stage, cons.spatial_axes, prod, t, L, in.param(p.producer + ".parallel", 1));
  Placed &pl = in.placed[p.stage];
  pl.compute_name = p.stage;
  pl.pending_at_stage = p.stage;
  pl.pending_at_axis = at;
}

}  // namespace ss
}  // namespace autotune
}  // namespace tetune
