#include "codegen/lower.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <set>

#include "codegen/nan_semantics.h"
#include "codegen/next_task_prefetch.h"
#include "codegen/reciprocal_products.h"
#include "codegen/vector_math.h"
#include "base/cache_sizes.h"
#include "base/errors.h"

namespace tetune {
namespace codegen {

using HExpr = Halide::Expr;

Halide::Type halide_type(DType t) {
  switch (t.code) {
    case DType::Float: return Halide::Float(t.bits);
    case DType::BFloat: return Halide::BFloat(t.bits);
    case DType::Int: return Halide::Int(t.bits);
    case DType::UInt: return Halide::UInt(t.bits);
    case DType::Bool: return Halide::Bool();
  }
  throw DTypeError("no Halide type for " + t.str());
}

std::vector<Halide::Argument> LoweredPipeline::arguments() const {
  std::vector<Halide::Argument> args;
  for (const auto &p : params) args.push_back(p);
  return args;
}

std::string sanitize(const std::string &name) {
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "t" + out;
  return out;
}

namespace {

// float16 / bfloat16 are computed in float32 and rounded where stored or cast.
Halide::Type compute_type(DType t) {
  return (t.is_float() && t.bits == 16) ? Halide::Float(32) : halide_type(t);
}

struct ExprLowering {
  std::map<const VarNode *, HExpr> vars;
  std::function<HExpr(const TensorNode *, const std::vector<HExpr> &)> access;

  HExpr operator()(const Expr &e, bool guarded = false) {
    switch (e->kind) {
      case ExprKind::IntImm: return Halide::cast(compute_type(e.dtype()), HExpr(static_cast<int64_t>(e->int_value)));
      case ExprKind::FloatImm: return Halide::cast(compute_type(e.dtype()), HExpr(e->float_value));
      case ExprKind::Var: {
        auto it = vars.find(e->var.get());
        if (it == vars.end()) throw CodegenError("variable '" + e->var->name + "' is used outside its compute");
        return it->second;
      }
      case ExprKind::Access: {
        std::vector<HExpr> idx;
        const auto &shape = e->tensor->shape;
        // Row-major TE indices become innermost-first Halide coordinates.
        for (int i = static_cast<int>(e->args.size()) - 1; i >= 0; i--) {
          HExpr v = (*this)(e->args[i], guarded);
          // A select evaluates both branches: keep the unused one in bounds.
          // The search space relies on this clamp: it vectorizes a stage
          // computed inside a tile only when every read is clamped here
          // (reads_only_guarded, autotune/search_space/analysis.cc).
          if (guarded) v = Halide::clamp(v, 0, static_cast<int>(shape[i] - 1));
          idx.push_back(v);
        }
        HExpr v = access(e->tensor.get(), idx);
        return Halide::cast(compute_type(e.dtype()), v);
      }
      case ExprKind::Unary: return unary(e, guarded);
      case ExprKind::Binary: return binary(e, guarded);
      case ExprKind::Select:
        return Halide::select((*this)(e->args[0], guarded), (*this)(e->args[1], true), (*this)(e->args[2], true));
      case ExprKind::Cast: {
        HExpr v = (*this)(e->args[0], guarded);
        // Halide truncates a float cast to bool; TE's cast to bool is x != 0.
        if (e.dtype().is_bool()) return v != Halide::Internal::make_zero(v.type());
        HExpr c = Halide::cast(halide_type(e.dtype()), v);
        return Halide::cast(compute_type(e.dtype()), c);
      }
      case ExprKind::Reduce: throw CodegenError("nested reduction in " + to_string(e));
    }
    throw CodegenError("unknown expression kind");
  }

