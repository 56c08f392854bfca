// Rule "rfactor" (Ansor's RuleAddRfactor): a reduction with a small spatial
// extent (product < kMaxSpatial) and a large reduce extent (product >= 256)
// gets, besides the sketches of the later rules (simple: parallel over the
// few spatial points, unrolled inner reduce loop), a sketch where its largest
// reduce axis k is split (k_o, k_i) and the reduction is factored over one
// part with Schedule::rfactor into a partial stage "S.rf", made parallel:
//   side 0: rfactor(k_i): S.rf[k_i, ...] sums over k_o (and the other reduce
//           axes); k_i is split by 16 lanes, the outer part parallel, the
//           lanes innermost (inside the reduce loops) and vectorized, reading
//           contiguous input; S sums the f = |k_i| partial results.
//   side 1: rfactor(k_o): S.rf[k_o, ...] sums one contiguous chunk k_i per
//           parallel iteration; S sums the ceil(K / f) chunks.
// S itself (few points) stays serial, computed at root.
//
// Parameters: "<stage>.rf.factor" = f, the inner extent of the split (powers of
// two from 16, at most half the axis; a non-divisor is guarded), and
// "<stage>.rf.side" in {0, 1}.
#include <algorithm>

#include "autotune/search_space/search_space_internal.h"

namespace tetune {
namespace autotune {
namespace ss {

namespace {
constexpr int64_t kMaxSpatial = 16;  // spatial points of a "small" reduction
constexpr int64_t kMinReduce = 256;

// The reduce axis to factor: the largest (the innermost among equals), or -1.
int rfactor_axis(const StageInfo &st) {
  int best = -1;
  for (int j = 0; j < static_cast<int>(st.reduce_axes.size()); j++)
    if (best < 0 || st.reduce_axes[j].extent >= st.reduce_axes[best].extent) best = j;
  if (best >= 0 && st.reduce_axes[best].extent < 32) return -1;
  return best;
}

bool wants_rfactor(const StageInfo &st) {
  if (st.kind != StageInfo::Compute || !st.is_reduction()) return false;
  int64_t sp = 1, red = 1;
  for (auto e : st.shape) sp *= e;
  for (const auto &r : st.reduce_axes) red *= r.extent;
  return sp < kMaxSpatial && red >= kMinReduce && rfactor_axis(st) >= 0;
}

std::vector<int64_t> factors(int64_t extent) {
  std::vector<int64_t> f;
  for (int64_t v = 16; v <= 1024 && 2 * v <= extent; v *= 2) f.push_back(v);
  return f;
}

class RuleRfactor : public SketchRule {
 public:
  std::string name() const override { return "rfactor"; }
  RuleResult condition(const Graph &g, const Sketch &, const std::string &stage) const override {
    return wants_rfactor(g.stage(stage)) ? RuleResult::Apply : RuleResult::Skip;
  }
  std::vector<Sketch> apply(const Graph &, const Sketch &s, const std::string &stage) const override {
    Sketch out = s;
    StagePlan &p = out.plan(stage);
    p.kind = PlanKind::RFactor;
    p.loc_choice = false;
    p.cache_write = false;
    p.consumer.clear();
    return {out};
  }
};
}  // namespace

std::unique_ptr<SketchRule> make_rule_rfactor() { return std::make_unique<RuleRfactor>(); }

void add_rfactor_params(const Graph &g, const StagePlan &p, Sketch &s) {
  const StageInfo &st = g.stage(p.stage);
  int j = rfactor_axis(st);
  if (j < 0) return;
  s.choices.push_back(ChoiceSpec{p.stage, p.stage + ".rf.factor", factors(st.reduce_axes[j].extent), {}});
  s.choices.push_back(ChoiceSpec{p.stage, p.stage + ".rf.side", {0, 1}, {}});
}

void instantiate_rfactor(Inst &in, const StagePlan &p) {
  const StageInfo &st = in.g.stage(p.stage);
  const std::string &S = p.stage;
  Placed &pl = in.placed[S];
  pl.compute_name = S;
  int j = rfactor_axis(st);
  if (j < 0) return;
  const std::string axis = st.reduce_axes[j].var.name();
  const int64_t E = st.reduce_axes[j].extent;
  std::vector<int64_t> fs = factors(E);
  if (fs.empty()) return;
  int64_t f = in.param(S + ".rf.factor", fs.front());
  if (std::find(fs.begin(), fs.end(), f) == fs.end()) f = fs.front();
  const bool inner = in.param(S + ".rf.side", 0) == 0;
  auto [ko, ki] = in.split(S, axis, f, tail_for(E, f, false));
  std::string rf = in.sch.rfactor(S, inner ? ki : ko);
  std::vector<std::string> sp, red;
  for (const auto &l : in.sch.stage(rf).leaves) (l.is_reduce ? red : sp).push_back(l.name);
  in.placed[rf].compute_name = rf;
  if (!sp.empty()) {
    const std::string rfax = sp.front();  // the factored axis, outermost
    if (inner) {
      // Lanes innermost, inside the reduce loops; the groups of lanes parallel.
      std::string lanes = rfax, groups;
      if (f > kMaxVector && f % kMaxVector == 0) {
        auto [a, b] = in.split(rf, rfax, kMaxVector, TailStrategy::Auto);
        groups = a, lanes = b;
      }
      std::vector<std::string> order;
      if (!groups.empty()) order.push_back(groups);
      order.insert(order.end(), sp.begin() + 1, sp.end());
      order.insert(order.end(), red.begin(), red.end());
      order.push_back(lanes);
      in.sch.reorder(rf, order);
      if (!groups.empty()) in.sch.parallel(rf, groups);
      maybe_vectorize(in.sch, rf, lanes);
    } else {
      in.sch.parallel(rf, rfax);
    }
  }
  const StageInfo &fin = in.sch.stage(S);
  for (const auto &l : fin.leaves)
    if (!l.is_reduce) {
      pl.attach_points.push_back(l.name);
      break;
    }
}

}  // namespace ss
}  // namespace autotune
}  // namespace tetune
