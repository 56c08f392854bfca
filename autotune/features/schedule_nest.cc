#include "autotune/features/schedule_nest.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include "codegen/lower.h"
#include "codegen/prepack.h"

namespace tetune {
namespace autotune {
namespace features {

namespace {

// An index as sum(coef[v] * v) + c over the stage's root axes; ok = false when
// it is not affine (vars still lists the axes it uses).
struct Affine {
  std::map<std::string, int64_t> coef;
  int64_t c = 0;
  bool ok = true;
  std::set<std::string> vars;
};

using Env = std::map<const VarNode *, Affine>;

Affine combine(const Affine &a, const Affine &b, int64_t sign) {
  Affine r = a;
  r.c += sign * b.c;
  for (const auto &kv : b.coef) r.coef[kv.first] += sign * kv.second;
  r.ok = a.ok && b.ok;
  r.vars.insert(b.vars.begin(), b.vars.end());
  return r;
}

Affine scaled(Affine a, int64_t k) {
  a.c *= k;
  for (auto &kv : a.coef) kv.second *= k;
  return a;
}

Affine affine_of(const Expr &e, const Env &env) {
  Affine r;
  if (!e.defined()) return r;
  switch (e->kind) {
    case ExprKind::IntImm: r.c = e->int_value; return r;
    case ExprKind::Var: {
      auto it = env.find(e->var.get());
      if (it != env.end()) return it->second;
      r.ok = false;
      return r;
    }
    case ExprKind::Binary: {
      Affine a = affine_of(e->args[0], env), b = affine_of(e->args[1], env);
      auto op = static_cast<BinaryOp>(e->op);
      if (op == BinaryOp::Add) return combine(a, b, 1);
      if (op == BinaryOp::Sub) return combine(a, b, -1);
      bool a_const = a.ok && a.coef.empty() && a.vars.empty(), b_const = b.ok && b.coef.empty() && b.vars.empty();
      if (op == BinaryOp::Mul && b_const) return scaled(a, b.c);
      if (op == BinaryOp::Mul && a_const) return scaled(b, a.c);
      // clamp(x, lo, hi) of a padding: the bounds of x are what matter.
      if ((op == BinaryOp::Min || op == BinaryOp::Max) && b_const) return a;
      if ((op == BinaryOp::Min || op == BinaryOp::Max) && a_const) return b;
      Affine m = combine(a, b, 1);
      m.ok = false;
      return m;
    }
    default: {
      for (const auto &x : e->args) {
        Affine s = affine_of(x, env);
        r.vars.insert(s.vars.begin(), s.vars.end());
        for (const auto &kv : s.coef) r.vars.insert(kv.first);
      }
      r.ok = false;
      return r;
    }
  }
}

std::set<std::string> vars_of(const Affine &a) {
  std::set<std::string> v = a.vars;
  for (const auto &kv : a.coef)
    if (kv.second != 0) v.insert(kv.first);
  return v;
}

using codegen::sanitize;  // buffers are named as the lowered code names them

// A load found in a stage body: the buffer it reads and its indices.
struct Load {
  std::string buffer;  // stage or placeholder name (redirects applied)
  std::vector<Affine> index;
  int bytes = 4;
  // A packed buffer's index d is index[d] / div[d] (its outer part) or
  // index[d] % mod[d] (its inner part) when those are > 0.
  std::vector<int64_t> div, mod;
};

// A load of a packed copy (Schedule::pack_layout) in the copy's own axis order.
Load packed_load(const StageInfo &cache, std::vector<Affine> source_index, int bytes) {
  const PackInfo &pk = cache.pack;
  std::map<std::string, Affine> at;
  for (size_t k = 0; k < pk.source_axes.size() && k < source_index.size(); k++) at[pk.source_axes[k]] = source_index[k];
  Load l{cache.name, {}, bytes, {}, {}};
  for (const auto &a : cache.spatial_axes) {
    bool outer = a == pk.axis + "_o", inner = a == pk.axis + "_i";
    l.index.push_back(at[outer || inner ? pk.axis : a]);
    l.div.push_back(outer ? pk.factor : 0);
    l.mod.push_back(inner ? pk.factor : 0);
  }
  return l;
}

class Builder {
 public:
  Builder(const Schedule &s, const std::vector<PrepackedInput> &prepacked) : s_(s) {
    for (const auto &p : prepacked) prepacked_.insert(p.stage);
  }

