// Rule "rfactor" (Ansor's RuleAddRfactor): a reduction with a large reduce
// extent gets, besides the sketches of the later rules, a sketch where its
// largest reduce axis k is split (k_o, k_i) and the reduction is factored over
// one part with Schedule::rfactor into a partial stage "S.rf".
// With a small spatial extent (product < kMaxSpatial, reduce product >= 256):
//   side 0: rfactor(k_i): S.rf[k_i, ...] sums over k_o (and the other reduce
//           axes); k_i is split by 16 lanes, the outer part parallel, the
//           lanes innermost (inside the reduce loops) and vectorized, reading
//           contiguous input; S sums the f = |k_i| partial results.
//   side 1: rfactor(k_o): S.rf[k_o, ...] sums one contiguous chunk k_i per
//           parallel iteration; S sums the ceil(K / f) chunks.
//   S itself (few points) stays serial, computed at root.
// With many spatial points (rows) and k contiguous in every input (softmax's
// max and sum, layer norm's mean and variance over the last axis), the row
// form (no side choice):
//           rfactor(k_i), f = 64, 32 or 16 lanes (row_factors): S.rf holds f
//           partial results per point, computed at S's innermost spatial
//           loop, its lanes vectorized inside the k_o loop; S, parallel over
//           its points, reduces the f lanes in one horizontal (vectorized)
//           reduction. Without it the only vectors run across rows, whose
//           loads gather (k is the stride-1 axis). f = 64 first: four vectors
//           are four independent accumulator chains (a 40 x 6625 softmax
//           0.060 ms against 0.076 with 16 lanes and 0.079 with 128;
//           bench/RESULTS.md). The partial results combine with the stage's
//           own max / +, so NaN propagates (codegen/nan_semantics.h).
//           A non-output S has a compute location (rule_inline.cc): at root,
//           or at its consumer's row loop (kAtRow), inside the consumer's
//           parallel loop with the stages it reads (softmax: max, exp, sum
//           and the output row by row, exp once per element).
// With many points, each a vector of contiguous lanes (S's innermost axis, at
// most kMaxVector), that no row form covers, and no data reuse (a global
// pool over NCHW16c: [N, C/16, 1, 1, 16] summing H x W), the accumulators
// form: the innermost reduce axis k is split by a = 4, 2 or 8
// (accumulator_factors, divisors only) and rfactor(k_i) gives S.rf[k_i,
// points, lanes], computed at S's innermost point with k_i unrolled inside
// its reduce loops and the lanes vectorized: a independent chains of vector
// adds, where one accumulator waits on each add's latency. S adds the a
// partial vectors. The seed computes S at its consumer's innermost point (the
// pool's mean), inside that stage's parallel loop. Pools of 28x28 to 112x112
// ran 1.8-2.2x as fast alone as with one accumulator (bench/RESULTS.md,
// forty-third session). A reduction under kMinAccumulatorReduce gets no such
// form. A non-output S (the pool's sum) has a compute location (rule_inline.cc).
// Split by rows ("<stage>.rf.rows" = 1, the seed's choice where the outer
// reduce axis holds kRowsPerThread rows per thread): the outer reduce axis
// (the pool's rows) is cut into T x a pieces of contiguous rows (T the
// threads) and rfactor(pieces) gives S.rf[pieces, points, lanes] at root,
// parallel in T tasks of a pieces each, the a unrolled inside the reduce
// loops; S, serial, adds the pieces. Each thread then sums the rows that a
// producer split by rows (rule_multi_level_tiling.cc, "rows first": the
// depthwise conv before a squeeze-and-excitation pool) wrote into its own
// L2. Split by points instead, half of every block came from the other
// core: EfficientNet-B0's 112x112 pool ran 0.030 ms in the model that way
// and 0.011-0.012 split by rows, 0.0070 and 0.0080 alone (bench/RESULTS.md,
// forty-fourth session).
//
// Parameters: "<stage>.rf.factor" = f, the inner extent of the split (powers of
// two from 16, at most half the axis, or row_factors, or accumulator_factors;
// a non-divisor is guarded), "<stage>.rf.side" in {0, 1} (few points only),
// "<stage>.rf.rows" in {1, 0} (accumulators only), and for rows and
// accumulators "<stage>.par_grain", "<stage>.loc" / "<stage>.at"
// (rule_inline.cc).
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

