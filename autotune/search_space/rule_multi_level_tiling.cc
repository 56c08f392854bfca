// Rule "multi-level tiling" (Ansor's RuleMultiLevelTiling, CPU structure
// "SSRSRS"): a reduction with data reuse (matmul, conv) gets its spatial axes
// split in 4 levels and its reduce axes in 2, ordered S0 S1 R0 S2 R1 S3
// (outermost first).
//
// Parameters: "<stage>.tile.<axis>.<k>" = length of level k (k = 1..3 for
// spatial axes, k = 1 for reduce axes); level 0 is ceil(extent / product).
// The innermost level of the last spatial axis is the vector width (<= 16).
// Products divide the extent where possible; non-divisors (mostly for prime
// extents such as 7, 13, 37) use TailStrategy::GuardWithIf on the tiled
// stage's own loops and ShiftInwards on an outer (pure) stage.
//
// Packing (param "<stage>.cache_read", when analysis.cc's packable_input()
// finds the reused input, B of C[i,j] += A[i,k] * B[k,j]): 0 = none;
// 1 = cache_read the input for the stage that holds the reduction and compute
// the copy at its outermost R0 loop: the inner loops then read a contiguous
// panel of R1 x (S2 S3) elements instead of rows of the input with a
// power-of-two stride (cache-set conflicts of GEMM 1024 / 2048); 2 (the stage
// alone only) = compute the copy at the S1 tile loop (panel of the whole
// reduce extent x the S1 tile); 3 / 4 = cache_read the input at root, stored in
// panels (Schedule::pack_layout) as wide as the S3 / S2 x S3 tile of the last
// spatial axis, so that the register block streams through contiguous memory
// (Goto and van de Geijn's packed B); the copy is parallel over panels and
// vectorized. A panel width that does not divide the extent packs nothing.
//
// Channel vectorization (param "<stage>.vec_channel", when analysis.cc's
// channel_vector_input() finds a conv weight and the stage is an accumulator
// or a fused producer, whose storage may change): 1 = the vector is the
// innermost level of the output-channel axis (1, 2 or 4 AVX-512 vectors of
// 16 lanes, channel_vectors) instead of the last axis, whose innermost level
// becomes an unrolled register block; the accumulator is stored
// channel-innermost (reorder_storage) and the weight is packed at root in
// panels as wide as that level (pack_layout). This is the register block of
// direct convolution on CPUs with NCHW[x]c layouts (Georganas et al.,
// "Anatomy of High-Performance Deep Learning Convolutions on SIMD
// Architectures", SC 2018, section 3): weight vectors, broadcast inputs.
// Two vectors halve the broadcasts per FMA (16 x 2 x 8 block: 17 loads per
// 16 FMAs; 32 x 1 x 8: 10).
// With it, the ".cache_read" choice is ignored (the weight is the packed input).
//
// Rows first: the outer loops fused into the parallel loop run in axis order
// (a blocked image's channel blocks, then its rows), except in an image stage
// (5 spatial axes: n, channel blocks, rows, columns, lanes) that reads by row
// at least twice the bytes it reads whole (its data against its weight), with
// at least kRowsPerThread outer row tiles per thread and no tail: there the
// rows come first; also with fewer outer row tiles that the threads share
// evenly (2 threads: MobileNetV3-Large's stride-2 depthwise conv after its
// 112x112 expansion, tuned to 4 tiles of 14 rows, ran 0.080-0.088 -> 0.055-0.077
// ms in the model so, and the whole model 2.5% faster: bench/RESULTS.md,
// forty-fourth session). The threads then split the image by rows, each reading
// the rows of its inputs that, with its producer split likewise, it wrote
// itself, in its own L2, instead of every input channel of the whole image,
// half of it from the other core's caches (ResNet-50's 1x1 conv of 256 x 56 x
// 56 inputs ran 0.94 ms in the model split by channels, 0.66 by rows, 0.66
// either way warm alone: bench/RESULTS.md, 2026-12-06 thirty-fifth session).
// A large weight (layer 4) stays split by channels: split by rows, each
// thread would read all of it.
#include <algorithm>
#include <functional>
#include <iterator>

#include "autotune/search_space/search_space_internal.h"
#include "schedule/parallel_grain.h"
#include "te/expr_functor.h"