  HExpr unary(const Expr &e, bool g) {
    HExpr a = (*this)(e->args[0], g);
    switch (static_cast<UnaryOp>(e->op)) {
      case UnaryOp::Neg: return -a;
      case UnaryOp::Not: return !a;
      // Halide's log polynomial turns NaN into a number (log(NaN) = 89.1); vector_exp keeps NaN.
      case UnaryOp::Exp: return vector_exp(a);
      case UnaryOp::Log: return keep_nan(a, Halide::log(a));
      case UnaryOp::Sqrt: return Halide::sqrt(a);
      case UnaryOp::Tanh: return vector_tanh(a);
      case UnaryOp::Erf: return Halide::erf(a);
      case UnaryOp::Floor: return Halide::floor(a);
      case UnaryOp::Ceil: return Halide::ceil(a);
      case UnaryOp::Round: return Halide::round(a);
      case UnaryOp::Abs: return Halide::cast(a.type(), Halide::abs(a));
      case UnaryOp::Sin: return Halide::sin(a);
      case UnaryOp::Cos: return Halide::cos(a);
      case UnaryOp::Tan: return Halide::tan(a);
      case UnaryOp::Sinh: return Halide::sinh(a);
      case UnaryOp::Cosh: return Halide::cosh(a);
      case UnaryOp::Asin: return Halide::asin(a);
      case UnaryOp::Acos: return Halide::acos(a);
      case UnaryOp::Atan: return Halide::atan(a);
      case UnaryOp::Asinh: return Halide::asinh(a);
      case UnaryOp::Acosh: return Halide::acosh(a);
      case UnaryOp::Atanh: return Halide::atanh(a);
      case UnaryOp::IsNan: return is_nan_bits(a);
      case UnaryOp::IsInf: return is_inf_bits(a);
      case UnaryOp::BitNot: return ~a;
    }
    throw CodegenError("unknown unary op");
  }

  HExpr binary(const Expr &e, bool g) {
    HExpr a = (*this)(e->args[0], g), b = (*this)(e->args[1], g);
    switch (static_cast<BinaryOp>(e->op)) {
      case BinaryOp::Add: return a + b;
      case BinaryOp::Sub: return a - b;
      case BinaryOp::Mul: return a * b;
      case BinaryOp::Div: return a / b;
      case BinaryOp::Mod: return a % b;
      // NaN-propagating after Halide's lowering (add_nan_propagating_min_max, run()).
      case BinaryOp::Min: return Halide::min(a, b);
      case BinaryOp::Max: return Halide::max(a, b);
      case BinaryOp::Pow: {
        // C and ONNX: pow(x, 0) = 1 and pow(1, y) = 1 even for NaN, otherwise a NaN operand gives NaN
        // (Halide's pow(NaN, 2) is inf). Under fast-math a scalar NaN == 0 can be true (x86 ucomiss
        // without its parity check), hence the !is_nan_bits.
        HExpr one = Halide::Internal::make_one(a.type());
        HExpr a_is_one = a == one && !is_nan_bits(a);
        HExpr b_is_zero = b == Halide::Internal::make_zero(b.type()) && !is_nan_bits(b);
        return Halide::select(a_is_one || b_is_zero, one, keep_nan(a, keep_nan(b, Halide::pow(a, b))));
      }
      case BinaryOp::EQ: return a == b;
      case BinaryOp::NE: return a != b;
      case BinaryOp::LT: return a < b;
      case BinaryOp::LE: return a <= b;
      case BinaryOp::GT: return a > b;
      case BinaryOp::GE: return a >= b;
      case BinaryOp::And: return a && b;
      case BinaryOp::Or: return a || b;
      case BinaryOp::BitAnd: return a & b;
      case BinaryOp::BitOr: return a | b;
      case BinaryOp::BitXor: return a ^ b;
    }
    throw CodegenError("unknown binary op");
  }
};

// Names of a stage's loops as Halide sees them: spatial -> Var, reduce -> RVar.
struct AxisMap {
  std::map<std::string, std::string> halide_name;
  std::set<std::string> reduce;
  Halide::VarOrRVar get(const std::string &axis) const {
    auto it = halide_name.find(axis);
    if (it == halide_name.end()) throw CodegenError("axis '" + axis + "' is unknown to the lowering");
    if (reduce.count(axis)) return Halide::RVar(it->second);
    return Halide::Var(it->second);
  }
};

Halide::TailStrategy halide_tail(TailStrategy t) {
  switch (t) {
    case TailStrategy::Auto: return Halide::TailStrategy::Auto;
    case TailStrategy::GuardWithIf: return Halide::TailStrategy::GuardWithIf;
    case TailStrategy::ShiftInwards: return Halide::TailStrategy::ShiftInwards;
    case TailStrategy::RoundUp: return Halide::TailStrategy::RoundUp;
  }
  return Halide::TailStrategy::Auto;
}

class Lowerer {
 public:
  Lowerer(const Schedule &s, const std::vector<PrepackedInput> &prepacked, bool prefetch_packed)
      : s_(s), prefetch_packed_(prefetch_packed) {
    for (const auto &p : prepacked) prepacked_[p.stage] = p;
  }

