#include "codegen/next_task_prefetch.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace tetune {
namespace codegen {
namespace {

using namespace Halide::Internal;
using Halide::Expr;

constexpr int kLineBytes = 64;
// At most this many prefetches per iteration of the loop that carries them.
constexpr int64_t kMaxPerIteration = 4;
// The slab limit where the L2's size is unknown.
constexpr int64_t kUnknownL2MaxSlabBytes = 512 << 10;

// PREFETCHT1 of buffer[offset] (elements): into the L2, for reading. Halide
// 14's own Call::prefetch emits PREFETCHNTA (LLVM locality 0), which fills
// the L1 only and marks the line for early eviction, gone before the next
// task runs. This calls LLVM's prefetch intrinsic (read, locality 2, data
// cache) by name: every Halide 14 module declares it, for its runtime's
// _halide_prefetch. PREFETCH never faults, so any address is safe.
Stmt prefetch_l2(const std::string &buffer, const Expr &offset, int elem_bytes) {
  Expr base = Halide::reinterpret(Halide::UInt(64), Variable::make(Halide::Handle(), buffer));
  Expr addr = Halide::reinterpret(Halide::Handle(), base + Halide::cast(Halide::UInt(64), offset * elem_bytes));
  const int kRead = 0, kLocalityL2 = 2, kDataCache = 1;
  return Evaluate::make(Call::make(Halide::Int(32), "llvm.prefetch.p0i8", {addr, kRead, kLocalityL2, kDataCache}, Call::Extern));
}

struct Loop {
  const For *loop;
  int64_t extent;
};

// The innermost serial loop under a task body that runs most often per task,
// and the chain of loops down to it (loops of constant extent only).
class BusiestLoop : public IRVisitor {
 public:
  std::vector<Loop> best;
  int64_t best_trips = 0;

 private:
  using IRVisitor::visit;
  std::vector<Loop> path_;
  bool inner_found_ = false;

  void visit(const For *op) override {
    const int64_t *ext = as_const_int(op->extent);
    if (op->for_type == ForType::Parallel || !ext) return;  // nested parallel or unknown trip count
    path_.push_back({op, *ext});
    inner_found_ = false;
    op->body.accept(this);
    if (!inner_found_ && op->for_type == ForType::Serial) {
      int64_t trips = 1;
      for (const Loop &l : path_) trips *= l.extent;
      if (trips > best_trips) {
        best_trips = trips;
        best = path_;
      }
    }
    inner_found_ = true;
    path_.pop_back();
  }
};

// The elements of flat buffer `name` that a statement loads, in terms of
// the variables defined outside it (Halide's box_touched covers calls, not
// the loads left after storage flattening), and their type.
class LoadedRange : public IRVisitor {
 public:
  explicit LoadedRange(const std::string &name) : name_(name) {}
  Interval range = Interval::nothing();
  Halide::Type type;

 private:
  using IRVisitor::visit;
  const std::string &name_;
  Scope<Interval> scope_;

  void visit(const For *op) override {
    op->min.accept(this);
    op->extent.accept(this);
    Interval lo = bounds_of_expr_in_scope(op->min, scope_);
    Interval ext = bounds_of_expr_in_scope(op->extent, scope_);
    ScopedBinding<Interval> bind(scope_, op->name, Interval(lo.min, simplify(lo.max + ext.max - 1)));
    op->body.accept(this);
  }
  void visit(const LetStmt *op) override {
    op->value.accept(this);
    ScopedBinding<Interval> bind(scope_, op->name, bounds_of_expr_in_scope(op->value, scope_));
    op->body.accept(this);
  }
  void visit(const Let *op) override {
    op->value.accept(this);
    ScopedBinding<Interval> bind(scope_, op->name, bounds_of_expr_in_scope(op->value, scope_));
    op->body.accept(this);
  }
  void visit(const Load *op) override {
    IRVisitor::visit(op);
    if (op->name != name_) return;
    type = op->type.element_of();
    range = Interval::make_union(range, bounds_of_expr_in_scope(op->index, scope_));
  }
};

// Appends statements to the bodies of given loops. At the end, not the start: with prefetches
// first, LLVM hoisted a register block's broadcasts above them and spilled the block (ViT-B/16's
// QKV GEMM ran 1.5x slower).
class InsertAt : public IRMutator {
 public:
  explicit InsertAt(std::map<const For *, std::vector<Stmt>> at) : at_(std::move(at)) {}