  LoopNest build() {
    for (const auto &st : s_.stages()) {
      if (st.attach.kind == Attach::At) attached_[{st.attach.stage, st.attach.axis}].push_back(st.name);
      if (st.attach.kind == Attach::Inline) inlined_.insert(st.name);
    }
    for (const auto &st : s_.stages())
      if (st.attach.kind == Attach::Root && !prepacked_.count(st.name)) emit(st, -1, {});
    return std::move(nest_);
  }

 private:
  // Roots of each leaf through the split / fuse relations.
  static std::map<std::string, std::set<std::string>> leaf_roots(const StageInfo &st) {
    std::map<std::string, std::set<std::string>> roots;
    for (const auto &[leaf, rs] : leaf_root_axes(st)) roots[leaf] = std::set<std::string>(rs.begin(), rs.end());
    return roots;
  }

  Env root_env(const StageInfo &st) const {
    Env env;
    if (!st.tensor.defined() || st.tensor->kind != TensorNode::Kind::Compute) return env;
    const auto &axes = st.tensor->axes;
    for (size_t i = 0; i < axes.size() && i < st.spatial_axes.size(); i++) {
      Affine a;
      a.coef[st.spatial_axes[i]] = 1;
      env[axes[i].var.get()] = a;
    }
    if (st.tensor->body.defined() && st.tensor->body->kind == ExprKind::Reduce)
      for (const auto &r : st.tensor->body->reduce_axes) {
        Affine a;
        a.coef[r.var.name()] = 1;
        env[r.var.get()] = a;
      }
    return env;
  }

  // Loads of an expression, substituting inlined stages.
  void collect(const StageInfo &reader, const Expr &e, const Env &env, std::vector<Load> &out, int64_t &flops,
               int64_t &iops, int depth) const {
    if (!e.defined() || depth > 32) return;
    if (e->kind == ExprKind::Binary || e->kind == ExprKind::Unary || e->kind == ExprKind::Select)
      (e->dtype.is_float() ? flops : iops)++;
    if (e->kind == ExprKind::Access) {
      const TensorNode *t = e->tensor.get();
      std::vector<Affine> idx;
      for (const auto &a : e->args) idx.push_back(affine_of(a, env));
      if (inlined_.count(t->name) && t->kind == TensorNode::Kind::Compute) {
        Env inner;
        for (size_t i = 0; i < t->axes.size() && i < idx.size(); i++) inner[t->axes[i].var.get()] = idx[i];
        collect(reader, t->body, inner, out, flops, iops, depth + 1);
        return;
      }
      auto rd = reader.redirects.find(t->name);
      if (rd != reader.redirects.end() && s_.stage(rd->second).pack.packed())
        out.push_back(packed_load(s_.stage(rd->second), std::move(idx), t->dtype.bytes()));
      else
        out.push_back(Load{rd == reader.redirects.end() ? t->name : rd->second, std::move(idx), t->dtype.bytes(), {}, {}});
      return;
    }
    for (const auto &a : e->args) collect(reader, a, env, out, flops, iops, depth + 1);
  }

  std::vector<Load> loads_of(const StageInfo &st, int64_t &flops, int64_t &iops) const {
    std::vector<Load> loads;
    if (st.kind == StageInfo::Copy) {  // a copy of `source` at the same indices (packed: axis = axis_o * f + axis_i)
      Load l{st.source, {}, st.tensor.defined() ? st.tensor.dtype().bytes() : 4, {}, {}};
      const std::vector<std::string> &axes = st.pack.packed() ? st.pack.source_axes : st.spatial_axes;
      for (const auto &a : axes) {
        Affine x;
        if (st.pack.packed() && a == st.pack.axis) {
          x.coef[a + "_o"] = st.pack.factor;
          x.coef[a + "_i"] = 1;
        } else {
          x.coef[a] = 1;
        }
        l.index.push_back(x);
      }
      loads.push_back(l);
      return loads;
    }
    if (st.tensor.defined() && st.tensor->kind == TensorNode::Kind::Compute)
      collect(st, st.tensor->body, root_env(st), loads, flops, iops, 0);
    return loads;
  }