  LoweredPipeline run() {
    LoweredPipeline out;
    std::set<std::string> used;
    std::map<std::string, const PrepackedInput *> packed_input;  // input name -> its prepacked copy
    for (const auto &[stage, p] : prepacked_) {
      if (p.input < 0 || p.input >= static_cast<int>(s_.inputs().size()) || !s_.has_stage(stage) ||
          s_.stage(stage).source != s_.inputs()[p.input].name() || s_.stage(stage).shape != p.packed_shape)
        throw CodegenError("prepacked input " + std::to_string(p.input) + " is not packed by stage '" + stage + "'");
      packed_input[s_.stage(stage).source] = &p;
    }
    for (const auto &in : s_.inputs()) {
      // Prefixed: a buffer named like a math function ("tanh") clashes with LLVM symbols.
      auto pk = packed_input.find(in.name());
      const Shape &shape = pk == packed_input.end() ? in.shape() : pk->second->packed_shape;
      std::string n = unique("in_" + sanitize(in.name()) + (pk == packed_input.end() ? "" : "_packed"), used);
      Halide::ImageParam p(halide_type(in.dtype()), static_cast<int>(shape.size()), n);
      set_dense_bounds(p, shape);
      params_[in.name()] = p;
      out.params.push_back(p);
    }
    for (const auto &st : s_.stages()) funcs_[st.name] = Halide::Func(unique("f_" + sanitize(st.name), used));
    for (const auto &st : s_.stages()) define(st);
    // A prepacked copy stays an inlined view of its param: no loops, no storage.
    for (const auto &st : s_.stages())
      if (!prepacked_.count(st.name)) schedule_loops(st);
    for (const auto &st : s_.stages())
      if (!prepacked_.count(st.name)) attach(st);
    for (const auto &o : s_.outputs()) {
      Halide::Func f = funcs_.at(s_.stage_of(o));
      set_dense_bounds(f.output_buffer(), o.shape());
      out.outputs.push_back(f);
    }
    out.pipeline = Halide::Pipeline(out.outputs);
    add_nan_propagating_min_max(out.pipeline);
    add_quotients_for_reciprocal_products(out.pipeline);
    if (prefetch_packed_) {
      std::set<std::string> packed;
      for (size_t i = 0; i < s_.inputs().size(); i++)
        if (packed_input.count(s_.inputs()[i].name())) packed.insert(out.params[i].name());
      add_next_task_prefetch(out.pipeline, packed, max_prefetch_slab_bytes(host_cache_sizes().l2_bytes));
    }
    out.funcs = funcs_;
    return out;
  }

 private:
  static std::string unique(const std::string &base, std::set<std::string> &used) {
    std::string n = base;
    for (int k = 1; used.count(n); k++) n = base + "_" + std::to_string(k);
    used.insert(n);
    return n;
  }