int64_t spatial_points(const StageInfo &st) {
  int64_t sp = 1;
  for (auto e : st.shape) sp *= e;
  return sp;
}

// Few points, a long reduction: sides 0 and 1.
bool few_points(const StageInfo &st) {
  if (st.kind != StageInfo::Compute || !st.is_reduction()) return false;
  int64_t red = 1;
  for (const auto &r : st.reduce_axes) red *= r.extent;
  return spatial_points(st) < kMaxSpatial && red >= kMinReduce && rfactor_axis(st) >= 0;
}

// The row form's lane counts for rows of e: 64, 32, 16 (at most half the
// row) where they divide e, or, with a guarded tail (a partial vector per
// row), on rows of at least kMinReduce. A shorter row that none divides but
// that holds kMinFullVectors vectors (ViT's 197 columns) gets them smallest
// first: its guarded tail is then one partial 16-lane vector. With the row's
// stages at the output's row (kAtRow), ViT's softmax ran 0.27 -> 0.20 ms with
// 16 lanes, 0.24 with 64; Swin-T's 49 columns (3 vectors and one lane) ran
// 12% slower than without the row form (bench/RESULTS.md, thirty-fourth
// session).
constexpr int64_t kMinFullVectors = 8;
std::vector<int64_t> row_factors(int64_t e) {
  std::vector<int64_t> f;
  for (int64_t v : {4 * kMaxVector, 2 * kMaxVector, kMaxVector})
    if (2 * v <= e && (e % v == 0 || e >= kMinReduce)) f.push_back(v);
  if (f.empty() && e >= kMinFullVectors * kMaxVector)
    for (int64_t v : {kMaxVector, 2 * kMaxVector, 4 * kMaxVector})
      if (2 * v <= e) f.push_back(v);
  return f;
}

// Many points, each reducing a contiguous row that row_factors covers: the row form.
bool row_lanes(const StageInfo &st) {
  if (st.kind != StageInfo::Compute || st.reduce_axes.size() != 1 || spatial_points(st) < kMaxSpatial ||
      row_factors(st.reduce_axes[0].extent).empty())
    return false;
  return reduce_axis_contiguous(st);
}

// The accumulators form's shortest reduction: 14x14 pools (196 points) ran 1.4-2.6x as fast alone, and
// EfficientNet-B0's of 480 and 672 channels 0.037 -> 0.026 and 0.029 -> 0.023 ms in the model
// (bench/RESULTS.md, forty-third session); shorter ones were not measured.
constexpr int64_t kMinAccumulatorReduce = 128;

// The accumulator counts of the accumulators form for an innermost reduce axis of e, the first preferred.
std::vector<int64_t> accumulator_factors(int64_t e) {
  std::vector<int64_t> f;
  for (int64_t a : {4, 2, 8})
    if (a < e && e % a == 0) f.push_back(a);
  return f;
}

// Many points of one vector of contiguous lanes each, a long reduction without reuse: the accumulators form.
bool accumulator_lanes(const StageInfo &st) {
  if (st.kind != StageInfo::Compute || !st.is_reduction() || st.shape.size() < 2 || has_data_reuse(st) ||
      spatial_points(st) < kMaxSpatial || row_lanes(st) || reduce_extent(st) < kMinAccumulatorReduce)
    return false;
  const int64_t lanes = st.shape.back();
  if (lanes < 2 || lanes > kMaxVector || (lanes & (lanes - 1)) != 0) return false;
  return columns_contiguous(st) && !columns_gathered(st) && !accumulator_factors(st.reduce_axes.back().extent).empty();
}