namespace tetune {
namespace autotune {
namespace ss {

bool needs_multi_level_tiling(const StageInfo &st) { return has_data_reuse(st); }

namespace {
class RuleMultiLevelTiling : public SketchRule {
 public:
  std::string name() const override { return "multi_level_tiling"; }
  RuleResult condition(const Graph &g, const Sketch &, const std::string &stage) const override {
    return needs_multi_level_tiling(g.stage(stage)) ? RuleResult::ApplyAndSkipRest : RuleResult::Skip;
  }
  std::vector<Sketch> apply(const Graph &, const Sketch &s, const std::string &stage) const override {
    Sketch out = s;
    StagePlan &p = out.plan(stage);
    p.kind = PlanKind::Tiled;
    p.cache_write = false;
    p.consumer.clear();
    return {out};
  }
};

int64_t product(const std::vector<int64_t> &l) {
  int64_t p = 1;
  for (auto x : l) p *= x;
  return p;
}

template <typename T>
T pick(const std::vector<T> &v, std::mt19937_64 &rng) {
  return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
}
}  // namespace

std::unique_ptr<SketchRule> make_rule_multi_level_tiling() { return std::make_unique<RuleMultiLevelTiling>(); }

// ---- tile sizes -------------------------------------------------------------------

// Rows r on this axis that can run past its extent: not the vector or channel axis, r does not divide it.
static bool rows_past_extent(const TileSpec &t, int64_t r) {
  return !t.vec_axis && !t.channel_vector && t.levels == 4 && t.extent % r != 0;
}

// Register rows r the sampler draws on this axis: rows_past_extent, and at least 4 blocks of them.
static bool takes_register_rows(const TileSpec &t, int64_t r) { return rows_past_extent(t, r) && t.extent >= 4 * r; }

// One outer tile that runs past the extent by less than its register block
// (e.g. GEMM 1024's rows as 171 blocks of 6, the last block shifted inwards;
// a 7-row image as 3 blocks of 3, the last guarded). Any extent: Schedule
// clamps a split to its axis, so the tile computes no row past it. (The
// sampler draws such tiles only where takes_register_rows.)
static bool one_tile_over_extent(const TileSpec &t, const std::vector<int64_t> &l) {
  return rows_past_extent(t, l.back()) && product(l) - t.extent < l.back();
}

bool valid_tile(const TileSpec &t, const std::vector<int64_t> &l) {
  if (static_cast<int>(l.size()) != t.levels - 1) return false;
  for (auto x : l)
    if (x < 1) return false;
  if (product(l) > t.extent && !one_tile_over_extent(t, l)) return false;
  // The vector level is >= 2: the accumulator's last axis is always split.
  // (With it unsplit, moving R0 outside the spatial loops of a computed-at
  // update gave wrong results in Halide-JIT code: GEMM 64x48x40 with
  // C.local order k_o, i, j, k_i.)
  if (t.vec_axis && !valid_vector(l.back())) return false;
  return true;
}

// Lengths that need not divide the extent: powers of two (and 3), product <= extent.
static std::vector<int64_t> sample_nondiv(const TileSpec &t, std::mt19937_64 &rng) {
  const int64_t E = t.extent;
  const int n = t.levels;
  std::vector<int64_t> lv(n, 1);
  int64_t prod = 1;
  const std::vector<int64_t> pow2 = {1, 2, 4, 8, 16};
  for (int k = n - 1; k >= 1; k--) {
    bool vec = t.vec_axis && k == n - 1;
    int64_t x = vec ? pick(std::vector<int64_t>{2, 4, 8, 16}, rng) : pick(pow2, rng);
    if (!vec && x == 16) x = pick(std::vector<int64_t>{1, 2, 3, 4}, rng);
    while (vec && x > 2 && prod * x > E) x /= 2;
    if (!vec && prod * x > E) x = 1;
    lv[k] = x;
    prod *= x;
  }
  return std::vector<int64_t>(lv.begin() + 1, lv.end());
}

// Outer tiles of l over the extent run fewer than r rows past it each (each S1 step rounds up).
static bool few_rows_wasted(const TileSpec &t, const std::vector<int64_t> &l) {
  const int64_t tile = product(l), tiles = (t.extent + tile - 1) / tile;
  return tiles * tile - t.extent < tiles * l.back();
}

std::vector<int64_t> sample_register_rows(const TileSpec &t, std::mt19937_64 &rng) {
  const int64_t E = t.extent;
  if (t.vec_axis || t.channel_vector || t.levels != 4) return {};
  const int64_t r = pick(std::vector<int64_t>(std::begin(kRegisterRows), std::end(kRegisterRows)), rng);
  if (!takes_register_rows(t, r)) return {};  // a divisor: the divisor path draws it
  // The whole axis in one outer tile (Goto's loop order: a task owns a panel of
  // the other operand and sweeps every row block past it).
  if (std::uniform_real_distribution<double>(0, 1)(rng) < kOneTileProbability) return {(E + r - 1) / r, 1, r};
  for (int attempt = 0; attempt < 16; attempt++) {
    std::vector<int64_t> lv(3, 1);  // tiles, S1, S2 span in elements: their product is E
    for (auto p : prime_factors(E)) lv[std::uniform_int_distribution<int>(0, 2)(rng)] *= p;
    if (lv[0] < 2 || lv[2] < r) continue;  // one tile would exceed E; a span below one block
    std::vector<int64_t> l = {lv[1], (lv[2] + r - 1) / r, r};
    if (valid_tile(t, l) && few_rows_wasted(t, l)) return l;
  }
  return {};
}

bool set_register_rows(const TileSpec &t, std::vector<int64_t> &l, int64_t r) {
  if (!takes_register_rows(t, r) || l.size() != 3 || l[2] == r) return false;
  const int64_t span = l[1] * l[2];
  const bool one_tile = product(l) >= t.extent;
  for (int64_t s2 : {(span + r - 1) / r, span / r}) {  // the span rounded up, then down
    s2 = std::max<int64_t>(1, s2);
    std::vector<std::vector<int64_t>> options = {{l[0], s2, r}};
    // One outer tile stays one: S1 covers the extent in blocks of s2 x r rows.
    if (one_tile) options.push_back({(t.extent + s2 * r - 1) / (s2 * r), s2, r});
    for (const auto &nl : options)
      if (valid_tile(t, nl) && few_rows_wasted(t, nl)) {
        l = nl;
        return true;
      }
  }
  return false;
}

std::vector<int64_t> sample_tile(const TileSpec &t, std::mt19937_64 &rng) {
  const int64_t E = t.extent;
  const int n = t.levels;
  std::vector<int64_t> lv(n, 1);  // lv[0] = outer (derived)
  std::uniform_real_distribution<double> u(0, 1);
  if (u(rng) < kRegisterRowsProbability) {
    std::vector<int64_t> rows = sample_register_rows(t, rng);
    if (!rows.empty()) return rows;
  }
  double p_nondiv = (is_prime(E) && E > 3) ? 0.5 : 0.1;
  if (u(rng) >= p_nondiv) {
    int64_t rest = E;
    int top = n - 1;
    if (t.vec_axis) {
      std::vector<int64_t> cand;
      for (auto d : divisors(E))
        if (valid_vector(d)) cand.push_back(d);
      if (cand.empty()) return sample_nondiv(t, rng);  // a prime > 16 (29, 37)
      lv[n - 1] = pick(cand, rng);
      rest /= lv[n - 1];
      top = n - 2;
    }
    for (auto p : prime_factors(rest)) lv[std::uniform_int_distribution<int>(0, top)(rng)] *= p;
    return std::vector<int64_t>(lv.begin() + 1, lv.end());
  }
  return sample_nondiv(t, rng);
}

bool mutate_tile(const TileSpec &t, std::vector<int64_t> &l, std::mt19937_64 &rng) {
  const int n = t.levels;
  for (int attempt = 0; attempt < 16; attempt++) {
    int src = std::uniform_int_distribution<int>(0, n - 1)(rng);
    int dst = std::uniform_int_distribution<int>(0, n - 2)(rng);
    if (dst >= src) dst++;
    std::vector<int64_t> nl = l;
    int64_t prod = product(nl);
    if (src == 0) {
      int64_t p;
      if (t.extent % prod == 0) {
        int64_t outer = t.extent / prod;
        if (outer == 1) continue;
        p = pick(prime_factors(outer), rng);
      } else {
        p = pick(std::vector<int64_t>{2, 3}, rng);
      }
      nl[dst - 1] *= p;
    } else {
      if (nl[src - 1] == 1) continue;
      int64_t p = pick(prime_factors(nl[src - 1]), rng);
      nl[src - 1] /= p;
      if (dst != 0) nl[dst - 1] *= p;
    }
    if (valid_tile(t, nl) && nl != l) {
      l = nl;
      return true;
    }
  }
  return false;
}

bool reshape_block(const TileSpec &ta, std::vector<int64_t> &la, const TileSpec &tb, std::vector<int64_t> &lb,
                   std::mt19937_64 &rng) {
  if (la.size() != 3 || lb.size() != 3 || la[2] == 1) return false;
  for (int attempt = 0; attempt < 8; attempt++) {
    int64_t p = pick(prime_factors(la[2]), rng);
    std::vector<int64_t> na = la, nb = lb;
    na[2] /= p;
    na[1] *= p;
    nb[2] *= p;
    if (nb[1] % p == 0) nb[1] /= p;          // b's S2 x S3 tile unchanged
    else if (nb[0] % p == 0) nb[0] /= p;     // b's S1..S3 tile unchanged
    if (valid_tile(ta, na) && valid_tile(tb, nb)) {
      la = na;
      lb = nb;
      return true;
    }
  }
  return false;
}

void add_tiling_params(const Graph &g, const StagePlan &p, Sketch &s) {
  const StageInfo &st = g.stage(p.stage);
  const ChannelVector cv = channel_vector_input(st);
  const bool vec_channel = (p.cache_write || !p.consumer.empty()) && cv.found();
  if (vec_channel)
    s.choices.push_back(ChoiceSpec{p.stage, vec_channel_param(p.stage), {0, 1}, {}, true});
  if (window_taps(st) > 1 && blocked_lanes_reduce_axis(st) >= 0)
    s.choices.push_back(ChoiceSpec{p.stage, lanes_last_param(p.stage), {0, 1}, {}, true});
  if (!packable_input(st).empty()) {
    bool alone = !p.cache_write && p.consumer.empty();
    s.choices.push_back(alone ? ChoiceSpec{p.stage, p.stage + ".cache_read", {0, 1, 2, 3, 4}, {}}
                              : ChoiceSpec{p.stage, p.stage + ".cache_read", {0, 1, 3, 4}, {}});
  }
  int nd = static_cast<int>(st.spatial_axes.size());
  for (int i = 0; i < nd; i++)
    if (st.shape[i] > 1)
      s.tiles.push_back(TileSpec{p.stage, st.spatial_axes[i], st.shape[i], 4, i == nd - 1, vec_channel && i == cv.axis});
  for (const auto &r : st.reduce_axes)
    if (r.extent > 1) s.tiles.push_back(TileSpec{p.stage, r.var.name(), r.extent, 2, false});
}

// ---- instantiation ------------------------------------------------------------------

AxisTiles read_tiles(const Inst &in, const StageInfo &st) {
  AxisTiles t;
  int nd = static_cast<int>(st.spatial_axes.size());
  for (int i = 0; i < nd; i++) {
    if (st.shape[i] <= 1) {
      t.untiled_sp.push_back(i);
      continue;
    }
    TileSpec spec{st.name, st.spatial_axes[i], st.shape[i], 4, i == nd - 1};
    std::vector<int64_t> l;
    for (int k = 1; k < 4; k++) l.push_back(in.param(spec.param(k), 1));
    if (!valid_tile(spec, l)) l = {1, 1, spec.vec_axis ? 2 : 1};
    t.tiled_sp.push_back(i);
    t.sp[i] = l;
  }
  for (int j = 0; j < static_cast<int>(st.reduce_axes.size()); j++) {
    const auto &r = st.reduce_axes[j];
    if (r.extent <= 1) {
      t.untiled_red.push_back(j);
      continue;
    }
    TileSpec spec{st.name, r.var.name(), r.extent, 2, false};
    std::vector<int64_t> l = {in.param(spec.param(1), 1)};
    if (!valid_tile(spec, l)) l = {1};
    t.tiled_red.push_back(j);
    t.red[j] = l[0];
  }
  ChannelVector cv = channel_vector(in, st);
  if (cv.found() && t.sp.count(cv.axis)) {
    t.sp[cv.axis] = channel_vector_levels(t.sp[cv.axis], st.shape[cv.axis]);
  }
  return t;
}

std::vector<int64_t> channel_vector_levels(std::vector<int64_t> l, int64_t extent) {
  l[2] = kMaxVector * channel_vectors(l[2], extent);
  if (l[0] * l[1] * l[2] > extent) l[1] = std::max<int64_t>(1, extent / (l[0] * l[2]));
  if (l[0] * l[1] * l[2] > extent) l[0] = 1, l[1] = extent / l[2];
  return l;
}

ChannelVector channel_vector(const Inst &in, const StageInfo &st) {
  if (in.param(vec_channel_param(st.name), 0) != 1) return ChannelVector{};
  return channel_vector_input(st);
}

namespace {
void append(std::vector<std::string> &a, const std::vector<std::string> &b) {
  for (const auto &x : b)
    if (!x.empty()) a.push_back(x);
}

// Splits `axis` into levels of the given inner lengths (outermost level
// derived; its split gets GuardWithIf when it does not divide, or Auto on
// an outer stage: ShiftInwards on an output's pure loops, so that a stage
// computed at a tile always sees a whole tile). Returns one loop name per level, "" for a level that needs no
// loop: a split by 1 is never made (the remaining levels are then all 1).
std::vector<std::string> split_levels(Inst &in, const std::string &stage, const std::string &axis, int64_t extent,
                                      const std::vector<int64_t> &inner, bool outer_stage = false) {
  std::vector<std::string> names(inner.size() + 1);
  std::string cur = axis;
  for (size_t k = 0; k < inner.size(); k++) {
    int64_t f = 1;
    for (size_t m = k; m < inner.size(); m++) f *= inner[m];
    if (f == 1) break;
    auto [o, i] = in.split(stage, cur, f, k == 0 && !outer_stage ? tail_for(extent, f, false) : TailStrategy::Auto);
    names[k] = o;
    cur = i;
    names[k + 1] = cur;
  }
  if (names[0].empty()) names[0] = axis;
  return names;
}

// Splits the reduce axes of `stage` into R0 / R1 (untiled ones listed in rpre); with
// lanes_last_param, the input-channel lanes last in R1.
void split_reduce(Inst &in, const std::string &stage, const StageInfo &st, const AxisTiles &t,
                  std::vector<std::string> &rpre, std::vector<std::string> &r0, std::vector<std::string> &r1) {
  for (int j : t.untiled_red) rpre.push_back(st.reduce_axes[j].var.name());
  const int lanes = in.param(lanes_last_param(st.name), 0) == 1 ? blocked_lanes_reduce_axis(st) : -1;
  std::string lanes_r1;
  for (int j : t.tiled_red) {
    const auto &r = st.reduce_axes[j];
    auto n = split_levels(in, stage, r.var.name(), r.extent, {t.red.at(j)});
    r0.push_back(n[0]);
    if (j == lanes) lanes_r1 = n[1];
    else r1.push_back(n[1]);
  }
  if (lanes >= 0) r1.push_back(lanes_r1);  // lanes_last_param
}

std::string first(const std::vector<std::string> &v) {
  for (const auto &x : v)
    if (!x.empty()) return x;
  return "";
}
std::string last(const std::vector<std::string> &v) {
  for (auto it = v.rbegin(); it != v.rend(); ++it)
    if (!it->empty()) return *it;
  return "";
}

void add_points(Placed &pl, const std::vector<std::string> &pts) {
  for (const auto &p : pts)
    if (!p.empty() && std::find(pl.attach_points.begin(), pl.attach_points.end(), p) == pl.attach_points.end())
      pl.attach_points.push_back(p);
}
}  // namespace

// The axis of the packable input that st's last spatial axis (the axis the
// vector and the panels run along) indexes: its last for B[k, j], its first
// for a weight stored W[j, k] (dense, ONNX Gemm transB). -1 when none does;
// pre-order, the last access of the input decides. `rank` (may be null): the input's rank.
static int input_axis_of_last_axis(const StageInfo &st, const std::string &input, int *rank = nullptr) {
  int nd = static_cast<int>(st.spatial_axes.size());
  int axis = -1;
  pre_order_visit(st.tensor->body, [&](const Expr &e) {
    if (e->kind == ExprKind::Access && e->tensor && e->tensor->name == input && !e->args.empty()) {
      axis = -1;
      if (rank) *rank = static_cast<int>(e->args.size());
      for (size_t d = 0; d < e->args.size(); d++) {
        const Expr &a = e->args[d];
        if (a->kind == ExprKind::Var && a->var.get() == st.tensor->axes[nd - 1].var.get()) axis = static_cast<int>(d);
      }
    }
    return true;
  });
  return axis;
}

// Whether that axis is the input's last (a copy's vector loop then reads it contiguously).
static bool input_follows_last_axis(const StageInfo &st, const std::string &input) {
  int rank = 0;
  int axis = input_axis_of_last_axis(st, input, &rank);
  return axis >= 0 && axis == rank - 1;
}

// Whether the tiles of st's last spatial axis divide its extent. Where they
// do not, the guarded tail tile of a copy of the input reads wrong values
// in Halide-JIT code: packed at root, GEMM 64x48x40 with j tiles of 32 over
// 48 columns doubled column 32; copied at the R0 loop, the same tiles gave
// element [1, 0] 3.88 instead of 0.83 (AVX2, Zen 3).
static bool last_axis_tiles_divide(const StageInfo &st, const AxisTiles &t) {
  auto it = t.sp.find(static_cast<int>(st.spatial_axes.size()) - 1);
  if (it == t.sp.end()) return false;
  const std::vector<int64_t> &l = it->second;
  return st.shape.back() % (l[0] * l[1] * l[2]) == 0;
}

// Packs the reused input of `reader` (which evaluates the body of st) into a
// copy computed at loop `at` of reader; the copy's innermost loop is vectorized
// when every region it copies is a whole number of vectors. Nothing where the
// last axis' tiles do not divide its extent (last_axis_tiles_divide).
static void pack_input(Inst &in, const std::string &reader, const StageInfo &st, const AxisTiles &t,
                       const std::string &at) {
  std::string input = packable_input(st);
  if (input.empty() || at.empty() || !last_axis_tiles_divide(st, t)) return;
  std::string cache = in.sch.cache_read(input, {reader});
  in.sch.compute_at(cache, reader, at);
  const StageInfo &cs = in.sch.stage(cache);
  if (cs.leaves.empty()) return;
  int nd = static_cast<int>(st.spatial_axes.size());
  int64_t last_extent = cs.shape.back();
  auto it = t.sp.find(nd - 1);
  if (it == t.sp.end() || it->second[2] % kMaxVector != 0 || last_extent % kMaxVector != 0) return;
  // The copy's last axis must follow the reader's (vector) last spatial axis.
  if (!input_follows_last_axis(st, input)) return;
  const std::string inner_axis = cs.leaves.back().name;  // a copy: split() changes cs
  auto [o, i] = in.split(cache, inner_axis, kMaxVector, TailStrategy::GuardWithIf);
  in.sch.vectorize(cache, i);
}

// A copy of `input` for `reader`, computed at root and stored in panels of
// `panel` elements along its axis `dim` (-1: the last; pack_layout), parallel over the
// panels (par_grain of st) and vectorized within one.
static void pack_at_root(Inst &in, const std::string &reader, const StageInfo &st, const std::string &input, int dim,
                         int64_t panel) {
  std::string cache = in.sch.cache_read(input, {reader});
  const auto &axes = in.sch.stage(cache).spatial_axes;
  const std::string axis = dim < 0 ? axes.back() : axes.at(dim);
  auto [o, i] = in.sch.pack_layout(cache, axis, panel);
  parallel_with_max_tasks(in.sch, cache, o, in.param(st.name + ".par_grain", 16) * std::max(1, in.g.threads));
  if (panel <= kMaxVector) {
    in.sch.vectorize(cache, i);
  } else if (panel % kMaxVector == 0) {
    auto [vo, vi] = in.split(cache, i, kMaxVector, TailStrategy::GuardWithIf);
    in.sch.vectorize(cache, vi);
  }
}

// Packs the reused input of `reader` at root into panels of `panel` elements
// of the input axis that st's last spatial axis indexes (choices 3 and 4
// above): W[j, k] is stored [j / panel, k, panel] as B[k, j] is stored
// [j / panel, k, panel], so that both GEMMs stream contiguous panels (a
// constant's copy is made once, at compile time: codegen/prepack.h); nothing
// when the panel does not divide the last spatial axis' extent.
static void pack_input_at_root(Inst &in, const std::string &reader, const StageInfo &st, int64_t panel) {
  std::string input = packable_input(st);
  const int axis = input.empty() ? -1 : input_axis_of_last_axis(st, input);
  if (axis < 0 || panel < 2) return;
  int64_t extent = st.shape.back();
  if (panel >= extent || extent % panel != 0) return;
  pack_at_root(in, reader, st, input, axis, panel);
}

// Applies the ".cache_read" choice 3 or 4 (see the top of this file). Not
// when the tiles of the last axis do not divide its extent (last_axis_tiles_divide).
static void pack_input_choice_at_root(Inst &in, const std::string &reader, const StageInfo &st, const AxisTiles &t) {
  int64_t cr = in.param(st.name + ".cache_read", 0);
  if ((cr != 3 && cr != 4) || !last_axis_tiles_divide(st, t)) return;
  const std::vector<int64_t> &l = t.sp.at(static_cast<int>(st.spatial_axes.size()) - 1);
  pack_input_at_root(in, reader, st, cr == 3 ? l[2] : l[1] * l[2]);
}

// Rows first (see the top of this file): moves the rows' outer tile loop
// before the channel blocks' in `level0` (the S0 loops of O's tiled axes, in
// t.tiled_sp order) where the rule holds.
static void rows_first(const Inst &in, const std::string &O, const StageInfo &st, const AxisTiles &t,
                       std::vector<std::string> &level0) {
  constexpr int kChannels = 1, kRows = 2;
  if (st.spatial_axes.size() != 5 || level0.size() != t.tiled_sp.size()) return;
  auto at = [&](int axis) {
    return static_cast<int>(std::find(t.tiled_sp.begin(), t.tiled_sp.end(), axis) - t.tiled_sp.begin());
  };
  const int c = at(kChannels), r = at(kRows);
  if (c >= static_cast<int>(level0.size()) || r >= static_cast<int>(level0.size())) return;
  const RowSplitBytes b = row_split_bytes(st, kRows);
  const int64_t tiles = leaf_extent(in.sch, O, level0[r]), threads = std::max(1, in.g.threads);
  const bool even = threads > 1 && tiles >= threads && tiles % threads == 0;
  if (2 * b.shared > b.rows || in.tail_loops.count({O, level0[r]}) || (tiles < kRowsPerThread * threads && !even))
    return;
  std::swap(level0[c], level0[r]);
}

// The stage alone: S0 S1 R0 S2 R1 S3 on one stage (which then holds the reduction's update).
static void tile_standalone(Inst &in, const StageInfo &st, const AxisTiles &t) {
  const std::string &S = st.name;
  std::vector<std::string> pre, s0, s1, s2, s3, rpre, r0, r1;
  for (int i : t.untiled_sp) pre.push_back(st.spatial_axes[i]);
  std::string vec;
  for (int i : t.tiled_sp) {
    auto n = split_levels(in, S, st.spatial_axes[i], st.shape[i], t.sp.at(i));
    s0.push_back(n[0]), s1.push_back(n[1]), s2.push_back(n[2]), s3.push_back(n[3]);
    if (i == static_cast<int>(st.spatial_axes.size()) - 1) vec = n[3];
  }
  split_reduce(in, S, st, t, rpre, r0, r1);
  rows_first(in, S, st, t, s0);
  std::vector<std::string> outer, order;
  append(outer, pre);
  append(outer, s0);
  append(outer, s1);
  order = outer;
  append(order, rpre);
  append(order, r0);
  append(order, s2);
  append(order, r1);
  append(order, s3);
  in.sch.reorder(S, order);
  int64_t par = in.param(S + ".parallel", 1);
  fuse_parallel(in, S, outer, static_cast<int>(std::min<int64_t>(par, static_cast<int64_t>(outer.size()))));
  if (!vec.empty()) maybe_vectorize(in.sch, S, vec);
  std::vector<std::string> r1n;
  append(r1n, r1);
  for (const auto &x : s3)
    if (!x.empty() && x != vec) r1n.push_back(x);
  unroll_inner(in.sch, S, r1n, in.param(S + ".max_unroll", 16));
  int64_t cr = in.param(S + ".cache_read", 0);
  if (cr == 1) pack_input(in, S, st, t, first(r0));
  else if (cr == 2) pack_input(in, S, st, t, last(outer));
  else pack_input_choice_at_root(in, S, st, t);
  Placed &pl = in.placed[S];
  pl.compute_name = S;
  add_points(pl, {last(outer), first(r0)});
}

std::string tile_outer(Inst &in, const std::string &O, const std::vector<std::string> &o_axes, const StageInfo &st,
                       const AxisTiles &t, int L, int64_t parallel) {
  std::vector<std::string> pre, outer, rems;
  for (int i : t.untiled_sp) pre.push_back(o_axes[i]);
  std::vector<std::vector<std::string>> levels(L + 1);
  std::string vec;
  int lastax = static_cast<int>(o_axes.size()) - 1;
  for (int i : t.tiled_sp) {
    const auto &l = t.sp.at(i);
    bool v = i == lastax && l[2] > 1;
    std::vector<int64_t> inner = {l[0]};
    if (L == 2 || v) inner.push_back(l[1]), inner.push_back(l[2]);
    else inner.push_back(l[1] * l[2]);
    // Auto = ShiftInwards on an output's pure definition: every tile is
    // whole, so the stage computed at it always sees a full tile.
    auto n = split_levels(in, O, o_axes[i], st.shape[i], inner, true);
    for (int k = 0; k <= L; k++) levels[k].push_back(n[k]);
    for (size_t k = L + 1; k < n.size(); k++) rems.push_back(n[k]);
    if (v) vec = n.back();
  }
  append(outer, pre);
  rows_first(in, O, st, t, levels[0]);
  for (const auto &lv : levels) append(outer, lv);
  std::vector<std::string> order = outer;
  append(order, rems);
  in.sch.reorder(O, order);
  fuse_parallel(in, O, outer, static_cast<int>(std::min<int64_t>(parallel, static_cast<int64_t>(outer.size()))));
  if (!vec.empty()) maybe_vectorize(in.sch, O, vec);
  Placed &pl = in.placed[O];
  pl.compute_name = O;
  add_points(pl, {first(outer), last(outer)});
  return last(outer);
}

// Channel vectorization of the inner stage I (see the top of this file): I
// stored channel-innermost, the weight packed at root in panels as wide as
// the register block's channels (`panel`: 1, 2 or 4 vectors).
static void pack_channel_weight(Inst &in, const std::string &I, const StageInfo &st, const ChannelVector &cv,
                                int64_t panel) {
  std::vector<std::string> storage;
  for (size_t i = 0; i < st.spatial_axes.size(); i++)
    if (static_cast<int>(i) != cv.axis) storage.push_back(st.spatial_axes[i]);
  storage.push_back(st.spatial_axes[cv.axis]);
  in.sch.reorder_storage(I, storage);
  pack_at_root(in, I, st, cv.input, cv.input_dim, panel);
}

void tile_inner(Inst &in, const std::string &I, const StageInfo &st, const AxisTiles &t, int L, int64_t max_unroll) {
  std::vector<std::string> pre, s2, s3, rpre, r0, r1;
  for (int i : t.untiled_sp) pre.push_back(st.spatial_axes[i]);
  std::string vec;
  ChannelVector cv = channel_vector(in, st);
  int vec_axis = cv.found() ? cv.axis : static_cast<int>(st.spatial_axes.size()) - 1;
  for (int i : t.tiled_sp) {
    auto n = split_levels(in, I, st.spatial_axes[i], st.shape[i], {t.sp.at(i)[2]});
    s2.push_back(n[0]), s3.push_back(n[1]);
    if (i == vec_axis) vec = n[1];
  }
  // The vector loop innermost.
  auto vit = std::find(s3.begin(), s3.end(), vec);
  if (!vec.empty() && vit != s3.end()) {
    s3.erase(vit);
    s3.push_back(vec);
  }
  split_reduce(in, I, st, t, rpre, r0, r1);
  std::vector<std::string> order;
  append(order, pre);
  if (L == 2) append(order, s2);
  append(order, rpre);
  append(order, r0);
  if (L != 2) append(order, s2);
  append(order, r1);
  append(order, s3);
  in.sch.reorder(I, order);
  if (!vec.empty()) maybe_vectorize(in.sch, I, vec);
  // Unrolled from the innermost outwards: the register block (S3 loops but
  // the vector one), then R1, while the product of extents <= max_unroll.
  std::vector<std::string> r1n;
  append(r1n, r1);
  for (const auto &x : s3)
    if (!x.empty() && x != vec) r1n.push_back(x);
  unroll_inner(in.sch, I, r1n, max_unroll);
  if (cv.found()) {
    pack_channel_weight(in, I, st, cv, t.sp.at(cv.axis)[2]);
  } else {
    if (in.param(st.name + ".cache_read", 0) == 1) pack_input(in, I, st, t, first(r0));
    pack_input_choice_at_root(in, I, st, t);
  }
  Placed &pl = in.placed[I];
  pl.compute_name = I;
  // Producers (a conv's pad) may be computed at the outermost reduce tile
  // loop only: at an inner one (rx of a stride-2 conv) Halide's JIT code
  // crashed (sliding window over a strided footprint, it seems).
  if (first(r0).empty()) add_points(pl, {order.front()});
  else add_points(pl, {first(r0)});
}

void instantiate_tiled(Inst &in, const StagePlan &p) {
  const StageInfo &st = in.g.stage(p.stage);
  AxisTiles t = read_tiles(in, st);
  if (p.cache_write) {
    std::string local = in.sch.cache_write(p.stage);
    int L = static_cast<int>(in.param(p.stage + ".at_level", 1));
    if (L != 2) L = 1;
    std::string at = tile_outer(in, p.stage, st.spatial_axes, st, t, L, in.param(p.stage + ".parallel", 1));
    in.sch.compute_at(local, p.stage, at);
    tile_inner(in, local, st, t, L, in.param(p.stage + ".max_unroll", 16));
    in.placed[p.stage].compute_name = local;
    return;
  }
  if (!p.consumer.empty()) {
    // The consumer (visited earlier) tiled itself and left the loop to compute at.
    const Placed &cons = in.placed.at(p.consumer);
    int L = static_cast<int>(in.param(p.stage + ".at_level", 1));
    if (L != 2) L = 1;
    in.sch.compute_at(p.stage, cons.pending_at_stage, cons.pending_at_axis);
    tile_inner(in, p.stage, st, t, L, in.param(p.stage + ".max_unroll", 16));
    return;
  }
  tile_standalone(in, st, t);
}

}  // namespace ss
}  // namespace autotune
}  // namespace tetune