  // Dense row-major layout with known extents lets Halide use constant strides.
  static void set_dense_bounds(Halide::OutputImageParam p, const Shape &shape) {
    int64_t stride = 1;
    int n = static_cast<int>(shape.size());
    for (int d = 0; d < n; d++) {
      int64_t extent = shape[n - 1 - d];
      p.dim(d).set_bounds(0, static_cast<int>(extent)).set_stride(static_cast<int>(stride));
      stride *= extent;
    }
  }

  std::vector<Halide::Var> pure_vars(const StageInfo &st) {
    std::vector<Halide::Var> v;
    for (int i = static_cast<int>(st.spatial_axes.size()) - 1; i >= 0; i--) v.emplace_back(sanitize(st.spatial_axes[i]));
    return v;
  }

  // Halide coordinates (innermost first) of a packed copy's element at source coordinates idx.
  static std::vector<HExpr> packed_coords(const StageInfo &st, const std::vector<HExpr> &idx) {
    const PackInfo &pk = st.pack;
    int n = static_cast<int>(pk.source_axes.size());
    std::map<std::string, HExpr> at;  // source axis -> its coordinate
    for (int k = 0; k < n; k++) at[pk.source_axes[k]] = idx[n - 1 - k];
    HExpr x = at.at(pk.axis);
    int f = static_cast<int>(pk.factor);
    std::vector<HExpr> out;
    for (int k = static_cast<int>(st.spatial_axes.size()) - 1; k >= 0; k--) {
      const std::string &a = st.spatial_axes[k];
      if (a == pk.axis + "_i") out.push_back(x % f);
      else if (a == pk.axis + "_o") out.push_back(x / f);
      else out.push_back(at.at(a));
    }
    return out;
  }

  // The Func or param that holds tensor t as seen from stage st.
  HExpr access(const StageInfo &st, const TensorNode *t, const std::vector<HExpr> &idx) {
    auto r = st.redirects.find(t->name);
    if (r != st.redirects.end()) {
      const StageInfo &cache = s_.stage(r->second);
      return funcs_.at(r->second)(cache.pack.packed() ? packed_coords(cache, idx) : idx);
    }
    if (t->kind == TensorNode::Kind::Placeholder) return params_.at(t->name)(idx);
    for (const auto &o : s_.stages())
      if (o.tensor.node().get() == t) return funcs_.at(s_.stage_of(o.tensor))(idx);
    throw CodegenError("tensor '" + t->name + "' has no stage");
  }

