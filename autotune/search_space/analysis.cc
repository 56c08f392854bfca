// Analysis of the compute DAG for the sketch rules, and integer helpers.
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "autotune/search_space/search_space_internal.h"
#include "base/errors.h"
#include "te/expr_functor.h"

namespace tetune {
namespace autotune {
namespace ss {

Graph analyze(const std::vector<Tensor> &outputs) {
  Schedule base(outputs);
  Graph g;
  g.stages = base.stages();
  for (size_t i = 0; i < g.stages.size(); i++) g.index[g.stages[i].name] = static_cast<int>(i);
  for (const auto &st : g.stages)
    for (const auto &r : st.reads)
      if (g.index.count(r)) {
        auto &v = g.consumers[r];
        if (std::find(v.begin(), v.end(), st.name) == v.end()) v.push_back(st.name);
      }
  return g;
}

namespace {
// An index built from variables and immediates with + and - only.
bool plain_index(const Expr &e) {
  return !any_of(e, [](const Expr &x) {
    if (x->kind == ExprKind::Var || x->kind == ExprKind::IntImm) return false;
    auto op = static_cast<BinaryOp>(x->op);
    return x->kind != ExprKind::Binary || (op != BinaryOp::Add && op != BinaryOp::Sub);
  });
}
}  // namespace

bool is_strictly_inlineable(const StageInfo &st) {
  if (st.is_output || st.kind != StageInfo::Compute || st.is_reduction()) return false;
  // Integer stages get a location choice: inlined into a vectorized integer
  // product, Halide 14 miscompiles a zero-point shift (MatMulInteger).
  const DType dt = st.tensor->dtype;
  if (dt.is_int() || dt.is_uint()) return false;
  bool ok = true;
  post_order_visit(st.tensor->body, [&](const Expr &n) {
    if (n->kind == ExprKind::Select) ok = false;
    if (n->kind == ExprKind::Unary) {
      switch (static_cast<UnaryOp>(n->op)) {
        case UnaryOp::Exp: case UnaryOp::Log: case UnaryOp::Sqrt: case UnaryOp::Tanh: case UnaryOp::Erf:
        case UnaryOp::Sin: case UnaryOp::Cos: case UnaryOp::Tan: case UnaryOp::Sinh: case UnaryOp::Cosh:
        case UnaryOp::Asin: case UnaryOp::Acos: case UnaryOp::Atan: case UnaryOp::Asinh: case UnaryOp::Acosh:
        case UnaryOp::Atanh: ok = false; break;
        default: break;
      }
    }
    if (n->kind == ExprKind::Binary && static_cast<BinaryOp>(n->op) == BinaryOp::Pow) ok = false;
    if (n->kind == ExprKind::Access)
      for (const auto &a : n->args) ok = ok && plain_index(a);
  });
  return ok;
}

bool reads_only_guarded(const StageInfo &st) {
  if (st.kind != StageInfo::Compute || st.is_reduction()) return false;
  // Accesses reached without passing through a select's value branch.
  bool unguarded = false;
  std::function<bool(const Expr &)> f = [&](const Expr &e) {
    if (e->kind == ExprKind::Access) unguarded = true;
    if (e->kind != ExprKind::Select) return true;
    pre_order_visit(e->args[0], f);  // the condition is not guarded, the two values are
    return false;
  };
  pre_order_visit(st.tensor->body, f);
  return !unguarded;
}

bool has_data_reuse(const StageInfo &st) {
  if (st.kind != StageInfo::Compute || !st.is_reduction() || st.tensor->axes.empty()) return false;
  int64_t spatial = 1;
  for (auto e : st.shape) spatial *= e;
  if (spatial < 2) return false;
  bool reuse = false;
  post_order_visit(st.tensor->body, [&](const Expr &n) {
    if (n->kind != ExprKind::Access) return;
    std::set<const VarNode *> used;
    for (const auto &a : n->args)
      post_order_visit(a, [&](const Expr &m) {
        if (m->kind == ExprKind::Var) used.insert(m->var.get());
      });
    for (size_t i = 0; i < st.tensor->axes.size(); i++)
      if (st.shape[i] > 1 && !used.count(st.tensor->axes[i].var.get())) reuse = true;
  });
  return reuse;
}

bool is_identity_access(const StageInfo &consumer, const StageInfo &producer) {
  if (consumer.kind != StageInfo::Compute || producer.kind != StageInfo::Compute) return false;
  if (consumer.shape != producer.shape) return false;
  const auto &axes = consumer.tensor->axes;
  bool ok = true, found = false;
  post_order_visit(consumer.tensor->body, [&](const Expr &n) {
    if (n->kind != ExprKind::Access || n->tensor != producer.tensor.node()) return;
    found = true;
    if (n->args.size() != axes.size()) { ok = false; return; }
    for (size_t i = 0; i < axes.size(); i++)
      if (n->args[i]->kind != ExprKind::Var || n->args[i]->var.get() != axes[i].var.get()) ok = false;
  });
  return ok && found;
}

namespace {
// The tensor accesses of st's body in pre-order, and how often each tensor is accessed.
std::vector<const ExprNode *> body_accesses(const StageInfo &st, std::map<const TensorNode *, int> &count) {
  std::vector<const ExprNode *> accesses;
  pre_order_visit(st.tensor->body, [&](const Expr &n) {
    if (n->kind == ExprKind::Access) {
      count[n->tensor.get()]++;
      accesses.push_back(n.get());
    }
    return true;
  });
  return accesses;
}

// Whether expression x reads variable v.
bool uses_var(const Expr &x, const VarNode *v) {
  return any_of(x, [&](const Expr &e) { return e->kind == ExprKind::Var && e->var.get() == v; });
}

// Whether an access of `accesses` other than n indexes with v.
bool read_elsewhere(const std::vector<const ExprNode *> &accesses, const ExprNode *n, const VarNode *v) {
  for (const ExprNode *o : accesses)
    if (o != n)
      for (const auto &a : o->args)
        if (uses_var(a, v)) return true;
  return false;
}
}  // namespace

std::string packable_input(const StageInfo &st) {
  if (st.kind != StageInfo::Compute || !st.is_reduction()) return "";
  const auto &axes = st.tensor->axes;
  int outer = -1;
  for (size_t i = 0; i < axes.size(); i++)
    if (st.shape[i] > 1) {
      outer = static_cast<int>(i);
      break;
    }
  if (outer < 0) return "";
  std::map<const TensorNode *, int> count;
  std::vector<const ExprNode *> accesses = body_accesses(st, count);
  for (const ExprNode *n : accesses) {
    const TensorNode *t = n->tensor.get();
    if (!t || t->kind != TensorNode::Kind::Placeholder || count[t] != 1 || t->shape.size() < 2) continue;
    bool plain = true, uses_outer = false, uses_spatial = false;
    for (const auto &a : n->args) {
      if (a->kind != ExprKind::Var) {
        plain = false;
        break;
      }
      for (size_t i = 0; i < axes.size(); i++)
        if (a->var.get() == axes[i].var.get()) {
          if (static_cast<int>(i) == outer) uses_outer = true;
          else if (st.shape[i] > 1) uses_spatial = true;
        }
    }
    if (plain && !uses_outer && uses_spatial) return t->name;
  }
  return "";
}

namespace {
// Whether every read of st that uses v indexes its last dimension with v
// alone, or v plus or minus terms without v (rt[k, j + col0] of a gate block).
bool var_contiguous(const StageInfo &st, const VarNode *v) {
  auto uses = [&](const Expr &x) { return uses_var(x, v); };
  std::function<bool(const Expr &)> unit_stride = [&](const Expr &x) {
    if (x->kind == ExprKind::Var) return x->var.get() == v;
    if (x->kind != ExprKind::Binary) return false;
    const auto op = static_cast<BinaryOp>(x->op);
    if (op == BinaryOp::Add) return (unit_stride(x->args[0]) && !uses(x->args[1])) || (unit_stride(x->args[1]) && !uses(x->args[0]));
    return op == BinaryOp::Sub && unit_stride(x->args[0]) && !uses(x->args[1]);
  };
  std::map<const TensorNode *, int> count;
  for (const ExprNode *n : body_accesses(st, count))
    for (size_t d = 0; d < n->args.size(); d++)
      if (uses(n->args[d]) && !(d + 1 == n->args.size() && unit_stride(n->args[d]))) return false;
  return true;
}
}  // namespace

bool columns_contiguous(const StageInfo &st) {
  if (st.kind != StageInfo::Compute || st.spatial_axes.empty()) return false;
  return var_contiguous(st, st.tensor->axes.back().var.get());
}

bool columns_gathered(const StageInfo &st) {
  if (st.kind != StageInfo::Compute || st.spatial_axes.empty()) return false;
  const VarNode *v = st.tensor->axes.back().var.get();
  bool gathered = false;
  std::map<const TensorNode *, int> count;
  for (const ExprNode *n : body_accesses(st, count))
    for (const Expr &a : n->args)
      pre_order_visit(a, [&](const Expr &x) {
        const bool divides = x->kind == ExprKind::Binary &&
                             (static_cast<BinaryOp>(x->op) == BinaryOp::Div || static_cast<BinaryOp>(x->op) == BinaryOp::Mod);
        gathered |= divides && uses_var(x->args[0], v);
        return !gathered;
      });
  return gathered;
}

bool reduce_axis_contiguous(const StageInfo &st) {
  if (st.kind != StageInfo::Compute || st.reduce_axes.size() != 1) return false;
  return var_contiguous(st, st.reduce_axes[0].var.get());
}

ChannelVector weight_input(const StageInfo &st) {
  ChannelVector none;
  if (st.kind != StageInfo::Compute || !st.is_reduction() || st.spatial_axes.size() < 3) return none;
  const auto &axes = st.tensor->axes;
  std::map<const TensorNode *, int> count;
  std::vector<const ExprNode *> accesses = body_accesses(st, count);
  for (const ExprNode *n : accesses) {
    const TensorNode *t = n->tensor.get();
    if (!t || t->kind != TensorNode::Kind::Placeholder || count[t] != 1 || t->shape.size() < 2) continue;
    bool plain = true;
    int spatial = 0, axis = -1, dim = -1;
    for (size_t d = 0; d < n->args.size(); d++) {
      const Expr &a = n->args[d];
      if (a->kind != ExprKind::Var) {
        plain = false;
        break;
      }
      for (size_t i = 0; i < axes.size(); i++)
        if (a->var.get() == axes[i].var.get()) spatial++, axis = static_cast<int>(i), dim = static_cast<int>(d);
    }
    if (!plain || spatial != 1 || axis == static_cast<int>(axes.size()) - 1) continue;
    // The other inputs must not use the channel axis (a depthwise conv's data does: its lanes would be a gather).
    if (read_elsewhere(accesses, n, axes[axis].var.get())) continue;
    return ChannelVector{t->name, dim, axis};
  }
  return none;
}

int blocked_lanes_reduce_axis(const StageInfo &st) {
  if (st.kind != StageInfo::Compute || !st.is_reduction()) return -1;
  const VarNode *lanes_out = st.tensor->axes.back().var.get();
  auto reduce_block = [&](const Expr &a) -> int {
    for (size_t j = 0; j < st.reduce_axes.size(); j++)
      if (a->kind == ExprKind::Var && a->var.get() == st.reduce_axes[j].var.get())
        return st.reduce_axes[j].extent <= kMaxVector ? static_cast<int>(j) : -1;
    return -1;
  };
  std::map<const TensorNode *, int> count;
  for (const ExprNode *n : body_accesses(st, count)) {
    const TensorNode *t = n->tensor.get();
    if (!t || t->kind != TensorNode::Kind::Placeholder || n->args.size() < 4) continue;
    const bool plain = std::all_of(n->args.begin(), n->args.end(), [](const Expr &a) { return a->kind == ExprKind::Var; });
    if (!plain || n->args.back()->var.get() != lanes_out) continue;
    const int j = reduce_block(n->args[n->args.size() - 2]);
    if (j >= 0) return j;
  }
  return -1;
}

int64_t blocked_input_lanes(const StageInfo &st) {
  const int j = blocked_lanes_reduce_axis(st);
  return j < 0 ? 0 : st.reduce_axes[j].extent;
}

bool reduces_blocked_channels(const StageInfo &st) { return blocked_input_lanes(st) > 0; }

int blocked_output_channel_axis(const StageInfo &st) {
  if (!reduces_blocked_channels(st)) return -1;
  const auto &axes = st.tensor->axes;
  std::map<const TensorNode *, int> count;
  const std::vector<const ExprNode *> accesses = body_accesses(st, count);
  for (const ExprNode *n : accesses) {
    const TensorNode *t = n->tensor.get();
    if (!t || t->kind != TensorNode::Kind::Placeholder || n->args.size() < 4 ||
        n->args.back()->kind != ExprKind::Var || n->args.back()->var.get() != axes.back().var.get())
      continue;
    for (size_t d = 0; d + 1 < n->args.size(); d++)
      for (size_t i = 0; i + 1 < axes.size(); i++)
        if (n->args[d]->kind == ExprKind::Var && n->args[d]->var.get() == axes[i].var.get() &&
            !read_elsewhere(accesses, n, axes[i].var.get()))  // not the batch axis e of a Winograd GEMM
          return static_cast<int>(i);
  }
  return -1;
}

RowSplitBytes row_split_bytes(const StageInfo &st, int row_axis) {
  RowSplitBytes b;
  if (st.kind != StageInfo::Compute || row_axis < 0 || row_axis >= static_cast<int>(st.tensor->axes.size())) return b;
  const VarNode *rows = st.tensor->axes[row_axis].var.get();
  std::map<const TensorNode *, int> count;
  std::set<const TensorNode *> seen;
  for (const ExprNode *n : body_accesses(st, count)) {
    const TensorNode *t = n->tensor.get();
    if (!t || !seen.insert(t).second) continue;
    const int64_t bytes = Tensor(n->tensor).size() * t->dtype.bytes();
    bool by_row = false;
    for (const Expr &a : n->args) by_row |= uses_var(a, rows);
    (by_row ? b.rows : b.shared) += bytes;
  }
  return b;
}

namespace {
// The reduce variables of st that index an input together with an output axis.
std::set<const VarNode *> tap_vars(const StageInfo &st) {
  std::set<const VarNode *> taps;
  if (st.kind != StageInfo::Compute) return taps;
  std::map<const TensorNode *, int> count;
  for (const ExprNode *n : body_accesses(st, count))
    for (const auto &a : n->args)
      for (const auto &r : st.reduce_axes)
        if (uses_var(a, r.var.get()) &&
            std::any_of(st.tensor->axes.begin(), st.tensor->axes.end(), [&](const IterVar &x) { return uses_var(a, x.var.get()); }))
          taps.insert(r.var.get());
  return taps;
}
}  // namespace

std::set<std::string> window_tap_axes(const StageInfo &st) {
  const std::set<const VarNode *> taps = tap_vars(st);
  std::set<std::string> names;
  for (const auto &r : st.reduce_axes)
    if (taps.count(r.var.get())) names.insert(r.var.name());
  return names;
}

int64_t window_taps(const StageInfo &st) {
  const std::set<const VarNode *> taps = tap_vars(st);
  int64_t n = 1;
  for (const auto &r : st.reduce_axes)
    if (taps.count(r.var.get())) n *= r.extent;
  return n;
}

int64_t reduce_extent(const StageInfo &st) {
  int64_t n = 1;
  for (const auto &r : st.reduce_axes) n *= r.extent;
  return n;
}

ChannelVector channel_vector_input(const StageInfo &st) {
  ChannelVector w = weight_input(st);
  if (!w.found() || st.shape[w.axis] % kMaxVector != 0 || st.shape[w.axis] <= kMaxVector) return ChannelVector{};
  return w;
}

std::vector<int64_t> prime_factors(int64_t n) {
  std::vector<int64_t> f;
  for (int64_t p = 2; p * p <= n; p++)
    while (n % p == 0) f.push_back(p), n /= p;
  if (n > 1) f.push_back(n);
  return f;
}

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> d;
  for (int64_t i = 1; i <= n; i++)
    if (n % i == 0) d.push_back(i);
  return d;
}

bool is_prime(int64_t n) { return n >= 2 && prime_factors(n).size() == 1; }

StagePlan &Sketch::plan(const std::string &stage) {
  for (auto &p : plans)
    if (p.stage == stage) return p;
  throw Error("search space: no plan for stage '" + stage + "'");
}
const StagePlan &Sketch::plan(const std::string &stage) const {
  for (const auto &p : plans)
    if (p.stage == stage) return p;
  throw Error("search space: no plan for stage '" + stage + "'");
}

std::string effective_consumer(const Graph &g, const Sketch &s, const std::string &stage) {
  std::set<std::string> out, seen;
  std::vector<std::string> todo;
  auto it = g.consumers.find(stage);
  if (it != g.consumers.end()) todo = it->second;
  while (!todo.empty()) {
    std::string c = todo.back();
    todo.pop_back();
    if (!seen.insert(c).second) continue;
    if (s.plan(c).kind == PlanKind::Inline) {
      auto jt = g.consumers.find(c);
      if (jt != g.consumers.end()) todo.insert(todo.end(), jt->second.begin(), jt->second.end());
    } else {
      out.insert(c);
    }
  }
  return out.size() == 1 ? *out.begin() : "";
}

TailStrategy tail_for(int64_t e, int64_t factor, bool computed_at) {
  if (computed_at) return TailStrategy::GuardWithIf;
  return e % factor == 0 ? TailStrategy::Auto : TailStrategy::GuardWithIf;
}

std::pair<std::string, std::string> Inst::split(const std::string &stage, const std::string &axis, int64_t factor,
                                                TailStrategy tail) {
  const StageInfo &st = sch.stage(stage);
  int i = st.leaf_index(axis);
  int64_t e = i < 0 ? 0 : st.leaves[i].extent;
  bool tailed = tail_loops.count({stage, axis}) || (e > 0 && e % factor != 0);
  auto r = sch.split(stage, axis, factor, tail);
  if (tailed) {
    tail_loops.insert({stage, r.first});
    tail_loops.insert({stage, r.second});
  }
  return r;
}

int64_t Inst::param(const std::string &name, int64_t dflt) const {
  auto it = c.params.find(name);
  return it == c.params.end() ? dflt : it->second;
}

}  // namespace ss
}  // namespace autotune
}  // namespace tetune