 private:
  using IRMutator::visit;
  std::map<const For *, std::vector<Stmt>> at_;
  Stmt visit(const For *op) override {
    auto it = at_.find(op);
    Stmt body = mutate(op->body);
    if (it != at_.end()) body = Block::make(body, Block::make(it->second));
    return For::make(op->name, op->min, op->extent, op->for_type, op->device_api, body);
  }
};

// Whether loop's own body (outside the loops it holds) updates an accumulator
// that LLVM must keep in registers across its iterations: a store whose
// index uses neither the loop's variable nor anything defined in its body and
// is not a constant, to a buffer that body also loads. LLVM promotes such a
// location out of the loop only when nothing else there may touch it, and a
// prefetch of an address computed from an integer may: the register block
// then loads and stores every accumulator each step (a K-blocked GEMM block
// whose accumulator spans all the task's rows ran 0.65x as fast, bench/RESULTS.md,
// 2026-12-06 thirty-seventh session). A block held at constant indices
// (stack slots that LLVM splits into registers) is not one.
bool updates_promoted_accumulator(const For *loop) {
  struct Find : IRVisitor {
    std::set<std::string> variant, loaded;
    std::vector<const Store *> stores;
    using IRVisitor::visit;
    void visit(const For *) override {}
    void visit(const LetStmt *op) override {
      variant.insert(op->name);
      IRVisitor::visit(op);
    }
    void visit(const Let *op) override {
      variant.insert(op->name);
      IRVisitor::visit(op);
    }
    void visit(const Load *op) override {
      loaded.insert(op->name);
      IRVisitor::visit(op);
    }
    void visit(const Store *op) override {
      stores.push_back(op);
      IRVisitor::visit(op);
    }
  } f;
  f.variant.insert(loop->name);
  loop->body.accept(&f);
  for (const Store *st : f.stores) {
    if (!f.loaded.count(st->name)) continue;
    Expr base = st->index;
    if (const Ramp *r = base.as<Ramp>()) base = r->base;
    base = simplify(base);
    if (is_const(base)) continue;
    if (std::none_of(f.variant.begin(), f.variant.end(), [&](const std::string &v) { return expr_uses_var(base, v); }))
      return true;
  }
  return false;
}

// What a task of loop `task` reads of buffer `name`, where the next task's reads start.
struct Slab {
  Expr next_lo;          // the next task's first element (in terms of the task variable)
  int64_t elems = 0;     // elements per task
  Halide::Type type;
};

// e's value when it is a constant. (as_const_int points into e's node, so the value is copied
// out while e lives.)
std::optional<int64_t> constant(const Expr &e) {
  const int64_t *v = as_const_int(e);
  return v ? std::optional<int64_t>(*v) : std::nullopt;
}

// The number of elements of a loaded range, when it has a constant upper bound.
std::optional<int64_t> elements(const Interval &r) {
  if (!r.is_bounded() || r.is_empty()) return std::nullopt;
  return constant(find_constant_bound(simplify(r.max - r.min + 1), Direction::Upper));
}

// The slab of `name` worth fetching a task ahead, if any: one that depends on the task, tiles
// the buffer task after task, fits max_slab_bytes, and that the first loop of `chain` re-reads.
std::optional<Slab> slab_to_fetch(const For *task, const std::string &name, const std::vector<Loop> &chain,
                                  int64_t max_slab_bytes) {
  LoadedRange loaded(name);
  task->body.accept(&loaded);
  std::optional<int64_t> elems = elements(loaded.range);
  if (!elems) return std::nullopt;
  Expr lo = simplify(loaded.range.min), hi = simplify(loaded.range.max);
  if (!expr_uses_var(lo, task->name) && !expr_uses_var(hi, task->name)) return std::nullopt;  // every task reads it
  Expr next_lo = simplify(substitute(task->name, Variable::make(Halide::Int(32), task->name) + 1, lo));
  std::optional<int64_t> stride = constant(simplify(next_lo - lo));
  // A slab that tiles the buffer (a packed panel, a block of output channels). A task that reads
  // a column block of a row-major matrix spans nearly all of it; fetching that would evict what
  // the task computes with.
  if (!stride || *stride <= 0 || *elems > 2 * *stride) return std::nullopt;
  if (*elems * loaded.type.bytes() > max_slab_bytes) return std::nullopt;
  // One iteration of the chain's outer loop reads half of it or more: a GEMM's panel, re-read by
  // every row block, waits for memory in the first one and hits the L2 after. A slab read once,
  // part by part (a reduction over input channels outermost), is streamed by the hardware
  // prefetchers as it is used.
  LoadedRange first(name);
  chain[0].loop->body.accept(&first);
  std::optional<int64_t> first_elems = elements(first.range);
  if (!first_elems || 2 * *first_elems < *elems) return std::nullopt;
  return Slab{next_lo, *elems, loaded.type};
}

class NextTaskPrefetch : public IRMutator {
 public:
  NextTaskPrefetch(const std::set<std::string> &weights, int64_t max_slab_bytes)
      : weights_(weights), max_slab_bytes_(max_slab_bytes) {}