// The accumulators form may split by rows: an outer reduce axis (rows) of kRowsPerThread per thread.
bool splits_by_rows(const StageInfo &st, int threads) {
  return st.reduce_axes.size() >= 2 && st.reduce_axes.front().extent >= kRowsPerThread * std::max(1, threads);
}

RFactorForm form_of(const StageInfo &st) {
  return row_lanes(st) ? RFactorForm::Rows : accumulator_lanes(st) ? RFactorForm::Accumulators : RFactorForm::FewPoints;
}

bool wants_rfactor(const StageInfo &st) { return few_points(st) || row_lanes(st) || accumulator_lanes(st); }

// The split factors of a reduce axis of `extent`: row_factors in the row form.
std::vector<int64_t> factors(bool rows, int64_t extent) {
  if (rows) return row_factors(extent);
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
  std::vector<Sketch> apply(const Graph &g, const Sketch &s, const std::string &stage) const override {
    Sketch out = s;
    StagePlan &p = out.plan(stage);
    p.kind = PlanKind::RFactor;
    p.rf_form = form_of(g.stage(stage));
    // The row and accumulators forms may go at their consumer's loop.
    p.loc_choice = p.rf_form != RFactorForm::FewPoints && !g.stage(stage).is_output;
    p.cache_write = false;
    p.consumer.clear();
    return {out};
  }
};
}  // namespace

std::unique_ptr<SketchRule> make_rule_rfactor() { return std::make_unique<RuleRfactor>(); }

bool row_form_related(const Graph &g, const Sketch &s, const std::string &stage) {
  auto row_form = [&](const std::string &st) {
    const StagePlan &p = s.plan(st);
    return p.kind == PlanKind::RFactor && p.rf_form == RFactorForm::Rows;
  };
  if (row_form(stage)) return true;
  auto it = g.consumers.find(stage);
  return it != g.consumers.end() && std::any_of(it->second.begin(), it->second.end(), row_form);
}

bool accumulators_form(const Sketch &s, const std::string &stage) {
  const StagePlan &p = s.plan(stage);
  return p.kind == PlanKind::RFactor && p.rf_form == RFactorForm::Accumulators;
}

bool reads_sum_split_by_rows(const Graph &g, const Sketch &s, const std::string &stage) {
  for (const auto &[producer, readers] : g.consumers)
    if (std::find(readers.begin(), readers.end(), stage) != readers.end() && accumulators_form(s, producer) &&
        splits_by_rows(g.stage(producer), g.threads))
      return true;
  return false;
}

void add_rfactor_params(const Graph &g, const StagePlan &p, Sketch &s) {
  const StageInfo &st = g.stage(p.stage);
  if (p.rf_form == RFactorForm::Accumulators) {
    s.choices.push_back(ChoiceSpec{p.stage, p.stage + ".rf.factor", accumulator_factors(st.reduce_axes.back().extent), {}});
    if (splits_by_rows(st, g.threads)) s.choices.push_back(ChoiceSpec{p.stage, p.stage + ".rf.rows", {1, 0}, {}, true});
    add_par_grain_param(p.stage, s);
    add_location_params(g, p, s);
    return;
  }
  const bool rows = p.rf_form == RFactorForm::Rows;
  int j = rfactor_axis(st);
  if (j < 0) return;
  s.choices.push_back(ChoiceSpec{p.stage, p.stage + ".rf.factor", factors(rows, st.reduce_axes[j].extent), {}});
  if (rows) {
    add_par_grain_param(p.stage, s);
    add_location_params(g, p, s);
  } else {
    s.choices.push_back(ChoiceSpec{p.stage, p.stage + ".rf.side", {0, 1}, {}});
  }
}