  void define(const StageInfo &st) {
    Halide::Func f = funcs_.at(st.name);
    std::vector<Halide::Var> vars = pure_vars(st);
    std::vector<HExpr> args(vars.begin(), vars.end());
    AxisMap &am = axes_[st.name];
    for (const auto &a : st.spatial_axes) am.halide_name[a] = sanitize(a);
    DType dt = st.tensor.defined() ? st.tensor.dtype() : DType();
    if (st.kind == StageInfo::Copy) {
      if (prepacked_.count(st.name)) {  // the param holds the packed copy
        f(args) = params_.at(st.source)(args);
        return;
      }
      // Copy of a stage or placeholder, same shape (or packed: source coordinate axis = axis_o * factor + axis_i).
      if (st.pack.packed()) {
        const PackInfo &pk = st.pack;
        std::vector<HExpr> src;
        for (int k = static_cast<int>(pk.source_axes.size()) - 1; k >= 0; k--) {
          const std::string &a = pk.source_axes[k];
          if (a == pk.axis)
            src.push_back(Halide::Var(sanitize(a + "_o")) * static_cast<int>(pk.factor) + Halide::Var(sanitize(a + "_i")));
          else
            src.push_back(Halide::Var(sanitize(a)));
        }
        f(args) = s_.has_stage(st.source) ? funcs_.at(st.source)(src) : params_.at(st.source)(src);
        return;
      }
      if (s_.has_stage(st.source)) {
        f(args) = funcs_.at(st.source)(args);
      } else {
        f(args) = params_.at(st.source)(args);
      }
      return;
    }
    if (st.kind == StageInfo::Compute && !st.rfactor.partial.empty()) {
      define_factored(st, f, args, dt);
      return;
    }
    const TensorNode *t = st.tensor.operator->();
    ExprLowering lw;
    lw.access = [&](const TensorNode *tn, const std::vector<HExpr> &idx) { return access(st, tn, idx); };
    // A ".rf" stage has the factored axis as its outermost spatial axis, before the tensor's own.
    size_t off = st.rfactor.of.empty() ? 0 : 1;
    for (size_t i = 0; i < t->axes.size(); i++) lw.vars[t->axes[i].var.get()] = Halide::Var(sanitize(st.spatial_axes[i + off]));
    Halide::Type store = halide_type(dt);
    if (t->body->kind != ExprKind::Reduce) {
      f(args) = Halide::cast(store, lw(t->body));
      return;
    }
    const Expr &red = t->body;
    ReduceOp op = static_cast<ReduceOp>(red->op);
    if (!st.rfactor.of.empty()) {
      define_partial(st, f, args, dt, lw);
      return;
    }
    Halide::Region region;
    for (const auto &r : red->reduce_axes) region.push_back(Halide::Range(0, static_cast<int>(r.extent)));
    Halide::RDom rdom(region, sanitize(st.name) + "_r");
    for (size_t i = 0; i < red->reduce_axes.size(); i++) {
      const auto &r = red->reduce_axes[i];
      lw.vars[r.var.get()] = rdom[static_cast<int>(i)];
      am.halide_name[r.var.name()] = rdom[static_cast<int>(i)].name();
      am.reduce.insert(r.var.name());
    }
    reduce_into(f, args, op, dt, lw(red->args[0]));
  }

  // The identity of reduction op over dtype dt (0, 1, -inf, +inf, or the type's bounds) as type t.
  static HExpr identity_as(ReduceOp op, DType dt, Halide::Type t) {
    ExprLowering lw;
    return Halide::cast(t, lw(reduce_identity(op, dt)));
  }

  // f(args) = identity; f(args) = combine(f(args), src). Reduce in the compute type; round to the
  // stored type on every update only when they differ (float16 / bfloat16 accumulate in float32 via cast).
  static void reduce_into(Halide::Func f, const std::vector<HExpr> &args, ReduceOp op, DType dt, HExpr src) {
    Halide::Type store = halide_type(dt);
    f(args) = identity_as(op, dt, store);
    HExpr cur = Halide::cast(src.type(), f(args));
    HExpr next;
    switch (op) {
      case ReduceOp::Sum: next = cur + src; break;
      case ReduceOp::Prod: next = cur * src; break;
      case ReduceOp::Max: next = Halide::max(cur, src); break;
      case ReduceOp::Min: next = Halide::min(cur, src); break;
    }
    f(args) = Halide::cast(store, next);
  }