 private:
  using IRMutator::visit;
  const std::set<std::string> &weights_;
  const int64_t max_slab_bytes_;

  Stmt visit(const For *op) override {
    if (op->for_type != ForType::Parallel) return IRMutator::visit(op);
    BusiestLoop busiest;
    op->body.accept(&busiest);
    const std::vector<Loop> &chain = busiest.best;
    // The chain's loops that may carry a prefetch: those above the first that updates an accumulator
    // LLVM must keep in registers (updates_promoted_accumulator). The same for every weight buffer.
    size_t usable = 0;
    while (usable < chain.size() && !updates_promoted_accumulator(chain[usable].loop)) usable++;
    if (usable == 0) return op;
    std::map<const For *, std::vector<Stmt>> fetches;
    for (const std::string &name : weights_) {
      std::optional<Slab> slab = slab_to_fetch(op, name, chain, max_slab_bytes_);
      if (!slab) continue;
      const int64_t line = std::max(1, kLineBytes / slab->type.bytes());
      const int64_t lines = (slab->elems + line - 1) / line;
      // The outermost loop of the chain that runs often enough to issue the lines kMaxPerIteration
      // at a time (else the innermost usable one, which then issues the slab's first
      // trips * kMaxPerIteration).
      size_t level = 0;
      int64_t trips = chain[0].extent;
      while (level + 1 < usable && trips * kMaxPerIteration < lines) trips *= chain[++level].extent;
      const int per = static_cast<int>(std::min(kMaxPerIteration, (lines + trips - 1) / trips));
      // This iteration's index among the level's iterations in a task, 0 .. trips - 1.
      Expr flat = 0;
      for (size_t i = 0; i <= level; i++)
        flat = flat * static_cast<int>(chain[i].extent) + (Variable::make(Halide::Int(32), chain[i].loop->name) - chain[i].loop->min);
      for (int k = 0; k < per; k++) {  // lines flat * per + k of the next task's slab (its last one past the end)
        Expr offset = slab->next_lo + Halide::min((flat * per + k) * static_cast<int>(line), static_cast<int>(slab->elems - 1));
        fetches[chain[level].loop].push_back(prefetch_l2(name, offset, slab->type.bytes()));
      }
    }
    if (fetches.empty()) return op;
    return For::make(op->name, op->min, op->extent, op->for_type, op->device_api, InsertAt(fetches).mutate(op->body));
  }
};

// Halide calls a custom lowering pass's mutate(Stmt) on the whole statement.
class Pass : public IRMutator {
 public:
  Pass(std::set<std::string> weights, int64_t max_slab_bytes)
      : weights_(std::move(weights)), max_slab_bytes_(max_slab_bytes) {}
  Stmt mutate(const Stmt &s) override { return next_task_prefetch(s, weights_, max_slab_bytes_); }
  using IRMutator::mutate;

 private:
  std::set<std::string> weights_;
  int64_t max_slab_bytes_;
};

}  // namespace

Stmt next_task_prefetch(const Stmt &s, const std::set<std::string> &weights, int64_t max_slab_bytes) {
  return NextTaskPrefetch(weights, max_slab_bytes).mutate(s);
}

void add_next_task_prefetch(Halide::Pipeline &p, const std::set<std::string> &weights, int64_t max_slab_bytes) {
  if (!weights.empty()) p.add_custom_lowering_pass(new Pass(weights, max_slab_bytes));
}

int64_t max_prefetch_slab_bytes(int64_t l2_bytes) { return l2_bytes > 0 ? l2_bytes / 2 : kUnknownL2MaxSlabBytes; }

}  // namespace codegen
}  // namespace tetune