  // Extent of each root axis of `producer` that one iteration of consumer's loop `axis` reads.
  std::map<std::string, double> region(const StageInfo &producer, const StageInfo &consumer, const std::string &axis) const {
    auto roots = leaf_roots(consumer);
    int at = consumer.leaf_index(axis);
    std::map<std::string, double> inside;  // consumer root axis -> its extent inside the loop
    for (size_t i = 0; i < consumer.leaves.size(); i++) {
      if (static_cast<int>(i) <= at) continue;
      for (const auto &r : roots[consumer.leaves[i].name]) {
        double &v = inside.emplace(r, 1.0).first->second;
        v *= static_cast<double>(consumer.leaves[i].extent);
      }
    }
    int64_t fl = 0, il = 0;
    std::map<std::string, double> out;
    for (const auto &l : loads_of(consumer, fl, il)) {
      if (l.buffer != producer.name) continue;
      for (size_t d = 0; d < l.index.size() && d < producer.spatial_axes.size(); d++) {
        double full = static_cast<double>(producer.shape[d]), r = full;
        if (l.index[d].ok) {
          r = 1;
          for (const auto &[v, k] : l.index[d].coef) {
            auto it = inside.find(v);
            double sp = it == inside.end() ? 1.0 : it->second;
            r += static_cast<double>(std::llabs(k)) * (sp - 1);
          }
          if (d < l.div.size() && l.div[d] > 0) r = std::ceil(r / static_cast<double>(l.div[d]));
          if (d < l.mod.size() && l.mod[d] > 0) r = std::min(r, static_cast<double>(l.mod[d]));
        }
        double &cur = out.emplace(producer.spatial_axes[d], 0.0).first->second;
        cur = std::max(cur, std::min(r, full));
      }
    }
    return out;
  }

  static std::string kind_of(const LeafAxis &l) {
    if (l.annotation == "parallel") return "parallel";
    if (l.annotation == "unroll") return "unrolled";
    if (l.annotation.rfind("blockIdx", 0) == 0) return "gpu_block";
    if (l.annotation.rfind("threadIdx", 0) == 0) return "gpu_thread";
    return "serial";
  }