namespace {
// A stage's leaf loops, outermost first: its spatial ones and its reduce ones.
struct Leaves {
  std::vector<std::string> spatial, reduce;
};
Leaves leaves_of(const Schedule &sch, const std::string &stage) {
  Leaves out;
  for (const auto &l : sch.stage(stage).leaves) (l.is_reduce ? out.reduce : out.spatial).push_back(l.name);
  return out;
}

// The "<S>.rf.factor" choice among fs (fs.front() when unset or not among them).
int64_t chosen_factor(const Inst &in, const std::string &S, const std::vector<int64_t> &fs) {
  const int64_t f = in.param(S + ".rf.factor", fs.front());
  return std::find(fs.begin(), fs.end(), f) == fs.end() ? fs.front() : f;
}

// The row and accumulators forms' S over its points: parallel, unless `at` a consumer's loop (inside its
// parallel loop); the partial stage rf computed at S's innermost point.
void place_at_points(Inst &in, const std::string &S, const std::string &rf, std::vector<std::string> points, bool at) {
  if (!at) fuse_parallel(in, S, points, static_cast<int>(points.size()));
  in.sch.compute_at(rf, S, points.back());
  in.placed[S].attach_points.push_back(points.front());
}

// The accumulators form's partial stage rf: `outer` (its parallel tasks, or none), S's points, the reduce
// loops, then the accumulators unrolled and the lanes vectorized innermost.
void accumulate_in_registers(Inst &in, const std::string &rf, std::vector<std::string> order, const Leaves &part,
                             const std::string &accumulators) {
  const std::string &lanes = part.spatial.back();
  for (const auto &l : part.spatial)
    if (l != lanes && l != accumulators && std::find(order.begin(), order.end(), l) == order.end()) order.push_back(l);
  order.insert(order.end(), part.reduce.begin(), part.reduce.end());
  order.push_back(accumulators);
  order.push_back(lanes);
  in.sch.reorder(rf, order);
  in.sch.unroll(rf, accumulators);
  maybe_vectorize(in.sch, rf, lanes);
}

// S adding its partial results: its points, the partials (unrolled when asked), the lanes vectorized; returns
// S's points.
std::vector<std::string> add_partials(Inst &in, const std::string &S, bool unroll) {
  const Leaves whole = leaves_of(in.sch, S);  // spatial: S's points, then the lanes; reduce: the partials
  std::vector<std::string> points(whole.spatial.begin(), whole.spatial.end() - 1), order = points;
  order.insert(order.end(), whole.reduce.begin(), whole.reduce.end());
  order.push_back(whole.spatial.back());
  in.sch.reorder(S, order);
  if (unroll) in.sch.unroll(S, whole.reduce.front());
  maybe_vectorize(in.sch, S, whole.spatial.back());
  return points;
}

// The row form (above): S.rf[k_i, points] at S's innermost point, lanes innermost; S parallel over its points,
// or, `at` its consumer's row, inside the consumer's parallel loop.
void instantiate_row_lanes(Inst &in, const StageInfo &st, const std::string &axis, int64_t f, bool at) {
  const std::string &S = st.name;
  const std::string ki = in.split(S, axis, f, tail_for(st.reduce_axes[0].extent, f, false)).second;
  const std::string rf = in.sch.rfactor(S, ki);
  in.placed[rf].compute_name = rf;
  const Leaves part = leaves_of(in.sch, rf);
  const std::vector<std::string> &sp = part.spatial;
  std::vector<std::string> order(sp.begin() + 1, sp.end());  // sp.front(): the factored lanes
  order.insert(order.end(), part.reduce.begin(), part.reduce.end());
  order.push_back(sp.front());
  in.sch.reorder(rf, order);
  maybe_vectorize(in.sch, rf, sp.front());
  const Leaves whole = leaves_of(in.sch, S);  // spatial: S's points; reduce: the lanes
  if (whole.reduce.size() == 1) in.sch.vectorize(S, whole.reduce.front());  // one horizontal reduction per point
  if (whole.spatial.empty()) return;
  place_at_points(in, S, rf, whole.spatial, at);
}

// The accumulators form split by rows (above): S.rf[pieces, points, lanes] at root, T tasks of a pieces of
// contiguous rows each, the a unrolled inside the reduce loops and the lanes innermost; S adds the pieces,
// serially (at root or at its consumer's loop).
void instantiate_row_accumulators(Inst &in, const StageInfo &st, int64_t a) {
  const std::string &S = st.name;
  const IterVar &rows = st.reduce_axes.front();
  const int64_t wanted = std::max(1, in.g.threads) * a;  // pieces: a per thread
  const int64_t per_piece = (rows.extent + wanted - 1) / wanted, pieces = (rows.extent + per_piece - 1) / per_piece;
  const std::string ko = in.split(S, rows.var.name(), per_piece, tail_for(rows.extent, per_piece, false)).first;
  const std::string rf = in.sch.rfactor(S, ko);
  in.placed[rf].compute_name = rf;
  const auto [tasks, accumulators] = in.split(rf, leaves_of(in.sch, rf).spatial.front(), a, tail_for(pieces, a, false));
  accumulate_in_registers(in, rf, {tasks}, leaves_of(in.sch, rf), accumulators);
  in.sch.parallel(rf, tasks);
  in.placed[S].attach_points.push_back(add_partials(in, S, false).front());
}

// The accumulators form (above): S.rf[k_i, points, lanes] at S's innermost point, k_i unrolled inside the
// reduce loops and the lanes innermost; S adds the a partial vectors, parallel over its points, or, at a
// consumer's loop, inside the consumer's parallel loop. Or split by rows (instantiate_row_accumulators).
void instantiate_accumulators(Inst &in, const StagePlan &p) {
  const StageInfo &st = in.g.stage(p.stage);
  const std::string &S = st.name;
  const IterVar &k = st.reduce_axes.back();
  const std::vector<int64_t> fs = accumulator_factors(k.extent);
  if (fs.empty()) return;
  const int64_t a = chosen_factor(in, S, fs);
  bool inlined = false;  // a reduction is never inlined
  const bool at = place_stage(in, p, inlined);
  if (splits_by_rows(st, in.g.threads) && in.param(S + ".rf.rows", 0) == 1) {
    instantiate_row_accumulators(in, st, a);
    return;
  }
  const std::string ki = in.split(S, k.var.name(), a, TailStrategy::Auto).second;
  const std::string rf = in.sch.rfactor(S, ki);
  in.placed[rf].compute_name = rf;
  const Leaves part = leaves_of(in.sch, rf);  // spatial: the accumulators (outermost), S's points, the lanes
  accumulate_in_registers(in, rf, {}, part, part.spatial.front());
  place_at_points(in, S, rf, add_partials(in, S, true), at);
}
}  // namespace