  // A ".rf" stage: partial(u, spatial...) reduces the body over the remaining reduce axes and the
  // complementary part of the split, with the original reduce variable = outer * factor + inner.
  void define_partial(const StageInfo &st, Halide::Func f, const std::vector<HExpr> &args, DType dt, ExprLowering &lw) {
    AxisMap &am = axes_[st.name];
    const RFactorInfo &rf = st.rfactor;
    const Expr &red = st.tensor->body;
    Halide::Var u(sanitize(rf.axis));
    std::map<std::string, HExpr> rvars;
    Halide::Region region;
    for (const auto &r : st.reduce_axes) region.push_back(Halide::Range(0, static_cast<int>(r.extent)));
    std::unique_ptr<Halide::RDom> rdom;
    if (!region.empty()) {
      rdom = std::make_unique<Halide::RDom>(region, sanitize(st.name) + "_r");
      for (size_t i = 0; i < st.reduce_axes.size(); i++) {
        const std::string &n = st.reduce_axes[i].var.name();
        rvars[n] = (*rdom)[static_cast<int>(i)];
        am.halide_name[n] = (*rdom)[static_cast<int>(i)].name();
        am.reduce.insert(n);
      }
    }
    HExpr k = u, in_range;
    if (!rf.other.empty()) {
      HExpr outer = rf.axis_is_outer ? HExpr(u) : rvars.at(rf.other);
      HExpr inner = rf.axis_is_outer ? rvars.at(rf.other) : HExpr(u);
      k = outer * static_cast<int>(rf.factor) + inner;
      int64_t outer_extent = st.shape[0];  // the factored axis' extent
      if (!rf.axis_is_outer)
        for (const auto &r : st.reduce_axes)
          if (r.var.name() == rf.other) outer_extent = r.extent;
      if (outer_extent * rf.factor != rf.extent) {
        // The split overshoots: the tail's terms are the reduction's identity, the index kept in
        // bounds. A select, not an RDom predicate: predicated, the update of a vectorized
        // accumulator is a masked store, and the next read of the whole vector stalls on it
        // (no store forwarding; 12% of a softmax over rows of 197). likely() lets Halide peel
        // the tail off the loop (loop partitioning), so the steady state runs no select.
        in_range = Halide::likely(k < static_cast<int>(rf.extent));
        k = Halide::min(k, static_cast<int>(rf.extent - 1));
      }
    }
    for (const auto &r : red->reduce_axes) lw.vars[r.var.get()] = r.var.name() == rf.orig ? k : rvars.at(r.var.name());
    HExpr src = lw(red->args[0]);
    if (in_range.defined()) src = Halide::select(in_range, src, identity_as(static_cast<ReduceOp>(red->op), dt, src.type()));
    if (!rdom) {
      // Nothing left to reduce: one term per partial result.
      f(args) = Halide::cast(halide_type(dt), src);
      return;
    }
    reduce_into(f, args, static_cast<ReduceOp>(red->op), dt, src);
  }

  // A factored stage: combines the partial results over the factored axis.
  void define_factored(const StageInfo &st, Halide::Func f, const std::vector<HExpr> &args, DType dt) {
    AxisMap &am = axes_[st.name];
    const RFactorInfo &rf = st.rfactor;
    auto r = st.redirects.find(rf.partial);
    Halide::Func partial = funcs_.at(r != st.redirects.end() ? r->second : rf.partial);
    Halide::RDom rdom({Halide::Range(0, static_cast<int>(st.reduce_axes.at(0).extent))}, sanitize(st.name) + "_r");
    am.halide_name[rf.axis] = rdom.x.name();
    am.reduce.insert(rf.axis);
    std::vector<HExpr> pargs = args;
    pargs.push_back(rdom.x);  // the factored axis is the partial stage's outermost
    HExpr src = Halide::cast(compute_type(dt), partial(pargs));
    reduce_into(f, args, static_cast<ReduceOp>(st.tensor->body->op), dt, src);
  }

