// ONNX lowerings: index and reduction variants (see lowering_internal.h).
#include "relay_import/lowering_internal.h"

#include <cmath>
#include <limits>

#include "te/ops/common.h"
#include "te/ops/elementwise.h"
#include "te/ops/reduce.h"
#include "te/ops/transform.h"

namespace tetune {
namespace relay {
namespace lowering {

namespace {

/** An int32 index expression e wrapped by n when negative and clamped into [0, n) (compiled code stays in bounds). */
Expr wrap_index(const Expr &e, int64_t n) {
  Expr k = cast(int32(), e);
  Expr nn = make_int(n);
  return clamp(select(k < make_int(0), k + nn, k), make_int(0), make_int(n - 1));
}

void check_index_dtype(LowerContext &c, const Tensor &t, const std::string &what) {
  if (t.dtype() != int32() && t.dtype() != int64()) c.unsupported(what + " dtype " + t.dtype().str());
}

// ---- arg reductions ------------------------------------------------------------------
std::vector<Tensor> arg_common(LowerContext &c, bool is_max) {
  Tensor x = c.in(0);
  if (x.ndim() == 0) c.unsupported("rank-0 input");
  int ax = ops::normalize_axis(c.node().attr_i("axis", 0), x.ndim(), c.node().op, "axis");
  bool keep = c.node().attr_i("keepdims", 1) != 0;
  bool last = c.node().attr_i("select_last_index", 0) != 0;
  return {ops::arg_reduce(x, ax, is_max, last, keep, c.name())};
}
LOWER(l_argmax) { return arg_common(c, true); }
LOWER(l_argmin) { return arg_common(c, false); }

LOWER(l_hardmax) {
  Tensor x = c.in(0);
  int r = x.ndim();
  if (r == 0) c.unsupported("rank-0 input");
  int ax = ops::normalize_axis(c.node().attr_i("axis", c.opset() < 13 ? 1 : -1), r, "Hardmax", "axis");
  Tensor src = x;
  if (c.opset() < 13 && ax != r - 1) {  // opset < 13: over the flattened trailing axes [axis, r)
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < ax; i++) outer *= x.shape()[i];
    for (int i = ax; i < r; i++) inner *= x.shape()[i];
    src = ops::reshape(x, {outer, inner}, c.name() + ".flat");
    ax = 1;
  }
  Tensor am = ops::arg_reduce(src, ax, true, false, true, c.name() + ".arg");
  DType dt = x.dtype();
  bool flat = src.ndim() != r;
  Tensor t = compute(
      src.shape(),
      [&](const std::vector<Var> &i) {
        std::vector<Expr> ai = idx_of(i);
        ai[ax] = make_int(0);
        return select(cast(int64(), Expr(i[ax])) == am(ai), imm(1, dt), imm(0, dt));
      },
      flat ? c.name() + ".hm" : c.name(), "", ops::default_axis_names(src.ndim()));
  t = ops::annotate(t, "injective", {{"op", "Hardmax"}});
  if (flat) return {ops::reshape(t, x.shape(), c.name())};
  return {t};
}

// ---- reduction variants --------------------------------------------------------------
/** Reduce axes (attribute before opset 18, input 1 from 18) and whether the op is a no-op. */
std::vector<int64_t> reduce_axes(LowerContext &c, bool *noop) {
  std::vector<int64_t> axes;
  if (c.opset() < 18) axes = c.node().attr_ints("axes");
  else if (c.has(1)) axes = c.const_ints(1, "axes");
  *noop = axes.empty() && c.node().attr_i("noop_with_empty_axes", 0) != 0;
  return axes;
}

Tensor map_elems(const Tensor &x, const std::function<Expr(const Expr &)> &f, const std::string &name, const std::string &onnx) {
  Tensor t = compute(x.shape(), [&](const std::vector<Var> &i) { return f(x(idx_of(i))); }, name, "",
                     ops::default_axis_names(x.ndim()));
  return ops::annotate(t, "elemwise", {{"op", onnx}});
}

/** post(sum(pre(x))) over the axes: the pre map, a TE sum reduction, the post map. */
std::vector<Tensor> sum_variant(LowerContext &c, const std::function<Expr(const Expr &)> &pre,
                                const std::function<Expr(const Expr &)> &post, const std::string &onnx) {
  Tensor x = c.in(0);
  if (!x.dtype().is_float() && post) c.unsupported("input dtype " + x.dtype().str());
  bool noop = false;
  auto axes = reduce_axes(c, &noop);
  bool keep = c.node().attr_i("keepdims", 1) != 0;
  std::string n = c.name();
  if (noop) {  // no reduction: the elementwise maps alone (as the ONNX reference)
    return {map_elems(x, [&](const Expr &v) { return post ? post(pre ? pre(v) : v) : (pre ? pre(v) : v); }, n, onnx)};
  }
  Tensor src = pre ? map_elems(x, pre, n + ".pre", onnx) : x;
  Tensor s = ops::reduce(src, ReduceOp::Sum, axes, keep, post ? n + ".sum" : n);
  if (!post) return {s};
  return {map_elems(s, post, n, onnx)};
}

LOWER(l_reduce_sum_square) { return sum_variant(c, [](const Expr &v) { return v * v; }, nullptr, "ReduceSumSquare"); }
LOWER(l_reduce_l1) { return sum_variant(c, [](const Expr &v) { return abs(v); }, nullptr, "ReduceL1"); }
LOWER(l_reduce_l2) {
  return sum_variant(c, [](const Expr &v) { return v * v; }, [](const Expr &v) { return sqrt(v); }, "ReduceL2");
}
LOWER(l_reduce_log_sum) { return sum_variant(c, nullptr, [](const Expr &v) { return log(v); }, "ReduceLogSum"); }

// log(sum(exp(x - m))) + m with m the max over the axes (no overflow for large x); an infinite m
// is used as is (exp(x - m) would be NaN).
LOWER(l_reduce_log_sum_exp) {
  Tensor x = c.in(0);
  if (!x.dtype().is_float()) c.unsupported("input dtype " + x.dtype().str());
  bool noop = false;
  auto axes = reduce_axes(c, &noop);
  bool keep = c.node().attr_i("keepdims", 1) != 0;
  std::string n = c.name();
  if (noop) return {map_elems(x, [](const Expr &v) { return v; }, n, "ReduceLogSumExp")};
  DType dt = x.dtype();
  Tensor m = ops::reduce(x, ReduceOp::Max, axes, true, n + ".max");
  auto finite_m = [&](const Expr &mv) { return select(abs(mv) == max_value(dt), imm(0, dt), mv); };
  Tensor e = compute(
      x.shape(),
      [&](const std::vector<Var> &i) { return exp(x(idx_of(i)) - finite_m(m(ops::broadcast_index(m, x.shape(), i)))); },
      n + ".exp", "", ops::default_axis_names(x.ndim()));
  e = ops::annotate(e, "broadcast", {{"op", "ReduceLogSumExp"}});
  Tensor s = ops::reduce(e, ReduceOp::Sum, axes, true, n + ".sum");
  Tensor t = compute(
      s.shape(), [&](const std::vector<Var> &i) { return log(s(idx_of(i))) + finite_m(m(idx_of(i))); },
      keep ? n : n + ".log", "", ops::default_axis_names(s.ndim()));
  t = ops::annotate(t, "elemwise", {{"op", "ReduceLogSumExp"}});
  if (keep) return {t};
  Shape out;
  for (size_t d = 0; d < s.shape().size(); d++) {
    bool red = axes.empty();
    for (auto a : axes) red = red || ops::normalize_axis(a, x.ndim(), "ReduceLogSumExp", "axes") == static_cast<int>(d);
    if (!red) out.push_back(s.shape()[d]);
  }
  return {ops::reshape(t, out, n)};
}

// ---- gathers -------------------------------------------------------------------------
LOWER(l_gather_elements) {
  Tensor data = c.in(0), idx = c.in(1);
  check_index_dtype(c, idx, "indices");
  int r = data.ndim();
  if (idx.ndim() != r) c.shape_fail("indices rank " + std::to_string(idx.ndim()) + " differs from data rank " + std::to_string(r));
  int ax = ops::normalize_axis(c.node().attr_i("axis", 0), r, "GatherElements", "axis");
  int64_t n = data.shape()[ax];
  check_const_indices(c, 1, n, "index");
  for (int d = 0; d < r; d++)
    if (d != ax && idx.shape()[d] > data.shape()[d])
      c.shape_fail("indices " + shape_str(idx.shape()) + " exceed data " + shape_str(data.shape()) + " on axis " + std::to_string(d));
  Tensor t = compute(
      idx.shape(),
      [&](const std::vector<Var> &i) {
        std::vector<Expr> di = idx_of(i);
        di[ax] = wrap_index(idx(idx_of(i)), n);
        return data(di);
      },
      c.name(), "", ops::default_axis_names(r));
  return {ops::annotate(t, "injective", {{"op", "GatherElements"}, {"axis", std::to_string(ax)}})};
}

LOWER(l_gather_nd) {
  Tensor data = c.in(0), idx = c.in(1);
  check_index_dtype(c, idx, "indices");
  int r = data.ndim(), q = idx.ndim();
  int b = static_cast<int>(c.node().attr_i("batch_dims", 0));
  if (q < 1 || b < 0 || b >= std::min(r, q)) c.attr_fail("batch_dims " + std::to_string(b) + " out of range");
  int64_t last = idx.shape()[q - 1];
  if (last < 1 || last > r - b) c.shape_fail("indices last extent " + std::to_string(last) + " out of range");
  int L = static_cast<int>(last);
  for (int d = 0; d < b; d++)
    if (idx.shape()[d] != data.shape()[d]) c.shape_fail("batch extents of data and indices differ");
  Shape out;
  for (int d = 0; d < q - 1; d++) out.push_back(idx.shape()[d]);
  for (int d = b + L; d < r; d++) out.push_back(data.shape()[d]);
  if (out.empty()) c.unsupported("rank-0 output");
  Tensor t = compute(
      out,
      [&](const std::vector<Var> &i) {
        std::vector<Expr> di, ii;
        for (int d = 0; d < b; d++) di.push_back(i[d]);
        for (int d = 0; d < q - 1; d++) ii.push_back(i[d]);
        for (int l = 0; l < L; l++) {
          std::vector<Expr> iil = ii;
          iil.push_back(make_int(l));
          di.push_back(wrap_index(idx(iil), data.shape()[b + l]));
        }
        for (int d = b + L; d < r; d++) di.push_back(i[q - 1 + d - b - L]);
        return data(di);
      },
      c.name(), "", ops::default_axis_names(static_cast<int>(out.size())));
  return {ops::annotate(t, "injective", {{"op", "GatherND"}})};
}

// ---- masks and generators ------------------------------------------------------------
LOWER(l_trilu) {
  Tensor x = c.in_min_rank(0, 2, "input");
  // k: a constant, or a scalar int64 input read at run time.
  const NDArray *kc = c.cdata(1);
  if (kc && kc->size() != 1) c.shape_fail("k must hold one value");
  Tensor kt = c.has(1) && !kc ? c.in(1) : Tensor();
  if (kt.defined() && (kt.dtype() != int64() || checked_num_elements(kt.shape(), 1) != 1))
    c.shape_fail("k must be a one-element int64 tensor, got " + kt.dtype().str() + " " + shape_str(kt.shape()));
  int64_t k = kc ? kc->get_int(0) : 0;
  bool upper = c.node().attr_i("upper", 1) != 0;
  int r = x.ndim();
  DType dt = x.dtype();
  Tensor t = compute(
      x.shape(),
      [&](const std::vector<Var> &i) {
        Expr diff = cast(int64(), Expr(i[r - 1]) - Expr(i[r - 2]));  // column - row
        Expr kk = make_int(k, int64());
        if (kt.defined()) kk = kt(std::vector<Expr>(kt.ndim(), make_int(0)));
        Expr keep = upper ? diff >= kk : diff <= kk;
        return select(keep, x(idx_of(i)), imm(0, dt));
      },
      c.name(), "", ops::default_axis_names(r));
  return {ops::annotate(t, "elemwise", {{"op", "Trilu"}, {"upper", upper ? "1" : "0"}, {"k", kt.defined() ? "input" : std::to_string(k)}})};
}

LOWER(l_eye_like) {
  Tensor x = c.in_rank(0, 2, "input");
  DType dt = x.dtype();
  if (c.node().has_attr("dtype")) dt = dtype_from_onnx(static_cast<int>(c.node().attr_i("dtype", 1)), "EyeLike 'dtype'");
  int64_t k = c.node().attr_i("k", 0);
  Tensor t = compute(
      x.shape(), [&](const std::vector<Var> &i) { return select(Expr(i[1]) - Expr(i[0]) == make_int(k), imm(1, dt), imm(0, dt)); },
      c.name(), "", ops::default_axis_names(2));
  return {ops::annotate(t, "injective", {{"op", "EyeLike"}})};
}

LOWER(l_one_hot) {
  Tensor ind = c.in(0), vals = c.in(2);
  auto depth_v = c.const_floats(1, "depth");
  if (depth_v.size() != 1) c.shape_fail("depth must hold one value");
  double df = depth_v[0];
  if (!std::isfinite(df) || df < 1 || df > double(int64_t(1) << 24)) c.attr_fail("depth " + ops::num_str(df) + " out of range");
  int64_t depth = static_cast<int64_t>(df);
  if (vals.ndim() != 1 || vals.shape()[0] != 2) c.shape_fail("values must have shape [2], got " + shape_str(vals.shape()));
  int r = ind.ndim();
  int ax = ops::normalize_axis(c.node().attr_i("axis", -1), r + 1, "OneHot", "axis");
  Shape out = ind.shape();
  out.insert(out.begin() + ax, depth);
  Tensor t = compute(
      out,
      [&](const std::vector<Var> &i) {
        std::vector<Expr> ii;
        for (int d = 0; d <= r; d++)
          if (d != ax) ii.push_back(i[d]);
        Expr v = ind(ii);
        if (ind.dtype().is_float()) v = floor(v);  // ONNX casts indices to integers
        Expr k = cast(int64(), v);
        Expr dd = make_int(depth, int64());
        k = select(k < make_int(0, int64()), k + dd, k);
        return select(k == cast(int64(), Expr(i[ax])), vals({make_int(1)}), vals({make_int(0)}));
      },
      c.name(), "", ops::default_axis_names(r + 1));
  return {ops::annotate(t, "injective", {{"op", "OneHot"}, {"axis", std::to_string(ax)}})};
}

// ---- data movement -------------------------------------------------------------------
LOWER(l_tile) {
  Tensor x = c.in(0);
  auto rep = c.const_ints(1, "repeats");
  int r = x.ndim();
  if (static_cast<int>(rep.size()) != r)
    c.shape_fail("repeats has " + std::to_string(rep.size()) + " values, expected " + std::to_string(r));
  Shape out;
  for (int d = 0; d < r; d++) {
    if (rep[d] < 1 || rep[d] > (int64_t(1) << 24)) c.attr_fail("repeat " + std::to_string(rep[d]) + " out of range");
    out.push_back(x.shape()[d] * rep[d]);
  }
  c.check_shape(out, "output shape");
  Tensor t = compute(
      out,
      [&](const std::vector<Var> &i) {
        std::vector<Expr> xi;
        for (int d = 0; d < r; d++) xi.push_back(rep[d] == 1 ? Expr(i[d]) : Expr(i[d]) % make_int(x.shape()[d]));
        return x(xi);
      },
      c.name(), "", ops::default_axis_names(r));
  return {ops::annotate(t, "injective", {{"op", "Tile"}, {"repeats", ops::list_str(rep)}})};
}

int64_t blocksize(LowerContext &c) {
  int64_t b = c.node().attr_i("blocksize", 0);
  if (b < 1 || b > 4096) c.attr_fail("attribute 'blocksize' = " + std::to_string(b) + " must be in 1..4096");
  return b;
}

LOWER(l_depth_to_space) {
  Tensor x = c.in_rank(0, 4, "input");
  int64_t b = blocksize(c);
  std::string mode = c.node().attr_s("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") c.attr_fail("mode " + mode + " must be DCR or CRD");
  int64_t C = x.shape()[1];
  if (C % (b * b) != 0) c.shape_fail("channels " + std::to_string(C) + " not divisible by blocksize^2");
  int64_t oc = C / (b * b);
  Shape out = {x.shape()[0], oc, x.shape()[2] * b, x.shape()[3] * b};
  Tensor t = compute(
      out,
      [&](const std::vector<Var> &i) {
        Expr bb = make_int(b);
        Expr by = Expr(i[2]) % bb, bx = Expr(i[3]) % bb;
        Expr ch = mode == "DCR" ? (by * bb + bx) * make_int(oc) + Expr(i[1]) : Expr(i[1]) * make_int(b * b) + by * bb + bx;
        return x({Expr(i[0]), ch, Expr(i[2]) / bb, Expr(i[3]) / bb});
      },
      c.name(), "", ops::default_axis_names(4));
  return {ops::annotate(t, "injective", {{"op", "DepthToSpace"}, {"mode", mode}})};
}

LOWER(l_space_to_depth) {
  Tensor x = c.in_rank(0, 4, "input");
  int64_t b = blocksize(c);
  int64_t C = x.shape()[1];
  if (x.shape()[2] % b != 0 || x.shape()[3] % b != 0) c.shape_fail("spatial extents not divisible by blocksize");
  Shape out = {x.shape()[0], C * b * b, x.shape()[2] / b, x.shape()[3] / b};
  Tensor t = compute(
      out,
      [&](const std::vector<Var> &i) {
        Expr bb = make_int(b), cc = make_int(C);
        Expr blk = Expr(i[1]) / cc;  // by * b + bx
        Expr ch = Expr(i[1]) % cc;
        return x({Expr(i[0]), ch, Expr(i[2]) * bb + blk / bb, Expr(i[3]) * bb + blk % bb});
      },
      c.name(), "", ops::default_axis_names(4));
  return {ops::annotate(t, "injective", {{"op", "SpaceToDepth"}})};
}

// ---- scatters ------------------------------------------------------------------------
// Both are written as gathers from the output's side so that they stay TE computes:
// a reduction over the update positions finds the last one that writes an element
// (reduction "none": the last write wins, as the ONNX reference applies updates in order)
// or combines all of them (add / mul / max / min), then an injective stage picks.

/** The ONNX "reduction" attribute as a ReduceOp; *none for "none". */
ReduceOp scatter_reduction(LowerContext &c, bool *none) {
  std::string red = c.node().attr_s("reduction", "none");
  *none = red == "none";
  if (red == "none" || red == "add") return ReduceOp::Sum;
  if (red == "mul") return ReduceOp::Prod;
  if (red == "max") return ReduceOp::Max;
  if (red == "min") return ReduceOp::Min;
  c.attr_fail("attribute 'reduction' = " + red + " must be none, add, mul, max or min");
}

/** data combined with the reduction r of the hits: data + sum, data * prod, max(data, max), min(data, min). */
Expr combine(ReduceOp r, const Expr &d, const Expr &v) {
  switch (r) {
    case ReduceOp::Sum: return d + v;
    case ReduceOp::Prod: return d * v;
    case ReduceOp::Max: return max(d, v);
    case ReduceOp::Min: return min(d, v);
  }
  return v;
}

LOWER(l_scatter_elements) {
  Tensor data = c.in(0), idx = c.in(1), upd = c.in(2);
  check_index_dtype(c, idx, "indices");
  int r = data.ndim();
  if (idx.ndim() != r || upd.shape() != idx.shape())
    c.shape_fail("indices " + shape_str(idx.shape()) + " and updates " + shape_str(upd.shape()) + " must have one shape of the rank of data " +
                 shape_str(data.shape()));
  if (upd.dtype() != data.dtype()) c.fail("updates dtype " + upd.dtype().str() + " differs from data dtype " + data.dtype().str());
  int ax = ops::normalize_axis(c.node().attr_i("axis", 0), r, c.node().op, "axis");
  for (int d = 0; d < r; d++)
    if (d != ax && idx.shape()[d] > data.shape()[d]) c.shape_fail("indices " + shape_str(idx.shape()) + " exceed data " + shape_str(data.shape()));
  int64_t n = data.shape()[ax], m = idx.shape()[ax];
  check_const_indices(c, 1, n, "index");
  bool none = false;
  ReduceOp rop = scatter_reduction(c, &none);
  std::string nm = c.name();
  // Position i of data is written by indices position u when u agrees with i off the axis,
  // lies inside indices, and idx[u] (wrapped) == i[ax].
  auto hit_at = [&](const std::vector<Var> &i, const Expr &k, std::vector<Expr> *ui) {
    Expr inside = imm(1, boolean());
    for (int d = 0; d < r; d++) {
      if (d == ax) { ui->push_back(k); continue; }
      inside = inside && Expr(i[d]) < make_int(idx.shape()[d]);
      ui->push_back(min(Expr(i[d]), make_int(idx.shape()[d] - 1)));
    }
    return inside && wrap_index(idx(*ui), n) == Expr(i[ax]);
  };
  Tensor pick = compute(
      data.shape(),
      [&](const std::vector<Var> &i) {
        IterVar k = reduce_axis(m, "k0");
        std::vector<Expr> ui;
        Expr hit = hit_at(i, k.var, &ui);
        if (none) return max(select(hit, Expr(k.var), make_int(-1)), std::vector<IterVar>{k});
        return reduce(rop, select(hit, upd(ui), reduce_identity(rop, upd.dtype())), {k});
      },
      nm + ".hits", "", ops::default_axis_names(r));
  pick = ops::annotate(pick, "reduce", {{"op", c.node().op}});
  Tensor t = compute(
      data.shape(),
      [&](const std::vector<Var> &i) {
        Expr d = data(idx_of(i)), p = pick(idx_of(i));
        if (!none) return combine(rop, d, p);
        std::vector<Expr> ui;
        for (int dd = 0; dd < r; dd++)
          ui.push_back(dd == ax ? max(p, make_int(0)) : min(Expr(i[dd]), make_int(idx.shape()[dd] - 1)));
        return select(p >= make_int(0), upd(ui), d);
      },
      nm, "", ops::default_axis_names(r));
  return {ops::annotate(t, "injective", {{"op", c.node().op}, {"axis", std::to_string(ax)}})};
}

LOWER(l_scatter_nd) {
  Tensor data = c.in(0), idx = c.in(1), upd = c.in(2);
  check_index_dtype(c, idx, "indices");
  int r = data.ndim(), q = idx.ndim();
  if (q < 1) c.shape_fail("indices must have rank >= 1");
  int64_t L64 = idx.shape()[q - 1];
  if (L64 < 1 || L64 > r) c.shape_fail("indices last extent " + std::to_string(L64) + " out of range 1.." + std::to_string(r));
  int L = static_cast<int>(L64);
  Shape ushape(idx.shape().begin(), idx.shape().end() - 1);
  for (int d = L; d < r; d++) ushape.push_back(data.shape()[d]);
  if (upd.shape() != ushape) c.shape_fail("updates " + shape_str(upd.shape()) + ", expected " + shape_str(ushape));
  if (upd.dtype() != data.dtype()) c.fail("updates dtype " + upd.dtype().str() + " differs from data dtype " + data.dtype().str());
  bool none = false;
  ReduceOp rop = scatter_reduction(c, &none);
  std::string nm = c.name();
  int nb = q - 1;  // update rows: indices.shape[:-1], flattened row-major for "last write"
  int64_t rows = 1;
  for (int d = 0; d < nb; d++) rows *= idx.shape()[d];
  if (rows > (int64_t(1) << 30)) c.shape_fail("too many update rows");
  Tensor pick = compute(
      data.shape(),
      [&](const std::vector<Var> &i) {
        std::vector<IterVar> ks;
        std::vector<Expr> ri;
        Expr flat = make_int(0);
        for (int d = 0; d < nb; d++) {
          ks.push_back(reduce_axis(idx.shape()[d], "k" + std::to_string(d)));
          ri.push_back(ks.back().var);
          flat = flat * make_int(idx.shape()[d]) + Expr(ks.back().var);
        }
        if (ks.empty()) ks.push_back(reduce_axis(1, "k0"));
        Expr hit = imm(1, boolean());
        for (int l = 0; l < L; l++) {
          std::vector<Expr> il = ri;
          il.push_back(make_int(l));
          hit = hit && wrap_index(idx(il), data.shape()[l]) == Expr(i[l]);
        }
        if (none) return max(select(hit, flat, make_int(-1)), ks);
        std::vector<Expr> ui = ri;
        for (int d = L; d < r; d++) ui.push_back(i[d]);
        return reduce(rop, select(hit, upd(ui), reduce_identity(rop, upd.dtype())), ks);
      },
      nm + ".hits", "", ops::default_axis_names(r));
  pick = ops::annotate(pick, "reduce", {{"op", "ScatterND"}});
  Tensor t = compute(
      data.shape(),
      [&](const std::vector<Var> &i) {
        Expr d = data(idx_of(i)), p = pick(idx_of(i));
        if (!none) return combine(rop, d, p);
        Expr f = max(p, make_int(0));
        std::vector<Expr> ui(nb);
        for (int dd = nb - 1; dd >= 0; dd--) {
          ui[dd] = f % make_int(idx.shape()[dd]);
          f = f / make_int(idx.shape()[dd]);
        }
        for (int dd = L; dd < r; dd++) ui.push_back(i[dd]);
        return select(p >= make_int(0), upd(ui), d);
      },
      nm, "", ops::default_axis_names(r));
  return {ops::annotate(t, "injective", {{"op", "ScatterND"}})};
}

}  // namespace

const OpTable &indexing_ops() {
  static const OpTable r = {
      {"ArgMax", {l_argmax, OpPattern::Reduce}},
      {"ArgMin", {l_argmin, OpPattern::Reduce}},
      {"Hardmax", {l_hardmax, OpPattern::Reduce}},
      {"ReduceSumSquare", {l_reduce_sum_square, OpPattern::Reduce}},
      {"ReduceL1", {l_reduce_l1, OpPattern::Reduce}},
      {"ReduceL2", {l_reduce_l2, OpPattern::Reduce}},
      {"ReduceLogSum", {l_reduce_log_sum, OpPattern::Reduce}},
      {"ReduceLogSumExp", {l_reduce_log_sum_exp, OpPattern::Reduce}},
      {"GatherElements", {l_gather_elements, OpPattern::Injective}},
      {"GatherND", {l_gather_nd, OpPattern::Injective}},
      {"Trilu", {l_trilu, OpPattern::Elemwise}},
      {"EyeLike", {l_eye_like, OpPattern::Injective}},
      {"OneHot", {l_one_hot, OpPattern::Injective}},
      {"Tile", {l_tile, OpPattern::Injective}},
      {"DepthToSpace", {l_depth_to_space, OpPattern::Injective}},
      {"SpaceToDepth", {l_space_to_depth, OpPattern::Injective}},
      {"Scatter", {l_scatter_elements, OpPattern::Reduce}},
      {"ScatterElements", {l_scatter_elements, OpPattern::Reduce}},
      {"ScatterND", {l_scatter_nd, OpPattern::Reduce}},
  };
  return r;
}

}  // namespace lowering
}  // namespace relay
}  // namespace tetune
