#include "schedule/schedule.h"

#include <algorithm>
#include <functional>
#include <type_traits>
#include <variant>

#include "base/errors.h"

namespace tetune {

int StageInfo::leaf_index(const std::string &axis) const {
  for (size_t i = 0; i < leaves.size(); i++)
    if (leaves[i].name == axis) return static_cast<int>(i);
  return -1;
}

namespace {
template <typename S>
[[noreturn]] void fail(const S &s, const std::string &why) {
  throw ScheduleError("illegal schedule step " + s.str() + ": " + why);
}

// Fills the root loops of a stage: spatial axes then reduce axes.
void init_loops(StageInfo &st, const std::vector<std::string> &spatial, const Shape &shape,
                const std::vector<IterVar> &reduce) {
  st.spatial_axes = spatial;
  st.shape = shape;
  st.reduce_axes = reduce;
  st.leaves.clear();
  st.relations.clear();
  st.all_axes.clear();
  for (size_t i = 0; i < spatial.size(); i++) {
    st.leaves.push_back(LeafAxis{spatial[i], shape[i], false, ""});
    st.all_axes.insert(spatial[i]);
  }
  for (const auto &r : reduce) {
    st.leaves.push_back(LeafAxis{r.var.name(), r.extent, true, ""});
    st.all_axes.insert(r.var.name());
  }
}
}  // namespace

Schedule::Schedule(const std::vector<Tensor> &outputs) : outputs_(outputs) {
  if (outputs.empty()) throw Error("Schedule needs at least one output tensor");
  for (const auto &o : outputs)
    if (!o.defined() || o.is_placeholder()) throw Error("Schedule output '" + (o.defined() ? o.name() : "?") + "' is not a compute");
  inputs_ = collect_placeholders(outputs);
  std::map<const TensorNode *, std::string> names;
  std::set<std::string> used;
  auto unique = [&](const std::string &base) {
    std::string n = base;
    for (int k = 1; used.count(n); k++) n = base + "_" + std::to_string(k);
    used.insert(n);
    return n;
  };
  for (const auto &t : post_order(outputs)) names[t.node().get()] = unique(t.name());
  for (const auto &t : post_order(outputs)) {
    if (t.is_placeholder()) continue;
    StageInfo st;
    st.kind = StageInfo::Compute;
    st.name = names[t.node().get()];
    st.tensor = t;
    tensor_stage_[t.node().get()] = st.name;
    for (const auto &o : outputs) st.is_output |= o.same_as(t);
    std::vector<std::string> spatial;
    std::set<std::string> axis_names;
    for (const auto &a : t->axes) spatial.push_back(a.var.name());
    std::vector<IterVar> reduce;
    if (t->body->kind == ExprKind::Reduce) reduce = t->body->reduce_axes;
    for (const auto &n : spatial) axis_names.insert(n);
    for (const auto &r : reduce) axis_names.insert(r.var.name());
    if (axis_names.size() != spatial.size() + reduce.size())
      throw ScheduleError("stage '" + st.name + "' has two axes with the same name; give compute() distinct axis names");
    init_loops(st, spatial, t.shape(), reduce);
    for (const auto &in : t.inputs()) st.reads.push_back(names[in.node().get()]);
    stages_.push_back(st);
  }
}

const StageInfo &Schedule::stage(const std::string &name) const {
  for (const auto &s : stages_)
    if (s.name == name) return s;
  throw ScheduleError("no stage named '" + name + "'");
}

bool Schedule::has_stage(const std::string &name) const {
  for (const auto &s : stages_)
    if (s.name == name) return true;
  return false;
}

std::string Schedule::stage_of(const Tensor &t) const {
  auto it = tensor_stage_.find(t.node().get());
  if (it == tensor_stage_.end()) throw ScheduleError("tensor '" + t.name() + "' has no stage in this schedule");
  return it->second;
}

template <typename S>
StageInfo &Schedule::mutable_stage(const std::string &name, const S &step) {
  for (auto &s : stages_)
    if (s.name == name) return s;
  fail(step, "no stage named '" + name + "'");
}

namespace {
// Steps that transform a stage's own loops (an inlined stage has none).
template <typename S>
constexpr bool kLoopStep = std::is_same_v<S, SplitStep> || std::is_same_v<S, FuseStep> || std::is_same_v<S, ReorderStep> ||
                           std::is_same_v<S, VectorizeStep> || std::is_same_v<S, UnrollStep> ||
                           std::is_same_v<S, ParallelStep> || std::is_same_v<S, BindStep>;
}  // namespace

void Schedule::apply(const Step &step) {
  std::visit(
      [this](const auto &s) {
        if constexpr (kLoopStep<std::decay_t<decltype(s)>>)
          if (has_stage(s.stage) && stage(s.stage).attach.kind == Attach::Inline)
            fail(s, "stage '" + s.stage + "' is inlined and has no loops of its own");
        apply_step(s);
      },
      step);
  trace_.push_back(step);
}

void Schedule::apply_step(const ComputeRootStep &s) {
  StageInfo &st = mutable_stage(s.stage, s);
  if (st.is_output) fail(s, "stage '" + st.name + "' is an output and is always computed at root");
  Attach before = st.attach;
  st.attach = Attach{};
  std::string why = attach_problem();
  if (!why.empty()) {
    st.attach = before;
    fail(s, why);
  }
}

// ---- split / fuse / reorder ------------------------------------------------

namespace {
// A loop that another stage is computed at must stay a loop.
template <typename S>
void check_not_attach_point(const std::vector<StageInfo> &stages, const StageInfo &st, const std::string &axis,
                            const S &s) {
  for (const auto &o : stages)
    if (o.attach.kind == Attach::At && o.attach.stage == st.name && o.attach.axis == axis)
      fail(s, "stage '" + o.name + "' is computed at axis '" + axis + "' of '" + st.name + "'; move it first");
}
}  // namespace

void Schedule::apply_step(const SplitStep &s) {
  StageInfo &st = mutable_stage(s.stage, s);
  const std::string &axis = s.axis;
  int idx = st.leaf_index(axis);
  if (idx < 0) {
    if (st.all_axes.count(axis)) fail(s, "axis '" + axis + "' of stage '" + st.name + "' was already split or fused");
    fail(s, "stage '" + st.name + "' has no axis '" + axis + "'");
  }
  int64_t f = s.factor;
  if (f <= 0) fail(s, "split factor of axis '" + axis + "' must be positive, got " + std::to_string(f));
  TailStrategy tail = s.tail;
  LeafAxis old = st.leaves[idx];
  check_not_attach_point(stages_, st, axis, s);
  if (st.kind == StageInfo::Compute && st.is_reduction() && tail == TailStrategy::RoundUp)
    fail(s, "round_up would recompute part of the reduction of stage '" + st.name + "'; use guard_with_if");
  if (tail == TailStrategy::ShiftInwards && st.kind == StageInfo::Compute && st.is_reduction())
    fail(s, "shift_inwards would recompute part of the reduction of stage '" + st.name + "'; use guard_with_if");
  if (old.is_reduce && (tail == TailStrategy::RoundUp || tail == TailStrategy::ShiftInwards))
    fail(s, std::string(to_string(tail)) + " would change the reduction over axis '" + axis + "'; use guard_with_if");
  if (tail == TailStrategy::RoundUp && !(!s.nparts && old.extent % f == 0))
    fail(s, "round_up of axis '" + axis + "' (extent " + std::to_string(old.extent) + ") by " + std::to_string(f) +
                " would compute past the stage and read past its inputs; use a divisor or guard_with_if");
  if (!old.annotation.empty()) fail(s, "axis '" + axis + "' is already annotated " + old.annotation);
  std::string outer = axis + "_o", inner = axis + "_i";
  if (st.all_axes.count(outer) || st.all_axes.count(inner)) fail(s, "axis names '" + outer + "'/'" + inner + "' are taken");
  bool nparts = s.nparts;
  int64_t inner_extent = nparts ? (old.extent + f - 1) / f : f;
  int64_t outer_extent = nparts ? f : (old.extent + f - 1) / f;
  if (inner_extent > old.extent) inner_extent = old.extent, outer_extent = 1;
  bool tail_loop = old.has_tail || outer_extent * inner_extent != old.extent;
  st.leaves[idx] = LeafAxis{outer, outer_extent, old.is_reduce, "", tail_loop};
  st.leaves.insert(st.leaves.begin() + idx + 1, LeafAxis{inner, inner_extent, old.is_reduce, "", tail_loop});
  st.relations.push_back(Relation{Relation::Split, axis, outer, inner, f, nparts, inner_extent, tail});
  st.all_axes.insert(outer);
  st.all_axes.insert(inner);
}

void Schedule::apply_step(const FuseStep &s) {
  StageInfo &st = mutable_stage(s.stage, s);
  int a = st.leaf_index(s.outer), b = st.leaf_index(s.inner);
  if (a < 0) fail(s, "stage '" + st.name + "' has no leaf axis '" + s.outer + "'");
  if (b < 0) fail(s, "stage '" + st.name + "' has no leaf axis '" + s.inner + "'");
  if (b != a + 1) fail(s, "axis '" + s.outer + "' must immediately enclose '" + s.inner + "' to fuse them");
  if (st.leaves[a].is_reduce != st.leaves[b].is_reduce) fail(s, "cannot fuse a reduce axis with a spatial axis");
  check_not_attach_point(stages_, st, s.outer, s);
  check_not_attach_point(stages_, st, s.inner, s);
  if (!st.leaves[a].annotation.empty() || !st.leaves[b].annotation.empty()) fail(s, "cannot fuse annotated axes");
  if (st.leaves[a].has_tail || st.leaves[b].has_tail)
    fail(s, "cannot fuse axes of a split whose factor does not divide the extent (the fused loop would lose the tail guard)");
  std::string fused = s.outer + "_" + s.inner + "_f";
  if (st.all_axes.count(fused)) fail(s, "axis name '" + fused + "' is taken");
  LeafAxis f{fused, st.leaves[a].extent * st.leaves[b].extent, st.leaves[a].is_reduce, "", false};
  st.leaves.erase(st.leaves.begin() + b);
  st.leaves[a] = f;
  st.relations.push_back(Relation{Relation::Fuse, fused, s.outer, s.inner, 0, false, 0, TailStrategy::Auto});
  st.all_axes.insert(fused);
}

void Schedule::apply_step(const ReorderStep &s) {
  StageInfo &st = mutable_stage(s.stage, s);
  std::vector<int> pos;
  std::set<std::string> seen;
  for (const auto &a : s.order) {
    int i = st.leaf_index(a);
    if (i < 0) fail(s, "stage '" + st.name + "' has no leaf axis '" + a + "'");
    if (!seen.insert(a).second) fail(s, "axis '" + a + "' is listed twice");
    pos.push_back(i);
  }
  std::vector<int> sorted = pos;
  std::sort(sorted.begin(), sorted.end());
  std::vector<LeafAxis> old = st.leaves;
  for (size_t k = 0; k < pos.size(); k++) st.leaves[sorted[k]] = old[pos[k]];
}

namespace {
// Annotates leaf s.axis of st with `ann`: the step's kind, or for bind its GPU index.
template <typename S>
void annotate(StageInfo &st, const S &s, const std::string &ann) {
  const std::string kind = S::kKind;
  int i = st.leaf_index(s.axis);
  if (i < 0) fail(s, "stage '" + st.name + "' has no leaf axis '" + s.axis + "'");
  LeafAxis &ax = st.leaves[i];
  if (!ax.annotation.empty()) fail(s, "axis '" + ax.name + "' is already annotated " + ax.annotation);
  if constexpr (std::is_same_v<S, BindStep>) {
    static const std::set<std::string> tags = {"blockIdx.x", "blockIdx.y", "blockIdx.z",
                                               "threadIdx.x", "threadIdx.y", "threadIdx.z"};
    if (!tags.count(ann)) fail(s, "unknown GPU index '" + ann + "'");
    for (const auto &l : st.leaves)
      if (l.annotation == ann) fail(s, ann + " is already bound to axis '" + l.name + "'");
  }
  // The stage's only reduce loop, vectorized, is one horizontal reduction of
  // its lanes per point (Halide's atomic().vectorize: a VectorReduce), which
  // Halide allows for an associative update; any other would race on the accumulator.
  auto sole_reduce = [&] {
    return std::count_if(st.leaves.begin(), st.leaves.end(), [](const LeafAxis &l) { return l.is_reduce; }) == 1;
  };
  if (ax.is_reduce && !std::is_same_v<S, UnrollStep> && !(std::is_same_v<S, VectorizeStep> && sole_reduce()))
    fail(s, "reduce axis '" + ax.name + "' cannot be " + (std::is_same_v<S, BindStep> ? "bound" : kind + "d") +
                " (it would race on the accumulator; use rfactor" +
                (std::is_same_v<S, VectorizeStep> ? ", or vectorize the stage's only reduce loop" : "") + ")");
  if (std::is_same_v<S, VectorizeStep> && ax.extent > 64)
    fail(s, "vector width " + std::to_string(ax.extent) + " of axis '" + ax.name + "' exceeds 64");
  if (std::is_same_v<S, UnrollStep>) {
    // Nested unrolling multiplies code size (and Halide/LLVM compile time).
    int64_t unrolled = ax.extent;
    for (const auto &l : st.leaves)
      if (l.annotation == "unroll") unrolled *= l.extent;
    if (unrolled > 64)
      fail(s, "unrolling axis '" + ax.name + "' would unroll " + std::to_string(unrolled) + " iterations in stage '" + st.name + "' (limit 64)");
  }
  ax.annotation = ann;
}
}  // namespace

void Schedule::apply_step(const VectorizeStep &s) { annotate(mutable_stage(s.stage, s), s, s.kKind); }
void Schedule::apply_step(const UnrollStep &s) { annotate(mutable_stage(s.stage, s), s, s.kKind); }
void Schedule::apply_step(const ParallelStep &s) { annotate(mutable_stage(s.stage, s), s, s.kKind); }
void Schedule::apply_step(const BindStep &s) { annotate(mutable_stage(s.stage, s), s, s.thread_tag); }

// ---- compute location --------------------------------------------------------

bool Schedule::consumes(const std::string &consumer, const std::string &producer) const {
  // Direct reads, or reads through stages that are inlined.
  std::vector<std::string> todo = {consumer};
  std::set<std::string> seen;
  while (!todo.empty()) {
    std::string c = todo.back();
    todo.pop_back();
    if (!seen.insert(c).second || !has_stage(c)) continue;
    for (const auto &r : stage(c).reads) {
      if (r == producer) return true;
      if (has_stage(r) && stage(r).attach.kind == Attach::Inline) todo.push_back(r);
    }
  }
  return false;
}

void Schedule::apply_step(const ComputeAtStep &s) {
  StageInfo &st = mutable_stage(s.stage, s);
  if (st.is_output) fail(s, "stage '" + st.name + "' is an output and is computed at root");
  if (!has_stage(s.target_stage)) fail(s, "no target stage named '" + s.target_stage + "'");
  const StageInfo &tg = stage(s.target_stage);
  if (tg.attach.kind == Attach::Inline) fail(s, "target stage '" + tg.name + "' is inlined");
  if (!consumes(tg.name, st.name)) fail(s, "stage '" + tg.name + "' does not consume '" + st.name + "'");

  if (tg.leaf_index(s.target_axis) < 0) fail(s, "target stage '" + tg.name + "' has no leaf axis '" + s.target_axis + "'");
  // No cycle: the target must not itself be computed inside this stage.
  for (std::string cur = tg.name; has_stage(cur) && stage(cur).attach.kind == Attach::At; cur = stage(cur).attach.stage)
    if (stage(cur).attach.stage == st.name) fail(s, "target stage '" + tg.name + "' is computed inside '" + st.name + "'");
  Attach before = st.attach;
  st.attach = Attach{Attach::At, s.target_stage, s.target_axis};
  std::string why = attach_problem();
  if (!why.empty()) {
    st.attach = before;
    fail(s, why);
  }
}

bool Schedule::inside(const std::string &stage, const std::string &target, const std::string &axis) const {
  // Is `stage` computed within loop `axis` of `target` (directly or through its own attach chain)?
  std::string cur = stage;
  for (int guard = 0; guard < 1000 && has_stage(cur); guard++) {
    const StageInfo &c = this->stage(cur);
    if (c.attach.kind != Attach::At) return false;
    if (c.attach.stage == target) {
      const StageInfo &t = this->stage(target);
      return t.leaf_index(c.attach.axis) >= t.leaf_index(axis);
    }
    cur = c.attach.stage;
  }
  return false;
}

std::string Schedule::attach_problem() const {
  // A stage computed at a loop must be computed before every use: each other consumer
  // must itself be computed inside that loop.
  for (const auto &p : stages_) {
    if (p.attach.kind != Attach::At) continue;
    for (const auto &o : stages_) {
      if (o.name == p.attach.stage || o.attach.kind == Attach::Inline || !consumes(o.name, p.name)) continue;
      if (!inside(o.name, p.attach.stage, p.attach.axis))
        return "stage '" + p.name + "' is computed at '" + p.attach.stage + "." + p.attach.axis + "' but '" + o.name +
               "' also consumes it outside that loop";
    }
  }
  return "";
}

namespace {
// Whether a split, fuse or loop annotation was applied to st.
bool has_loop_steps(const StageInfo &st) {
  if (!st.relations.empty()) return true;
  for (const auto &l : st.leaves)
    if (!l.annotation.empty()) return true;
  return false;
}
}  // namespace

void Schedule::apply_step(const ComputeInlineStep &s) {
  StageInfo &st = mutable_stage(s.stage, s);
  if (st.is_output) fail(s, "stage '" + st.name + "' is an output and cannot be inlined");
  if (st.kind == StageInfo::Compute && st.is_reduction()) fail(s, "stage '" + st.name + "' is a reduction and cannot be inlined");
  if (has_loop_steps(st)) fail(s, "stage '" + st.name + "' has loop transformations; an inlined stage has no loops");
  if (!st.storage_order.empty()) fail(s, "stage '" + st.name + "' has a storage order; an inlined stage has no storage");
  for (const auto &o : stages_)
    if (o.attach.kind == Attach::At && o.attach.stage == st.name)
      fail(s, "stage '" + o.name + "' is computed at '" + st.name + "'; move it first");
  Attach before = st.attach;
  st.attach = Attach{Attach::Inline, "", ""};
  std::string why = attach_problem();
  if (!why.empty()) {
    st.attach = before;
    fail(s, why);
  }
}

// ---- caches ------------------------------------------------------------------

void Schedule::apply_step(const CacheReadStep &s) {
  const std::string &tensor = s.tensor;
  bool is_input = false;
  Shape shape;
  std::vector<std::string> names;
  for (const auto &in : inputs_)
    if (in.name() == tensor) {
      is_input = true;
      shape = in.shape();
      for (size_t i = 0; i < shape.size(); i++) names.push_back("ax" + std::to_string(i));
    }
  if (!is_input) {
    if (!has_stage(tensor)) fail(s, "no tensor or stage named '" + tensor + "'");
    shape = stage(tensor).shape;
    names = stage(tensor).spatial_axes;
  }
  if (s.readers.empty()) fail(s, "cache_read needs at least one reader stage");
  std::string name = tensor + ".cache";
  for (int k = 1; has_stage(name); k++) name = tensor + ".cache" + std::to_string(k);
  for (const auto &r : s.readers) {
    if (!has_stage(r)) fail(s, "no reader stage named '" + r + "'");
    const auto &reads = stage(r).reads;
    if (std::find(reads.begin(), reads.end(), tensor) == reads.end()) fail(s, "stage '" + r + "' does not read '" + tensor + "'");
  }
  StageInfo c;
  c.kind = StageInfo::Copy;
  c.name = name;
  c.source = tensor;
  c.reads = {tensor};
  init_loops(c, names, shape, {});
  for (const auto &r : s.readers) {
    StageInfo &rs = mutable_stage(r, s);
    std::replace(rs.reads.begin(), rs.reads.end(), tensor, name);
    rs.redirects[tensor] = name;
  }
  // Place the cache stage right after its source so stages stay in producer order.
  size_t pos = 0;
  if (!is_input)
    for (size_t i = 0; i < stages_.size(); i++)
      if (stages_[i].name == tensor) pos = i + 1;
  stages_.insert(stages_.begin() + pos, c);
}

void Schedule::apply_step(const PackLayoutStep &s) {
  StageInfo &st = mutable_stage(s.stage, s);
  bool cached = false;
  for (const auto &o : stages_)
    for (const auto &[from, to] : o.redirects) cached |= to == st.name;
  if (st.kind != StageInfo::Copy || !cached) fail(s, "stage '" + st.name + "' is not a cache_read stage");
  if (st.pack.packed()) fail(s, "stage '" + st.name + "' is already packed");
  if (has_stage(st.source) && !stage(st.source).rfactor.of.empty())
    fail(s, "stage '" + st.name + "' copies the rfactor stage '" + st.source + "'");
  bool other_steps = has_loop_steps(st) || st.attach.kind != Attach::Root || !st.storage_order.empty();
  for (const auto &o : stages_) other_steps |= o.attach.kind == Attach::At && o.attach.stage == st.name;
  if (other_steps)
    fail(s, "pack_layout must come before other steps on stage '" + st.name + "'");
  const std::string &axis = s.axis;
  auto it = std::find(st.spatial_axes.begin(), st.spatial_axes.end(), axis);
  if (it == st.spatial_axes.end()) fail(s, "stage '" + st.name + "' has no root axis '" + axis + "'");
  size_t d = static_cast<size_t>(it - st.spatial_axes.begin());
  int64_t f = s.factor, extent = st.shape[d];
  if (f <= 1 || f > extent || extent % f != 0)
    fail(s, "factor " + std::to_string(f) + " must divide the extent " + std::to_string(extent) + " of axis '" + axis +
                "' and be at least 2");
  std::vector<std::string> axes = {axis + "_o"};
  Shape shape = {extent / f};
  for (size_t k = 0; k < st.spatial_axes.size(); k++)
    if (k != d) axes.push_back(st.spatial_axes[k]), shape.push_back(st.shape[k]);
  axes.push_back(axis + "_i");
  shape.push_back(f);
  st.pack = PackInfo{axis, f, st.spatial_axes};
  init_loops(st, axes, shape, {});
}

void Schedule::apply_step(const ReorderStorageStep &s) {
  StageInfo &st = mutable_stage(s.stage, s);
  if (st.is_output) fail(s, "stage '" + st.name + "' is an output; its storage layout is the tensor's");
  if (st.attach.kind == Attach::Inline) fail(s, "stage '" + st.name + "' is inlined and has no storage");
  std::vector<std::string> a = s.order, b = st.spatial_axes;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  if (a != b) fail(s, "the order must list each root spatial axis of stage '" + st.name + "' once");
  st.storage_order = s.order;
}

void Schedule::apply_step(const CacheWriteStep &s) {
  StageInfo &st = mutable_stage(s.stage, s);
  if (st.kind != StageInfo::Compute) fail(s, "stage '" + st.name + "' is not a compute stage");
  if (!st.relations.empty()) fail(s, "cache_write must come before splits/fuses of stage '" + st.name + "'");
  if (!st.rfactor.partial.empty()) fail(s, "cache_write must come before rfactor of stage '" + st.name + "'");
  std::string name = st.name + ".local";
  if (has_stage(name)) fail(s, "stage '" + name + "' already exists");
  StageInfo local = st;
  local.name = name;
  local.is_output = false;
  local.storage_order.clear();
  local.attach = Attach{};
  local.leaves.clear();
  init_loops(local, st.spatial_axes, st.shape, st.reduce_axes);
  StageInfo copy = st;
  copy.kind = StageInfo::Copy;
  copy.source = name;
  copy.reads = {name};
  copy.redirects.clear();
  copy.rfactor = RFactorInfo{};
  init_loops(copy, st.spatial_axes, st.shape, {});
  size_t pos = 0;
  for (size_t i = 0; i < stages_.size(); i++)
    if (stages_[i].name == st.name) pos = i;
  stages_[pos] = copy;
  stages_.insert(stages_.begin() + pos, local);
}

// ---- rfactor -------------------------------------------------------------------

void Schedule::apply_step(const RfactorStep &s) {
  const std::string &axis = s.axis;
  std::vector<StageInfo> before = stages_;
  StageInfo &st = mutable_stage(s.stage, s);
  if (st.kind != StageInfo::Compute) fail(s, "stage '" + st.name + "' is not a compute stage");
  if (!st.is_reduction()) fail(s, "stage '" + st.name + "' is not a reduction");
  if (!st.rfactor.partial.empty()) fail(s, "stage '" + st.name + "' was already factored (into '" + st.rfactor.partial + "')");
  if (!st.rfactor.of.empty()) fail(s, "stage '" + st.name + "' is itself an rfactor stage (of '" + st.rfactor.of + "')");
  int idx = st.leaf_index(axis);
  if (idx < 0) {
    if (st.all_axes.count(axis)) fail(s, "axis '" + axis + "' of stage '" + st.name + "' was already split or fused");
    fail(s, "stage '" + st.name + "' has no axis '" + axis + "'");
  }
  if (!st.leaves[idx].is_reduce) fail(s, "axis '" + axis + "' of stage '" + st.name + "' is not a reduce axis");

  // The reduce relations: none (axis is an original reduce axis) or one split of an original one.
  std::set<std::string> originals, reduce_names;
  for (const auto &r : st.reduce_axes) originals.insert(r.var.name());
  reduce_names = originals;
  std::vector<const Relation *> reduce_rels;
  for (const auto &rel : st.relations) {
    if (rel.kind == Relation::Split && reduce_names.count(rel.parent)) {
      reduce_names.insert(rel.outer);
      reduce_names.insert(rel.inner);
      reduce_rels.push_back(&rel);
    } else if (rel.kind == Relation::Fuse && reduce_names.count(rel.outer)) {
      reduce_names.insert(rel.parent);
      reduce_rels.push_back(&rel);
    }
  }
  RFactorInfo info;
  info.axis = axis;
  if (reduce_rels.empty()) {
    info.orig = axis;
  } else {
    const Relation &rel = *reduce_rels.front();
    if (reduce_rels.size() > 1 || rel.kind != Relation::Split || !originals.count(rel.parent) ||
        (rel.outer != axis && rel.inner != axis))
      fail(s, "axis '" + axis + "' must be an original reduce axis of stage '" + st.name +
                  "' or a part of one split of one, with no other split or fuse of its reduce axes");
    info.orig = rel.parent;
    info.axis_is_outer = rel.outer == axis;
    info.other = info.axis_is_outer ? rel.inner : rel.outer;
    info.factor = rel.inner_extent;
  }
  for (const auto &r : st.reduce_axes)
    if (r.var.name() == info.orig) info.extent = r.extent;
  int64_t u_extent = st.leaves[idx].extent;
  int64_t other_extent = 0;
  for (const auto &l : st.leaves) {
    if (!l.is_reduce || l.name == axis) continue;
    if (l.name == info.other) other_extent = l.extent;
    check_not_attach_point(stages_, st, l.name, s);
  }
  std::string name = st.name + ".rf";
  if (has_stage(name)) fail(s, "stage '" + name + "' already exists");

  // The partial stage: fresh loops, axis outermost, then S's spatial axes, then the remaining reductions.
  StageInfo rf;
  rf.kind = StageInfo::Compute;
  rf.name = name;
  rf.tensor = st.tensor;
  rf.reads = st.reads;
  rf.redirects = st.redirects;
  std::vector<std::string> spatial = {axis};
  spatial.insert(spatial.end(), st.spatial_axes.begin(), st.spatial_axes.end());
  Shape shape = {u_extent};
  shape.insert(shape.end(), st.shape.begin(), st.shape.end());
  std::vector<IterVar> reduce;
  for (const auto &r : st.reduce_axes) {
    if (r.var.name() != info.orig) reduce.push_back(r);
    else if (!info.other.empty()) reduce.push_back(IterVar{Var(info.other), other_extent, true});
  }
  init_loops(rf, spatial, shape, reduce);
  rf.rfactor = info;
  rf.rfactor.of = st.name;

  // S: its spatial loops stay; its only reduce loop is axis, over the partial results.
  std::vector<LeafAxis> leaves;
  for (const auto &l : st.leaves) {
    if (l.is_reduce && l.name != axis) continue;
    leaves.push_back(l);
    if (l.name == axis) leaves.back().has_tail = false;
  }
  st.leaves = leaves;
  std::vector<Relation> rels;
  for (const auto &rel : st.relations)
    if (!reduce_names.count(rel.kind == Relation::Split ? rel.parent : rel.outer)) rels.push_back(rel);
  st.relations = rels;
  st.reduce_axes = {IterVar{Var(axis), u_extent, true}};
  st.reads = {name};
  st.redirects.clear();
  st.rfactor = info;
  st.rfactor.partial = name;
  size_t pos = 0;
  for (size_t i = 0; i < stages_.size(); i++)
    if (stages_[i].name == st.name) pos = i;
  stages_.insert(stages_.begin() + pos, rf);
  std::string why = attach_problem();
  if (!why.empty()) {
    stages_ = before;
    fail(s, why);
  }
}

// ---- public wrappers -----------------------------------------------------------

std::pair<std::string, std::string> Schedule::split(const std::string &stage, const std::string &axis, int64_t factor,
                                                    TailStrategy tail) {
  // Names first: `axis` may refer into this schedule's own leaves, which apply() rewrites.
  std::pair<std::string, std::string> names{axis + "_o", axis + "_i"};
  apply(SplitStep{stage, axis, factor, false, tail});
  return names;
}

std::pair<std::string, std::string> Schedule::split_nparts(const std::string &stage, const std::string &axis,
                                                           int64_t nparts, TailStrategy tail) {
  std::pair<std::string, std::string> names{axis + "_o", axis + "_i"};  // before apply(), as in split()
  apply(SplitStep{stage, axis, nparts, true, tail});
  return names;
}

std::vector<std::string> Schedule::tile(const std::string &stage, const std::string &x, const std::string &y,
                                        int64_t fx, int64_t fy, TailStrategy tail) {
  auto [xo, xi] = split(stage, x, fx, tail);
  auto [yo, yi] = split(stage, y, fy, tail);
  reorder(stage, {xo, yo, xi, yi});
  return {xo, yo, xi, yi};
}

std::string Schedule::fuse(const std::string &stage, const std::string &outer, const std::string &inner) {
  std::string name = outer + "_" + inner + "_f";  // before apply(), as in split()
  apply(FuseStep{stage, outer, inner});
  return name;
}

void Schedule::reorder(const std::string &stage, const std::vector<std::string> &order) {
  apply(ReorderStep{stage, order});
}
void Schedule::vectorize(const std::string &stage, const std::string &axis) { apply(VectorizeStep{stage, axis}); }
void Schedule::unroll(const std::string &stage, const std::string &axis) { apply(UnrollStep{stage, axis}); }
void Schedule::parallel(const std::string &stage, const std::string &axis) { apply(ParallelStep{stage, axis}); }
void Schedule::compute_at(const std::string &stage, const std::string &target, const std::string &axis) {
  apply(ComputeAtStep{stage, target, axis});
}
void Schedule::compute_inline(const std::string &stage) { apply(ComputeInlineStep{stage}); }
void Schedule::compute_root(const std::string &stage) { apply(ComputeRootStep{stage}); }
std::string Schedule::cache_read(const std::string &tensor, const std::vector<std::string> &readers) {
  apply(CacheReadStep{tensor, readers});
  return stage(readers.front()).redirects.at(tensor);
}
std::pair<std::string, std::string> Schedule::pack_layout(const std::string &stage, const std::string &axis,
                                                          int64_t factor) {
  const std::string a = axis;  // `axis` may name an element of the stage's axes, which the step replaces
  apply(PackLayoutStep{stage, a, factor});
  return {a + "_o", a + "_i"};
}
void Schedule::reorder_storage(const std::string &stage, const std::vector<std::string> &order) {
  apply(ReorderStorageStep{stage, order});
}
std::string Schedule::cache_write(const std::string &stage) {
  apply(CacheWriteStep{stage});
  return stage + ".local";
}
std::string Schedule::rfactor(const std::string &stage, const std::string &axis) {
  apply(RfactorStep{stage, axis});
  return stage + ".rf";
}
void Schedule::bind(const std::string &stage, const std::string &axis, const std::string &tag) {
  apply(BindStep{stage, axis, tag});
}

// ---- naming stages by their tensors ---------------------------------------------

std::pair<std::string, std::string> Schedule::split(const Tensor &t, const std::string &axis, int64_t factor,
                                                    TailStrategy tail) {
  return split(stage_of(t), axis, factor, tail);
}
std::pair<std::string, std::string> Schedule::split_nparts(const Tensor &t, const std::string &axis, int64_t nparts,
                                                           TailStrategy tail) {
  return split_nparts(stage_of(t), axis, nparts, tail);
}
std::vector<std::string> Schedule::tile(const Tensor &t, const std::string &x, const std::string &y, int64_t fx,
                                        int64_t fy, TailStrategy tail) {
  return tile(stage_of(t), x, y, fx, fy, tail);
}
std::string Schedule::fuse(const Tensor &t, const std::string &outer, const std::string &inner) {
  return fuse(stage_of(t), outer, inner);
}
void Schedule::reorder(const Tensor &t, const std::vector<std::string> &order) { reorder(stage_of(t), order); }
void Schedule::vectorize(const Tensor &t, const std::string &axis) { vectorize(stage_of(t), axis); }
void Schedule::unroll(const Tensor &t, const std::string &axis) { unroll(stage_of(t), axis); }
void Schedule::parallel(const Tensor &t, const std::string &axis) { parallel(stage_of(t), axis); }
void Schedule::compute_at(const Tensor &t, const Tensor &target, const std::string &axis) {
  compute_at(stage_of(t), stage_of(target), axis);
}
void Schedule::compute_inline(const Tensor &t) { compute_inline(stage_of(t)); }
void Schedule::compute_root(const Tensor &t) { compute_root(stage_of(t)); }
std::string Schedule::cache_read(const Tensor &tensor, const std::vector<std::string> &readers) {
  return cache_read(tensor.is_placeholder() ? tensor.name() : stage_of(tensor), readers);
}
std::string Schedule::cache_read(const Tensor &tensor, const std::vector<Tensor> &readers) {
  std::vector<std::string> names;
  for (const auto &r : readers) names.push_back(stage_of(r));
  return cache_read(tensor, names);
}
void Schedule::reorder_storage(const Tensor &t, const std::vector<std::string> &order) {
  reorder_storage(stage_of(t), order);
}
std::string Schedule::cache_write(const Tensor &t) { return cache_write(stage_of(t)); }
std::string Schedule::rfactor(const Tensor &t, const std::string &axis) { return rfactor(stage_of(t), axis); }
void Schedule::bind(const Tensor &t, const std::string &axis, const std::string &tag) { bind(stage_of(t), axis, tag); }

std::map<std::string, std::vector<std::string>> leaf_root_axes(const StageInfo &st) {
  std::map<std::string, std::vector<std::string>> roots;
  for (const auto &a : st.spatial_axes) roots[a] = {a};
  for (const auto &r : st.reduce_axes) roots[r.var.name()] = {r.var.name()};
  for (const auto &rel : st.relations) {
    if (rel.kind == Relation::Split) {
      roots[rel.outer] = roots[rel.parent];
      roots[rel.inner] = roots[rel.parent];
    } else {
      auto v = roots[rel.outer];
      for (const auto &x : roots[rel.inner]) v.push_back(x);
      roots[rel.parent] = v;
    }
  }
  return roots;
}

}  // namespace tetune