  // Replays the stage's loop transformations on one definition.
  void transform(const StageInfo &st, Halide::Stage def, bool is_update) {
    AxisMap &am = axes_[st.name];
    auto usable = [&](const std::string &a) { return is_update || !am.reduce.count(a); };
    for (const auto &rel : st.relations) {
      bool reduce_rel = am.reduce.count(rel.kind == Relation::Split ? rel.parent : rel.outer) > 0;
      std::vector<std::string> fresh = rel.kind == Relation::Split ? std::vector<std::string>{rel.outer, rel.inner}
                                                                  : std::vector<std::string>{rel.parent};
      for (const auto &n : fresh) {
        am.halide_name[n] = sanitize(n);
        if (reduce_rel) am.reduce.insert(n);
      }
      if (reduce_rel && !is_update) continue;
      if (rel.kind == Relation::Split) {
        // Auto: only an output's pure definition may shift inwards (its extent is exact); elsewhere a
        // rounded-up tail could read past an input, so guard it (free when the factor divides).
        Halide::TailStrategy tail = halide_tail(rel.tail);
        if (rel.tail == TailStrategy::Auto && (is_update || !st.is_output)) tail = Halide::TailStrategy::GuardWithIf;
        // round_up is only exact at root; a computed-at stage's realised extent may not be a multiple.
        if (rel.tail == TailStrategy::RoundUp && st.attach.kind != Attach::Root) tail = Halide::TailStrategy::GuardWithIf;
        def.split(am.get(rel.parent), am.get(rel.outer), am.get(rel.inner), static_cast<int>(rel.inner_extent), tail);
      } else {
        def.fuse(am.get(rel.inner), am.get(rel.outer), am.get(rel.parent));  // Halide takes the inner axis first
      }
    }
    std::vector<Halide::VarOrRVar> order;
    for (auto it = st.leaves.rbegin(); it != st.leaves.rend(); ++it)
      if (usable(it->name)) order.push_back(am.get(it->name));
    if (order.size() > 1) def.reorder(order);
    for (const auto &leaf : st.leaves) {
      if (leaf.annotation.empty() || !usable(leaf.name)) continue;
      Halide::VarOrRVar v = am.get(leaf.name);
      int extent = static_cast<int>(leaf.extent);
      // The realised extent of a computed-at stage may be smaller than the nominal one: guard.
      // A vectorized reduce loop (Schedule allows the stage's only one) reduces its lanes horizontally.
      if (leaf.annotation == "vectorize" && am.reduce.count(leaf.name)) def.atomic();
      if (leaf.annotation == "vectorize") def.vectorize(v, extent, Halide::TailStrategy::GuardWithIf);
      else if (leaf.annotation == "unroll") def.unroll(v, extent, Halide::TailStrategy::GuardWithIf);
      else if (leaf.annotation == "parallel") def.parallel(v);
      else if (leaf.annotation.rfind("blockIdx", 0) == 0) def.gpu_blocks(v);
      else if (leaf.annotation.rfind("threadIdx", 0) == 0) def.gpu_threads(v);
    }
  }

  void schedule_loops(const StageInfo &st) {
    Halide::Func f = funcs_.at(st.name);
    AxisMap root_axes = axes_[st.name];  // before relations add derived names
    transform(st, f, false);
    if (f.has_update_definition()) {
      axes_[st.name] = root_axes;
      transform(st, f.update(0), true);
    }
  }

  void attach(const StageInfo &st) {
    Halide::Func f = funcs_.at(st.name);
    if (!st.storage_order.empty()) {
      std::vector<Halide::Var> order;  // Halide lists storage dimensions innermost first
      for (auto it = st.storage_order.rbegin(); it != st.storage_order.rend(); ++it) order.emplace_back(sanitize(*it));
      f.reorder_storage(order);
    }
    switch (st.attach.kind) {
      case Attach::Root:
        if (!st.is_output) f.compute_root();
        break;
      case Attach::Inline:
        break;
      case Attach::At: {
        Halide::Func target = funcs_.at(st.attach.stage);
        // Stage index -1: the last definition (the update of a reduction), where the loops live.
        f.compute_at(Halide::LoopLevel(target, axes_.at(st.attach.stage).get(st.attach.axis)));
        break;
      }
    }
  }

  const Schedule &s_;
  std::map<std::string, PrepackedInput> prepacked_;  // by stage name
  bool prefetch_packed_;
  std::map<std::string, Halide::ImageParam> params_;  // by input name (a prepacked input: its packed array)
  std::map<std::string, Halide::Func> funcs_;
  std::map<std::string, AxisMap> axes_;
};

}  // namespace

LoweredPipeline lower(const Schedule &s, const std::vector<PrepackedInput> &prepacked, bool prefetch_packed) {
  try {
    return Lowerer(s, prepacked, prefetch_packed).run();
  } catch (const Halide::Error &e) {
    throw CodegenError(std::string("Halide rejected the schedule: ") + e.what());
  }
}

}  // namespace codegen
}  // namespace tetune