  void emit(const StageInfo &st, int parent, const std::map<std::string, double> &reg) {
    auto roots = leaf_roots(st);
    // Shorten the outermost leaf of each root axis to the region read.
    std::map<int, int64_t> extent;
    std::set<std::string> scaled_roots;
    for (size_t i = 0; i < st.leaves.size(); i++) {
      extent[static_cast<int>(i)] = st.leaves[i].extent;
      const auto &rs = roots[st.leaves[i].name];
      if (rs.size() != 1) continue;
      const std::string &r = *rs.begin();
      auto it = reg.find(r);
      if (it == reg.end() || scaled_roots.count(r)) continue;
      scaled_roots.insert(r);
      int d = -1;
      for (size_t k = 0; k < st.spatial_axes.size(); k++)
        if (st.spatial_axes[k] == r) d = static_cast<int>(k);
      if (d < 0 || st.shape[d] <= 0) continue;
      double f = it->second / static_cast<double>(st.shape[d]);
      extent[static_cast<int>(i)] = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(st.leaves[i].extent * f)));
    }
    if (!reg.empty()) {
      double bytes = st.tensor.defined() ? st.tensor.dtype().bytes() : 4;
      for (size_t d = 0; d < st.spatial_axes.size(); d++) {
        auto it = reg.find(st.spatial_axes[d]);
        bytes *= it == reg.end() ? static_cast<double>(st.shape[d]) : it->second;
      }
      nest_.allocations.push_back(Allocation{sanitize(st.name), static_cast<int64_t>(bytes), parent});
    } else if (!st.is_output) {
      double bytes = st.tensor.defined() ? st.tensor.dtype().bytes() : 4;
      for (auto e : st.shape) bytes *= static_cast<double>(e);
      nest_.allocations.push_back(Allocation{sanitize(st.name), static_cast<int64_t>(bytes), parent});
    }
    int cur = parent, lanes = 1;
    std::set<std::string> vec_roots;
    for (size_t i = 0; i < st.leaves.size(); i++) {
      const LeafAxis &l = st.leaves[i];
      if (l.annotation == "vectorize") {
        lanes *= static_cast<int>(std::max<int64_t>(1, extent[static_cast<int>(i)]));
        vec_roots = roots[l.name];
        continue;
      }
      nest_.loops.push_back(Loop{st.name + "." + l.name, kind_of(l), extent[static_cast<int>(i)], cur});
      cur = static_cast<int>(nest_.loops.size()) - 1;
      auto at = attached_.find({st.name, l.name});
      if (at == attached_.end()) continue;
      for (const auto &p : at->second) {
        const StageInfo &ps = s_.stage(p);
        emit(ps, cur, region(ps, st, l.name));
      }
    }
    int64_t flops = 0, iops = 0;
    std::vector<Load> loads = loads_of(st, flops, iops);
    nest_.float_ops += flops * lanes;
    nest_.int_ops += iops * lanes;
    auto access = [&](const std::string &buf, const std::vector<Affine> &idx, const std::vector<int64_t> &div, bool store,
                      int bytes) {
      BufferAccess a;
      a.buffer = sanitize(buf);
      a.is_store = store;
      a.loop = cur;
      a.bytes_per_lane = bytes;
      bool uses = false, only_last_unit = true;
      for (size_t d = 0; d < idx.size(); d++)
        for (const auto &v : vars_of(idx[d])) {
          // A packed buffer's outer index moves once per `factor` of the vector axis: not per lane.
          if (d < div.size() && div[d] > 0) continue;
          if (vec_roots.count(v)) {
            uses = true;
            auto k = idx[d].coef.find(v);
            if (d + 1 != idx.size() || !idx[d].ok || k == idx[d].coef.end() || k->second != 1) only_last_unit = false;
          }
        }
      a.lanes = uses ? lanes : 1;
      a.dense = uses && only_last_unit;
      nest_.accesses.push_back(a);
    };
    for (const auto &l : loads) {
      std::vector<Affine> idx = l.index;
      std::vector<int64_t> div = l.div;
      if (s_.has_stage(l.buffer)) in_storage_order(s_.stage(l.buffer), idx, div);
      access(l.buffer, idx, div, false, l.bytes);
    }
    std::vector<Affine> self;
    for (const auto &a : st.spatial_axes) {
      Affine x;
      x.coef[a] = 1;
      self.push_back(x);
    }
    std::vector<int64_t> no_div;
    in_storage_order(st, self, no_div);
    access(st.name, self, no_div, true, st.tensor.defined() ? st.tensor.dtype().bytes() : 4);
  }

  // Permutes an index of buffer `st` (root axis order) into its storage order (Schedule::reorder_storage).
  static void in_storage_order(const StageInfo &st, std::vector<Affine> &idx, std::vector<int64_t> &div) {
    if (st.storage_order.empty() || idx.size() != st.spatial_axes.size()) return;
    std::vector<Affine> out;
    std::vector<int64_t> dout;
    for (const auto &a : st.storage_order) {
      size_t d = static_cast<size_t>(std::find(st.spatial_axes.begin(), st.spatial_axes.end(), a) - st.spatial_axes.begin());
      out.push_back(idx[d]);
      dout.push_back(d < div.size() ? div[d] : 0);
    }
    idx = std::move(out);
    div = std::move(dout);
  }

  const Schedule &s_;
  LoopNest nest_;
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> attached_;
  std::set<std::string> inlined_;
  std::set<std::string> prepacked_;  // root copies packed once, outside the kernel
};

}  // namespace

LoopNest schedule_loop_nest(const Schedule &s, const Task &task) {
  return Builder(s, prepackable_inputs(s, task.constant_inputs)).build();
}

}  // namespace features
}  // namespace autotune
}  // namespace tetune
