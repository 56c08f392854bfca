// Rule "simple stage" (the catch-all, like Ansor's skip rule followed by
// annotation): elementwise / injective stages and reductions without data
// reuse (softmax's max and sum) keep their loop order; the innermost spatial
// axis is split by the vector width and vectorized, the outer spatial loops
// are fused and marked parallel (root stages only), and the innermost reduce
// axis is split and its inner loop unrolled.
//
// Parameters of a simple stage S:
//   "S.vec"      vector width (1 = none): a divisor of the last extent or a power of two <= 16
//   "S.parallel" number of outer spatial loops fused into the parallel loop (0 = serial)
//   "S.par_grain" parallel tasks per thread (rule_parallel_vectorize_unroll.cc)
//   "S.unroll"   inner split of the innermost reduce axis that is unrolled (1 = none);
//                its extent (when not a power of two) unrolls a window of at most
//                kWholeWindow^2 taps whole, every reduce axis
//   "S.loc", "S.at" compute location of a non-output stage (rule_inline.cc)
#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "autotune/search_space/search_space_internal.h"
#include "base/errors.h"

namespace tetune {
namespace autotune {
namespace ss {

namespace {
class RuleSimple : public SketchRule {
 public:
  std::string name() const override { return "simple"; }
  RuleResult condition(const Graph &, const Sketch &, const std::string &) const override {
    return RuleResult::ApplyAndSkipRest;
  }
  std::vector<Sketch> apply(const Graph &g, const Sketch &s, const std::string &stage) const override {
    Sketch out = s;
    StagePlan &p = out.plan(stage);
    p.kind = PlanKind::Simple;
    p.loc_choice = !g.stage(stage).is_output;
    return {out};
  }
};
}  // namespace

std::unique_ptr<SketchRule> make_rule_simple() { return std::make_unique<RuleSimple>(); }

std::vector<std::pair<int, int64_t>> parse_unroll_tiles(const Graph &g, const StageInfo &st) {
  if (st.is_reduction()) return {};
  auto it = st.tensor->attrs.find(kUnrollTilesAttr);
  if (it == st.tensor->attrs.end()) {
    for (const auto &r : st.reads)
      if (g.index.count(r) && is_identity_access(st, g.stage(r))) {
        auto tiles = parse_unroll_tiles(g, g.stage(r));
        if (!tiles.empty()) return tiles;
      }
    return {};
  }
  std::vector<std::pair<int, int64_t>> out;
  std::stringstream items(it->second);
  std::string item;
  while (std::getline(items, item, ',')) {
    const size_t colon = item.find(':');
    const std::string axis = item.substr(0, colon);
    const auto pos = std::find(st.spatial_axes.begin(), st.spatial_axes.end(), axis);
    const int64_t size = colon == std::string::npos ? 0 : std::atoll(item.c_str() + colon + 1);
    if (pos == st.spatial_axes.end() || size < 1)
      throw Error("stage " + st.name + ": " + kUnrollTilesAttr + " entry '" + item + "' must be 'axis:size' with an axis of the stage");
    out.emplace_back(static_cast<int>(pos - st.spatial_axes.begin()), size);
  }
  return out;
}

std::vector<int64_t> simple_outer_extents(const Graph &g, const StagePlan &p) {
  const StageInfo &st = g.stage(p.stage);
  std::vector<int64_t> extents(st.shape.begin(), st.shape.begin() + st.spatial_axes.size());
  for (auto [pos, size] : p.unroll_tiles) extents[pos] = st.shape[pos] <= size ? 0 : (st.shape[pos] + size - 1) / size;
  extents.erase(std::remove(extents.begin(), extents.end(), 0), extents.end());
  return extents;
}

void add_simple_params(const Graph &g, const StagePlan &p, Sketch &s) {
  const StageInfo &st = g.stage(p.stage);
  int nd = static_cast<int>(st.spatial_axes.size());
  if (nd > 0 && st.shape[nd - 1] > 1) {
    int64_t E = st.shape[nd - 1];
    std::set<int64_t> vs = {1};
    for (auto d : divisors(E))
      if (d <= kMaxVector) vs.insert(d);
    for (int64_t v = 2; v <= kMaxVector && v <= E; v *= 2) vs.insert(v);
    ChoiceSpec c{p.stage, p.stage + ".vec", {}, {}};
    for (auto v : vs) {
      c.values.push_back(v);
      c.weights.push_back(v == 1 ? 0.5 : 1.0);
    }
    s.choices.push_back(c);
  }
  if (nd > 0) {
    ChoiceSpec c{p.stage, p.stage + ".parallel", {}, {}};
    for (int k = 0; k <= nd; k++) {
      c.values.push_back(k);
      c.weights.push_back(k == 0 ? 0.5 : 1.0);
    }
    s.choices.push_back(c);
    add_par_grain_param(p.stage, s);
  }
  if (st.is_reduction() && st.reduce_axes.back().extent > 1) {
    ChoiceSpec c{p.stage, p.stage + ".unroll", {}, {}};
    const int64_t R = st.reduce_axes.back().extent;
    for (int64_t u = 1; u <= 16 && u <= R; u *= 2) c.values.push_back(u);
    if (R <= kWholeWindow && (R & (R - 1)) != 0) c.values.push_back(R);  // the whole window
    s.choices.push_back(c);
  }
}

void instantiate_simple(Inst &in, const StagePlan &p) {
  const StageInfo &st = in.g.stage(p.stage);
  const std::string &S = p.stage;
  bool inlined = false;
  bool at = place_stage(in, p, inlined);
  Placed &pl = in.placed[S];
  pl.compute_name = S;
  if (inlined) {
    pl.inlined = true;
    return;
  }
  std::vector<std::string> sp = st.spatial_axes, red;
  int nd = static_cast<int>(sp.size());
  std::string vec, unr;
  if (nd > 0) {
    int64_t E = st.shape[nd - 1], v = in.param(S + ".vec", 1);
    // Computed at another stage's loop, the region may be narrower than the
    // vector or not a multiple of it. A guarded vector split of such a region
    // crashed Halide-JIT code (conv stride 2, pad at the conv's reduce loop),
    // and ShiftInwards computes past the region, reading out of bounds unless
    // every read is clamped: so only a pad is vectorized there (ShiftInwards).
    // Measured on conv C64 56x56, 2 threads: its pad vectorized at the conv's
    // reduce tile ran the conv in 0.73-0.75 ms against 0.80 ms with LLVM's gathers.
    // At a row (kAtRow) the region is whole rows of the last axis, E >= v of them: shifted inwards, a
    // vector stays inside it.
    const bool at_row = at && pl.at_row && !st.is_reduction();
    if ((!at || at_row || reads_only_guarded(st)) && E > 1 && v >= 2 && v <= E && v <= 64) {
      TailStrategy tail = at ? TailStrategy::ShiftInwards
                             : (E % v == 0 || !st.is_reduction() ? TailStrategy::Auto : TailStrategy::GuardWithIf);
      auto [ao, ai] = in.split(S, sp[nd - 1], v, tail);
      sp[nd - 1] = ao;
      vec = ai;
    }
  }
  for (const auto &r : st.reduce_axes) red.push_back(r.var.name());
  std::vector<std::string> whole;  // reduce axes unrolled whole (a pooling window)
  if (!red.empty()) {
    int64_t R = st.reduce_axes.back().extent, u = in.param(S + ".unroll", 1);
    if (u == R && R <= kWholeWindow && reduce_extent(st) <= kWholeWindow * kWholeWindow) {
      // The whole window unrolled: the accumulator stays in a register
      // instead of a load and store per tap (a 3x3 max pool).
      whole = red;
    } else if (u >= 2 && u <= R && u <= 64) {
      auto [ro, ri] = in.split(S, red.back(), u, tail_for(R, u, false));
      red.back() = ro;
      red.push_back(ri);
      unr = ri;
    }
  }
  std::vector<std::string> tiles;  // kUnrollTilesAttr tiles, unrolled just outside the vector
  if (!at && red.empty()) {
    for (auto [pos, size] : p.unroll_tiles) {
      if (pos == nd - 1 && !vec.empty()) continue;  // the vector's own axis
      if (st.shape[pos] <= size) {
        tiles.push_back(sp[pos]);
        sp[pos].clear();
        continue;
      }
      // Guarded, not shifted inwards: a shifted tile starts off the tile grid and its position no longer folds.
      auto [o, i] = in.split(S, sp[pos], size, TailStrategy::GuardWithIf);
      sp[pos] = o;
      tiles.push_back(i);
    }
    sp.erase(std::remove(sp.begin(), sp.end(), std::string()), sp.end());
    if (!tiles.empty()) {
      std::vector<std::string> order = sp;
      order.insert(order.end(), tiles.begin(), tiles.end());
      if (!vec.empty()) order.push_back(vec);
      in.sch.reorder(S, order);
    }
  }
  if (!red.empty() && !vec.empty()) {
    std::vector<std::string> order = sp;
    order.insert(order.end(), red.begin(), red.end());
    order.push_back(vec);
    in.sch.reorder(S, order);
  }
  const std::string last = sp.empty() ? "" : sp.back();  // the innermost axis's (outer) loop
  if (!at && !sp.empty()) fuse_parallel(in, S, sp, static_cast<int>(in.param(S + ".parallel", 1)));
  if (!at && p.unroll_tiles.empty() && sp.size() >= 2 && sp.back() == last) pl.row_point = sp[sp.size() - 2];
  if (!vec.empty()) maybe_vectorize(in.sch, S, vec);
  if (!unr.empty()) in.sch.unroll(S, unr);
  for (const auto &r : whole) in.sch.unroll(S, r);
  for (const auto &t : tiles) in.sch.unroll(S, t);
  if (!sp.empty()) {
    pl.attach_points.push_back(sp.front());
    if (sp.back() != sp.front()) pl.attach_points.push_back(sp.back());
  }
}

}  // namespace ss
}  // namespace autotune
}  // namespace tetune
