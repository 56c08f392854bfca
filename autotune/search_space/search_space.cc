// SearchSpace: sketch generation by rules (outputs to inputs), random
// annotation, mutation, crossover and instantiation into schedule steps.
#include "autotune/search_space/search_space.h"

#include <algorithm>
#include <deque>

#include "autotune/search_space/search_space_internal.h"
#include "schedule/trace.h"
#include "base/errors.h"

namespace tetune {
namespace autotune {

namespace ss {
std::vector<int64_t> get_tile(const Candidate &c, const TileSpec &t) {
  std::vector<int64_t> l;
  for (int k = 1; k < t.levels; k++) {
    auto it = c.params.find(t.param(k));
    l.push_back(it == c.params.end() ? 1 : it->second);
  }
  return l;
}

void set_tile(Candidate &c, const TileSpec &t, const std::vector<int64_t> &l) {
  for (int k = 1; k < t.levels; k++) c.params[t.param(k)] = l[k - 1];
}
}  // namespace ss

namespace {
using namespace ss;

constexpr size_t kMaxSketches = 64;

std::string describe(const Graph &g, const StagePlan &p) {
  switch (p.kind) {
    case PlanKind::Inline: return p.stage + ": inline";
    case PlanKind::FusedConsumer: return p.stage + ": tiled following " + p.producer;
    case PlanKind::RFactor:
      return p.stage + (p.rf_form == RFactorForm::Accumulators
                            ? ": rfactor of the innermost reduce axis into independent vector accumulators"
                            : ": rfactor of the split reduce axis (parallel partial sums)");
    case PlanKind::Tiled: {
      std::string d = p.stage + ": multi-level tiling SSRSRS";
      if (p.cache_write) d += " + cache_write";
      if (!p.consumer.empty()) d += " + fused consumer " + p.consumer;
      std::string packed = packable_input(g.stage(p.stage));
      if (!packed.empty()) d += " (+ cache_read " + packed + " choice)";
      return d;
    }
    case PlanKind::Simple: {
      std::string d = p.stage + ": simple (vectorize / parallel";
      if (g.stage(p.stage).is_reduction()) d += " / unroll";
      d += ")";
      if (p.loc_choice) d += " + compute location choice";
      return d;
    }
  }
  return p.stage;
}

void finalize(const Graph &g, Sketch &s) {
  std::vector<std::string> parts;
  for (auto &p : s.plans) {
    switch (p.kind) {
      case PlanKind::Tiled:
        add_tiling_params(g, p, s);
        add_annotation_params(g, p, s);
        break;
      case PlanKind::Simple:
        p.unroll_tiles = parse_unroll_tiles(g, g.stage(p.stage));  // parsed once: every candidate reads it
        add_location_params(g, p, s);
        add_simple_params(g, p, s);
        break;
      case PlanKind::RFactor: add_rfactor_params(g, p, s); break;
      default: break;
    }
  }
  for (auto it = s.plans.rbegin(); it != s.plans.rend(); ++it) parts.push_back(describe(g, *it));
  std::string d;
  for (size_t i = 0; i < parts.size(); i++) d += (i ? "; " : "") + parts[i];
  s.description = d;
}

std::vector<Sketch> generate_sketches(const Graph &g) {
  std::vector<std::unique_ptr<SketchRule>> rules;
  rules.push_back(make_rule_inline());
  rules.push_back(make_rule_rfactor());
  rules.push_back(make_rule_fuse_consumer());
  rules.push_back(make_rule_cache_write());
  rules.push_back(make_rule_multi_level_tiling());
  rules.push_back(make_rule_simple());
  Sketch init;
  for (const auto &st : g.stages) init.plans.push_back(StagePlan{st.name});
  std::deque<std::pair<Sketch, int>> todo = {{init, static_cast<int>(g.stages.size()) - 1}};
  std::vector<Sketch> done;
  while (!todo.empty() && done.size() < kMaxSketches) {
    auto [s, i] = todo.front();
    todo.pop_front();
    if (i < 0) {
      done.push_back(s);
      continue;
    }
    const std::string &stage = g.stages[i].name;
    if (s.plan(stage).kind == PlanKind::FusedConsumer) {
      todo.emplace_back(s, i - 1);
      continue;
    }
    for (const auto &r : rules) {
      RuleResult res = r->condition(g, s, stage);
      if (res == RuleResult::Skip) continue;
      for (auto &n : r->apply(g, s, stage)) todo.emplace_back(std::move(n), i - 1);
      if (res == RuleResult::ApplyAndSkipRest) break;
    }
  }
  for (auto &s : done) finalize(g, s);
  return done;
}

int64_t pick_choice(const ChoiceSpec &c, std::mt19937_64 &rng) {
  if (c.weights.size() == c.values.size() && !c.weights.empty()) {
    std::discrete_distribution<size_t> d(c.weights.begin(), c.weights.end());
    return c.values[d(rng)];
  }
  return c.values[std::uniform_int_distribution<size_t>(0, c.values.size() - 1)(rng)];
}

// reshape_block() on two random spatial tiles of one stage of c's sketch.
bool reshape_some_block(const Sketch &s, Candidate &c, std::mt19937_64 &rng) {
  std::vector<std::pair<size_t, size_t>> pairs;  // (a, b) spatial tiles of one stage, a != b
  for (size_t a = 0; a < s.tiles.size(); a++)
    for (size_t b = 0; b < s.tiles.size(); b++)
      if (a != b && s.tiles[a].levels == 4 && s.tiles[b].levels == 4 && s.tiles[a].stage == s.tiles[b].stage)
        pairs.emplace_back(a, b);
  if (pairs.empty()) return false;
  for (int attempt = 0; attempt < 4; attempt++) {
    auto [a, b] = pairs[std::uniform_int_distribution<size_t>(0, pairs.size() - 1)(rng)];
    std::vector<int64_t> la = get_tile(c, s.tiles[a]), lb = get_tile(c, s.tiles[b]);
    if (!valid_tile(s.tiles[a], la) || !valid_tile(s.tiles[b], lb)) continue;
    if (reshape_block(s.tiles[a], la, s.tiles[b], lb, rng)) {
      set_tile(c, s.tiles[a], la);
      set_tile(c, s.tiles[b], lb);
      return true;
    }
  }
  return false;
}

// The innermost (S3) length of spatial tile t as instantiated: a
// channel-vectorized axis holds channel_vector_levels (16, 32 or 64 lanes).
int64_t innermost_length(const Candidate &c, const TileSpec &t) {
  std::vector<int64_t> l = get_tile(c, t);
  auto vc = c.params.find(vec_channel_param(t.stage));
  if (t.channel_vector && vc != c.params.end() && vc->second == 1) l = channel_vector_levels(l, t.extent);
  return std::max<int64_t>(1, l.back());
}

// Gives one register block of c as many rows (a kRegisterRows height) as fill
// max_block elements with the block's other spatial S3 lengths (AVX-512's 384:
// 64 columns, 6 rows; 32, 12), keeping the tile's S1 and S2 x S3 span (set_register_rows).
bool fill_some_block(const Sketch &s, Candidate &c, int64_t max_block, std::mt19937_64 &rng) {
  std::vector<std::pair<size_t, int64_t>> options;  // (tile, rows)
  for (size_t a = 0; a < s.tiles.size(); a++) {
    if (s.tiles[a].levels != 4 || s.tiles[a].vec_axis || s.tiles[a].channel_vector) continue;
    int64_t others = 1;  // the block's other S3 lengths, as instantiated
    for (size_t b = 0; b < s.tiles.size(); b++)
      if (b != a && s.tiles[b].levels == 4 && s.tiles[b].stage == s.tiles[a].stage) others *= innermost_length(c, s.tiles[b]);
    int64_t rows = 0;
    for (int64_t r : kRegisterRows)
      if (r * others <= max_block) rows = r;
    if (rows > 0) options.emplace_back(a, rows);
  }
  if (options.empty()) return false;
  auto [a, rows] = options[std::uniform_int_distribution<size_t>(0, options.size() - 1)(rng)];
  std::vector<int64_t> l = get_tile(c, s.tiles[a]);
  if (!valid_tile(s.tiles[a], l) || !set_register_rows(s.tiles[a], l, rows)) return false;
  set_tile(c, s.tiles[a], l);
  return true;
}

// Unrolls the reduction inside one register block of c: a stage with one
// reduce tile, a vectorized spatial tile and a max_unroll choice gets its
// innermost reduce level (R1) set to 2 or 4 and the smallest max_unroll that
// covers the block's rows times R1 (rule_parallel_vectorize_unroll.cc unrolls
// the rows, then R1, within it). False when no stage qualifies or the block
// is too tall for the largest max_unroll.
bool unroll_some_reduction(const Sketch &s, Candidate &c, std::mt19937_64 &rng) {
  std::vector<size_t> reduce_tiles;
  for (size_t a = 0; a < s.tiles.size(); a++) {
    if (s.tiles[a].levels != 2) continue;
    int reduce = 0;
    bool vector = false;
    for (const auto &t : s.tiles)
      if (t.stage == s.tiles[a].stage) reduce += t.levels == 2, vector |= t.vec_axis;
    if (reduce == 1 && vector) reduce_tiles.push_back(a);
  }
  if (reduce_tiles.empty()) return false;
  const TileSpec &r = s.tiles[reduce_tiles[std::uniform_int_distribution<size_t>(0, reduce_tiles.size() - 1)(rng)]];
  const ChoiceSpec *unroll = nullptr;
  for (const auto &ch : s.choices)
    if (ch.name == r.stage + ".max_unroll") unroll = &ch;
  if (!unroll) return false;
  int64_t rows = 1;  // the block's non-vector S3 lengths, all unrolled
  for (const auto &t : s.tiles)
    if (t.stage == r.stage && t.levels == 4 && !t.vec_axis) rows *= innermost_length(c, t);
  std::vector<int64_t> r1s;
  for (int64_t f : {2, 4})
    if (r.extent % f == 0) r1s.push_back(f);
  if (r1s.empty()) return false;
  int64_t r1 = r1s[std::uniform_int_distribution<size_t>(0, r1s.size() - 1)(rng)];
  int64_t budget = 0;
  for (int64_t v : unroll->values)
    if (v >= rows * r1 && (budget == 0 || v < budget)) budget = v;
  if (budget == 0 || !valid_tile(r, {r1})) return false;
  set_tile(c, r, {r1});
  c.params[unroll->name] = budget;
  return true;
}
}  // namespace

SearchSpace::SearchSpace(const Task &task) : impl_(std::make_unique<Impl>()) {
  impl_->task = task;
  if (task.outputs.empty()) throw Error("search space: task '" + task.name + "' has no outputs");
  const Target::VectorUnit unit = task.target.vector_unit();
  if (unit.lanes > 0) {  // a CPU target
    impl_->vector_lanes = unit.lanes;
    impl_->max_register_block = unit.registers * 3 / 4 * unit.lanes;
  }
  impl_->graph = analyze(task.outputs);
  impl_->graph.threads = task.threads;
  impl_->sketches = generate_sketches(impl_->graph);
  if (impl_->sketches.empty()) throw Error("search space: no sketch rule applies to task '" + task.name + "'");
}

SearchSpace::~SearchSpace() = default;

int SearchSpace::num_sketches() const { return static_cast<int>(impl_->sketches.size()); }
int64_t SearchSpace::max_register_block() const { return impl_->max_register_block; }
int64_t SearchSpace::vector_lanes() const { return impl_->vector_lanes; }

std::string SearchSpace::sketch_description(int i) const {
  if (i < 0 || i >= num_sketches()) throw Error("search space: no sketch " + std::to_string(i));
  return impl_->sketches[i].description;
}

// (stage, innermost S3 length) of every spatial tile of c's sketch (reduce axes have 2 levels).
static std::vector<std::pair<std::string, int64_t>> innermost_spatial(const Sketch &s, const Candidate &c) {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto &t : s.tiles)
    if (t.levels == 4) out.emplace_back(t.stage, innermost_length(c, t));
  return out;
}

int64_t SearchSpace::register_block(const Candidate &c) const {
  if (c.sketch < 0 || c.sketch >= num_sketches()) return 0;
  std::map<std::string, int64_t> block;  // stage -> product of spatial S3 lengths
  for (const auto &[stage, s3] : innermost_spatial(impl_->sketches[c.sketch], c)) block.emplace(stage, 1).first->second *= s3;
  int64_t most = 1;
  for (const auto &[stage, b] : block) most = std::max(most, b);
  return most;
}

std::string SearchSpace::family(const Candidate &c) const {
  if (c.sketch < 0 || c.sketch >= num_sketches()) return "";
  const Sketch &s = impl_->sketches[c.sketch];
  std::string sig = std::to_string(c.sketch) + ":";
  for (const auto &[stage, s3] : innermost_spatial(s, c)) sig += std::to_string(s3) + "x";
  for (const auto &ch : s.choices) {
    auto it = c.params.find(ch.name);
    if (ch.structural && it != c.params.end()) sig += "|" + ch.name + "=" + std::to_string(it->second);
  }
  return sig;
}

// A change from `from` to `next` keeps the register-block bound, or at least does not grow a block already past it.
static bool keeps_block_bound(const SearchSpace &sp, const Candidate &next, const Candidate &from) {
  return sp.register_block(next) <= std::max(sp.max_register_block(), sp.register_block(from));
}

Candidate SearchSpace::sample(std::mt19937_64 &rng) const {
  Candidate c;
  c.sketch = std::uniform_int_distribution<int>(0, num_sketches() - 1)(rng);
  const Sketch &s = impl_->sketches[c.sketch];
  // Tile sizes are drawn again (a few times) while the register block is too
  // big: before the choices are drawn, then once more if channel
  // vectorization (a choice) widened it to whole vectors of channels.
  auto draw_tiles = [&] {
    for (int attempt = 0; attempt < 32; attempt++) {
      for (const auto &t : s.tiles) set_tile(c, t, sample_tile(t, rng));
      if (register_block(c) <= max_register_block()) break;
    }
  };
  draw_tiles();
  for (const auto &ch : s.choices) c.params[ch.name] = pick_choice(ch, rng);
  if (register_block(c) > max_register_block()) draw_tiles();
  return c;
}

Candidate SearchSpace::mutate(const Candidate &c, std::mt19937_64 &rng) const {
  if (c.sketch < 0 || c.sketch >= num_sketches()) throw Error("search space: candidate of unknown sketch " + std::to_string(c.sketch));
  const Sketch &s = impl_->sketches[c.sketch];
  Candidate out = c;
  size_t n = s.tiles.size() + s.choices.size();
  if (n == 0) return out;
  // One mutation in four reshapes a register block, when the sketch has one of two or more axes.
  if (std::bernoulli_distribution(0.25)(rng)) {
    Candidate next = out;
    // (A channel-vectorized axis holds whole vectors, so a reshape can still grow the block.)
    if (reshape_some_block(s, next, rng) && keeps_block_bound(*this, next, out)) return next;
  }
  // One in eight fills the accumulator registers: from the power-of-two blocks
  // the search starts with, moving factors alone never reaches 6 or 12 rows
  // on a power-of-two extent (GEMM 1024, 512 trials: 2-6 of them had 6x64).
  if (std::bernoulli_distribution(kFillRowsProbability)(rng)) {
    Candidate next = out;
    if (fill_some_block(s, next, max_register_block(), rng) && keeps_block_bound(*this, next, out)) return next;
  }
  if (std::bernoulli_distribution(kUnrollReductionProbability)(rng)) {
    Candidate next = out;
    if (unroll_some_reduction(s, next, rng) && next.params != out.params) return next;
  }
  for (int attempt = 0; attempt < 16; attempt++) {
    size_t k = std::uniform_int_distribution<size_t>(0, n - 1)(rng);
    if (k < s.tiles.size()) {
      const TileSpec &t = s.tiles[k];
      std::vector<int64_t> l = get_tile(out, t);
      if (!valid_tile(t, l)) {
        set_tile(out, t, sample_tile(t, rng));
        return out;
      }
      if (mutate_tile(t, l, rng)) {
        Candidate next = out;
        set_tile(next, t, l);
        if (!keeps_block_bound(*this, next, out)) continue;
        return next;
      }
    } else {
      const ChoiceSpec &ch = s.choices[k - s.tiles.size()];
      if (ch.values.size() < 2) continue;
      int64_t cur = out.params.count(ch.name) ? out.params.at(ch.name) : ch.values[0];
      std::vector<int64_t> others;
      for (auto v : ch.values)
        if (v != cur) others.push_back(v);
      Candidate next = out;
      next.params[ch.name] = others[std::uniform_int_distribution<size_t>(0, others.size() - 1)(rng)];
      if (!keeps_block_bound(*this, next, out)) continue;  // channel vectorization widens the block to whole vectors
      return next;
    }
  }
  return out;
}

Candidate SearchSpace::crossover(const Candidate &a, const Candidate &b, std::mt19937_64 &rng) const {
  if (a.sketch != b.sketch || a.sketch < 0 || a.sketch >= num_sketches()) return a;
  const Sketch &s = impl_->sketches[a.sketch];
  std::map<std::string, bool> from_b;
  std::bernoulli_distribution coin(0.5);
  for (const auto &t : s.tiles)
    if (!from_b.count(t.stage)) from_b[t.stage] = coin(rng);
  for (const auto &ch : s.choices)
    if (!from_b.count(ch.stage)) from_b[ch.stage] = coin(rng);
  Candidate out = a;
  for (const auto &t : s.tiles)
    if (from_b[t.stage]) set_tile(out, t, get_tile(b, t));
  for (const auto &ch : s.choices)
    if (from_b[ch.stage] && b.params.count(ch.name)) out.params[ch.name] = b.params.at(ch.name);
  if (!keeps_block_bound(*this, out, a)) return a;
  return out;
}

std::vector<Step> SearchSpace::steps(const Candidate &c) const { return schedule(c).trace(); }

Schedule SearchSpace::schedule(const Candidate &c) const {
  if (c.sketch < 0 || c.sketch >= num_sketches()) throw Error("search space: candidate of unknown sketch " + std::to_string(c.sketch));
  const Sketch &s = impl_->sketches[c.sketch];
  Inst in{impl_->graph, s, c, Schedule(impl_->task.outputs), {}};
  const auto &stages = impl_->graph.stages;
  for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
    const StagePlan &p = s.plan(it->name);
    switch (p.kind) {
      case PlanKind::Inline:
        in.sch.compute_inline(p.stage);
        in.placed[p.stage].inlined = true;
        in.placed[p.stage].compute_name = p.stage;
        break;
      case PlanKind::Simple: instantiate_simple(in, p); break;
      case PlanKind::Tiled: instantiate_tiled(in, p); break;
      case PlanKind::FusedConsumer: instantiate_fused_consumer(in, p); break;
      case PlanKind::RFactor: instantiate_rfactor(in, p); break;
    }
  }
  return std::move(in.sch);
}

}  // namespace autotune
}  // namespace tetune
