#include "schedule/gpu_limits.h"

#include <algorithm>
#include <functional>
#include <map>
#include <vector>

#include "base/errors.h"
#include "te/expr_functor.h"

namespace tetune {

namespace {

bool is_block(const std::string &a) { return a.rfind("blockIdx.", 0) == 0; }
bool is_thread(const std::string &a) { return a.rfind("threadIdx.", 0) == 0; }
int dim_of(const std::string &a) { return a.back() - 'x'; }  // x=0, y=1, z=2

// Level inside leaf index `idx` (inclusive) of stage st, following its attach chain.
GpuLevel level_at(const Schedule &s, const StageInfo &st, int idx) {
  GpuLevel lv;
  if (st.attach.kind == Attach::At) {
    const StageInfo &t = s.stage(st.attach.stage);
    lv = level_at(s, t, t.leaf_index(st.attach.axis));
  }
  for (int i = 0; i <= idx && i < static_cast<int>(st.leaves.size()); i++) {
    lv.in_block |= is_block(st.leaves[i].annotation);
    lv.in_thread |= is_thread(st.leaves[i].annotation);
  }
  return lv;
}

// The root stage whose loops enclose st (st itself when computed at root).
std::string root_of(const Schedule &s, const StageInfo &st) {
  const StageInfo *cur = &st;
  for (int guard = 0; cur->attach.kind == Attach::At && guard < 1000; guard++) cur = &s.stage(cur->attach.stage);
  return cur->name;
}


Shape realized_shape(const Schedule &s, const StageInfo &st, int depth = 0);

// Extents of every axis (root, derived, leaf) of st as Halide realises them: a stage computed at
// a loop covers only the region its consumer uses there, and splits divide that region.
std::map<std::string, int64_t> axis_extents(const Schedule &s, const StageInfo &st, int depth = 0) {
  std::map<std::string, int64_t> ext;
  Shape region = realized_shape(s, st, depth);
  for (size_t d = 0; d < st.spatial_axes.size(); d++) ext[st.spatial_axes[d]] = d < region.size() ? region[d] : 1;
  for (const auto &r : st.reduce_axes) ext[r.var.name()] = r.extent;
  for (const auto &rel : st.relations) {
    if (rel.kind == Relation::Split) {
      int64_t p = ext[rel.parent];
      int64_t in = std::max<int64_t>(1, std::min(rel.inner_extent, p));
      ext[rel.inner] = in;
      ext[rel.outer] = (p + in - 1) / in;
    } else {
      ext[rel.parent] = ext[rel.outer] * ext[rel.inner];
    }
  }
  return ext;
}

// Extent of each root axis of consumer t covered by its loops strictly inside leaf `idx`.
std::map<std::string, int64_t> inner_extents(const Schedule &s, const StageInfo &t, int idx, int depth) {
  std::map<std::string, int64_t> ax = axis_extents(s, t, depth + 1), full, ext;
  for (const auto &a : t.spatial_axes) full[a] = ax[a];
  for (const auto &r : t.reduce_axes) full[r.var.name()] = r.extent;
  for (const auto &kv : full) ext[kv.first] = 1;
  auto roots = leaf_root_axes(t);
  std::map<std::string, const Relation *> fused_from;  // a fused axis -> the fuse that made it
  for (const auto &rel : t.relations)
    if (rel.kind == Relation::Fuse) fused_from[rel.parent] = &rel;
  // A fused loop covers its parts' extents, each on its own roots (not its whole extent on every root).
  std::function<void(const std::string &)> cover = [&](const std::string &a) {
    auto f = fused_from.find(a);
    if (f != fused_from.end()) {
      cover(f->second->outer);
      cover(f->second->inner);
      return;
    }
    for (const auto &r : roots[a]) ext[r] = std::min(full[r], ext[r] * ax[a]);
  };
  for (size_t i = static_cast<size_t>(idx) + 1; i < t.leaves.size(); i++) cover(t.leaves[i].name);
  return ext;
}

// Number of distinct values an index expression takes, or -1 when unknown.
int64_t span(const Expr &e, const std::map<const VarNode *, int64_t> &vars) {
  switch (e->kind) {
    case ExprKind::IntImm: return 1;
    case ExprKind::Var: {
      auto it = vars.find(e->var.get());
      return it == vars.end() ? -1 : it->second;
    }
    case ExprKind::Cast: return span(e->args[0], vars);
    case ExprKind::Select: {
      int64_t a = span(e->args[1], vars), b = span(e->args[2], vars);
      return (a < 0 || b < 0) ? -1 : std::max(a, b);
    }
    case ExprKind::Binary: {
      const Expr &l = e->args[0], &r = e->args[1];
      int64_t a = span(l, vars), b = span(r, vars);
      auto imm = [](const Expr &x) { return x->kind == ExprKind::IntImm ? x->int_value : 0; };
      switch (static_cast<BinaryOp>(e->op)) {
        case BinaryOp::Add:
        case BinaryOp::Sub: return (a < 0 || b < 0) ? -1 : a + b - 1;
        case BinaryOp::Mul: {
          int64_t c = imm(r) ? imm(r) : imm(l);
          int64_t x = imm(r) ? a : b;
          if (!c || x < 0) return -1;
          return std::abs(c) * (x - 1) + 1;
        }
        case BinaryOp::Div: {
          int64_t c = imm(r);
          return (!c || a < 0) ? -1 : (a - 1) / std::abs(c) + 2;
        }
        case BinaryOp::Mod: {
          int64_t c = imm(r);
          return (!c || a < 0) ? (c ? std::abs(c) : -1) : std::min(a, std::abs(c));
        }
        case BinaryOp::Min:
        case BinaryOp::Max: return (a < 0 || b < 0) ? -1 : std::max(a, b);
        default: return -1;
      }
    }
    default: return -1;
  }
}

[[noreturn]] void fail(const std::string &msg) { throw ScheduleError("GPU schedule: " + msg); }

// The region of st realised per iteration of the loop it is computed at (its shape at root).
Shape realized_shape(const Schedule &s, const StageInfo &st, int depth) {
  Shape region = st.shape;
  // A packed copy is indexed in another layout than its readers use: take it whole.
  if (st.attach.kind != Attach::At || depth > 64 || st.pack.packed()) return region;
  const StageInfo &t = s.stage(st.attach.stage);
  int idx = t.leaf_index(st.attach.axis);
  auto ext = inner_extents(s, t, idx, depth);
  if (t.kind == StageInfo::Copy && t.source == st.name) {
    for (size_t d = 0; d < region.size() && d < t.spatial_axes.size(); d++) region[d] = std::min(region[d], ext[t.spatial_axes[d]]);
  } else if (t.kind == StageInfo::Compute && t.tensor.defined()) {
    const TensorNode *mine = (st.kind == StageInfo::Compute && st.tensor.defined()) ? st.tensor.node().get() : nullptr;
    auto match = [&](const TensorNode *tn) {
      auto r = t.redirects.find(tn->name);
      if (r != t.redirects.end()) return r->second == st.name;
      return tn == mine;
    };
    std::map<const VarNode *, int64_t> vars;
    const TensorNode *tn = t.tensor.node().get();
    for (size_t i = 0; i < tn->axes.size() && i < t.spatial_axes.size(); i++) vars[tn->axes[i].var.get()] = ext[t.spatial_axes[i]];
    const Expr &body = tn->body;
    if (body.defined() && body->kind == ExprKind::Reduce)
      for (const auto &r : body->reduce_axes) vars[r.var.get()] = ext[r.var.name()];
    std::vector<const ExprNode *> acc;
    post_order_visit(body, [&](const Expr &x) {
      if (x->kind == ExprKind::Access && match(x->tensor.get())) acc.push_back(x.get());
    });
    if (!acc.empty()) {
      Shape fp(region.size(), 0);
      for (const ExprNode *a : acc)
        for (size_t d = 0; d < fp.size() && d < a->args.size(); d++) {
          int64_t sp = span(a->args[d], vars);
          fp[d] = std::max(fp[d], sp < 0 ? region[d] : std::min(region[d], sp));
        }
      region = fp;
    }
  }
  return region;
}

}  // namespace

bool uses_gpu(const Schedule &s) {
  for (const auto &st : s.stages())
    for (const auto &l : st.leaves)
      if (is_block(l.annotation) || is_thread(l.annotation)) return true;
  return false;
}

GpuLevel gpu_level(const Schedule &s, const std::string &stage, const std::string &axis) {
  const StageInfo &st = s.stage(stage);
  int idx = st.leaf_index(axis);
  if (idx < 0) throw ScheduleError("stage '" + stage + "' has no loop '" + axis + "'");
  return level_at(s, st, idx);
}

int64_t shared_bytes(const Schedule &s, const std::string &stage) {
  const StageInfo &st = s.stage(stage);
  if (st.attach.kind != Attach::At) return 0;
  const StageInfo &t = s.stage(st.attach.stage);
  if (!level_at(s, t, t.leaf_index(st.attach.axis)).block_level()) return 0;
  int64_t bytes = st.tensor.defined() ? st.tensor.dtype().bytes() : 4;
  for (int64_t e : realized_shape(s, st)) bytes *= e;
  return bytes;
}

void check_gpu_schedule(const Schedule &s, const GpuLimits &lim) {
  struct KernelUse {
    int64_t dims[3] = {1, 1, 1};
    int64_t shared = 0;
    std::string stages;
  };
  std::map<std::string, KernelUse> kernels;  // by root stage
  for (const auto &st : s.stages()) {
    if (st.attach.kind == Attach::Inline) continue;
    GpuLevel outer;
    if (st.attach.kind == Attach::At) {
      const StageInfo &t = s.stage(st.attach.stage);
      outer = level_at(s, t, t.leaf_index(st.attach.axis));
    }
    bool in_block = outer.in_block, in_thread = outer.in_thread, own_block = false;
    int last_block = 3, last_thread = 3;
    int64_t threads = 1;
    std::string thread_axes;
    KernelUse &k = kernels[root_of(s, st)];
    auto realized = axis_extents(s, st);
    for (const auto &l : st.leaves) {
      const std::string &a = l.annotation;
      if (is_block(a)) {
        if (in_thread) fail("stage '" + st.name + "' binds axis '" + l.name + "' to " + a + " inside a threadIdx loop");
        if (outer.in_block)
          fail("stage '" + st.name + "' binds axis '" + l.name + "' to " + a + " but is computed inside another stage's block loop");
        if (dim_of(a) >= last_block)
          fail("stage '" + st.name + "' binds axis '" + l.name + "' to " + a +
               " inside a loop bound to a lower or equal block dimension; bind blockIdx z, y, x from outer to inner");
        last_block = dim_of(a);
        in_block = own_block = true;
      } else if (is_thread(a)) {
        if (!in_block)
          fail("stage '" + st.name + "' binds axis '" + l.name + "' to " + a + " outside any blockIdx loop");
        if (outer.in_thread)
          fail("stage '" + st.name + "' binds axis '" + l.name + "' to " + a +
               " but is computed inside another stage's threadIdx loop (thread loops cannot nest)");
        if (dim_of(a) >= last_thread)
          fail("stage '" + st.name + "' binds axis '" + l.name + "' to " + a +
               " inside a loop bound to a lower or equal thread dimension; bind threadIdx z, y, x from outer to inner");
        last_thread = dim_of(a);
        int d = dim_of(a);
        int64_t extent = realized[l.name];
        if (extent > lim.max_block_dim[d])
          fail("stage '" + st.name + "' axis '" + l.name + "' bound to " + a + " has extent " + std::to_string(extent) +
               " > max block dimension " + std::to_string(lim.max_block_dim[d]));
        threads *= extent;
        thread_axes += (thread_axes.empty() ? "" : ", ") + l.name + "=" + std::to_string(extent);
        k.dims[d] = std::max(k.dims[d], extent);
        in_thread = true;
      }
    }
    if (threads > lim.max_threads_per_block)
      fail("stage '" + st.name + "' uses " + std::to_string(threads) + " threads per block (" + thread_axes +
           ") > limit " + std::to_string(lim.max_threads_per_block));
    if (st.attach.kind == Attach::Root && !own_block)
      fail(std::string(st.is_output ? "output stage '" : "root stage '") + st.name +
           "' has no loop bound to blockIdx; it would run on the host (bind an outer loop to blockIdx.x)");
    int64_t sh = shared_bytes(s, st.name);
    if (sh > 0) {
      k.shared += sh;
      k.stages += (k.stages.empty() ? "" : ", ") + st.name + "=" + std::to_string(sh) + "B";
    }
  }
  for (const auto &kv : kernels) {
    const KernelUse &k = kv.second;
    int64_t block = k.dims[0] * k.dims[1] * k.dims[2];
    if (block > lim.max_threads_per_block)
      fail("kernel of stage '" + kv.first + "' launches " + std::to_string(k.dims[0]) + "x" + std::to_string(k.dims[1]) + "x" +
           std::to_string(k.dims[2]) + " = " + std::to_string(block) + " threads per block (max over its stages) > limit " +
           std::to_string(lim.max_threads_per_block));
    if (k.shared > lim.max_shared_bytes)
      fail("kernel of stage '" + kv.first + "' needs " + std::to_string(k.shared) + " bytes of shared memory (" + k.stages +
           ") > limit " + std::to_string(lim.max_shared_bytes));
  }
}

}  // namespace tetune