void instantiate_rfactor(Inst &in, const StagePlan &p) {
  const StageInfo &st = in.g.stage(p.stage);
  const std::string &S = p.stage;
  Placed &pl = in.placed[S];
  pl.compute_name = S;
  if (p.rf_form == RFactorForm::Accumulators) {
    instantiate_accumulators(in, p);
    return;
  }
  const bool rows = p.rf_form == RFactorForm::Rows;
  int j = rfactor_axis(st);
  if (j < 0) return;
  const std::string axis = st.reduce_axes[j].var.name();
  const int64_t E = st.reduce_axes[j].extent;
  std::vector<int64_t> fs = factors(rows, E);
  if (fs.empty()) return;
  const int64_t f = chosen_factor(in, S, fs);
  if (rows) {
    bool inlined = false;  // a reduction is never inlined
    instantiate_row_lanes(in, st, axis, f, place_stage(in, p, inlined));
    return;
  }
  const bool inner = in.param(S + ".rf.side", 0) == 0;
  auto [ko, ki] = in.split(S, axis, f, tail_for(E, f, false));
  std::string rf = in.sch.rfactor(S, inner ? ki : ko);
  const Leaves part = leaves_of(in.sch, rf);
  const std::vector<std::string> &sp = part.spatial, &red = part.reduce;
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
  const Leaves fin = leaves_of(in.sch, S);
  if (!fin.spatial.empty()) pl.attach_points.push_back(fin.spatial.front());
}

}  // namespace ss
}  // namespace autotune
}  // namespace tetune
