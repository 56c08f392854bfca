#include "te/ops/reduce.h"

#include <algorithm>

#include "base/errors.h"
#include "te/ops/common.h"

namespace tetune {
namespace ops {

namespace {
const char *onnx_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "ReduceSum";
    case ReduceOp::Max: return "ReduceMax";
    case ReduceOp::Min: return "ReduceMin";
    case ReduceOp::Prod: return "ReduceProd";
  }
  return "Reduce";
}

Tensor reduce_impl(const Tensor &x, ReduceOp op, const std::vector<int64_t> &axes, bool keepdims, const std::string &name,
                   const std::string &onnx, int64_t *count) {
  int r = x.ndim();
  std::vector<bool> red(r, axes.empty());
  for (auto a : axes) red[normalize_axis(a, r, onnx, "axes")] = true;
  Shape out;
  std::vector<std::string> names;
  std::vector<int64_t> norm;
  std::vector<IterVar> raxes;
  std::vector<int> rpos(r, -1);
  int64_t n = 1;
  auto dn = default_axis_names(r);
  for (int d = 0; d < r; d++) {
    if (red[d]) {
      norm.push_back(d);
      n *= x.shape()[d];
      rpos[d] = static_cast<int>(raxes.size());
      raxes.push_back(reduce_axis(x.shape()[d], "k" + std::to_string(raxes.size())));
      if (keepdims) { out.push_back(1); names.push_back(dn[d]); }
    } else {
      out.push_back(x.shape()[d]);
      names.push_back(dn[d]);
    }
  }
  if (count) *count = n;
  Tensor t = compute(
      out,
      [&](const std::vector<Var> &i) {
        std::vector<Expr> idx;
        size_t k = 0;
        for (int d = 0; d < r; d++) {
          if (red[d]) {
            idx.push_back(raxes[rpos[d]].var);
            if (keepdims) k++;
          } else {
            idx.push_back(i[k++]);
          }
        }
        return tetune::reduce(op, x(idx), raxes);
      },
      name, "", names);
  return annotate(t, "reduce", {{"op", onnx}, {"axes", list_str(norm)}, {"keepdims", keepdims ? "1" : "0"}});
}
}  // namespace

Tensor reduce(const Tensor &x, ReduceOp op, const std::vector<int64_t> &axes, bool keepdims, const std::string &name) {
  return reduce_impl(x, op, axes, keepdims, name, onnx_name(op), nullptr);
}
Tensor reduce_sum(const Tensor &x, const std::vector<int64_t> &axes, bool keepdims, const std::string &name) {
  return reduce(x, ReduceOp::Sum, axes, keepdims, name);
}
Tensor reduce_max(const Tensor &x, const std::vector<int64_t> &axes, bool keepdims, const std::string &name) {
  return reduce(x, ReduceOp::Max, axes, keepdims, name);
}
Tensor reduce_min(const Tensor &x, const std::vector<int64_t> &axes, bool keepdims, const std::string &name) {
  return reduce(x, ReduceOp::Min, axes, keepdims, name);
}
Tensor reduce_prod(const Tensor &x, const std::vector<int64_t> &axes, bool keepdims, const std::string &name) {
  return reduce(x, ReduceOp::Prod, axes, keepdims, name);
}
Tensor reduce_mean(const Tensor &x, const std::vector<int64_t> &axes, bool keepdims, const std::string &name) {
  int64_t n = 1;
  Tensor s = reduce_impl(x, ReduceOp::Sum, axes, keepdims, name + ".sum", "ReduceMean", &n);
  DType dt = x.dtype();
  Tensor t = compute(
      s.shape(),
      [&](const std::vector<Var> &i) {
        Expr v = s(std::vector<Expr>(i.begin(), i.end()));
        return dt.is_float() ? v * make_float(1.0 / static_cast<double>(n), dt) : v / make_int(n, dt);
      },
      name, "", s->axes.empty() ? std::vector<std::string>{} : [&] {
        std::vector<std::string> nm;
        for (const auto &a : s->axes) nm.push_back(a.var.name());
        return nm;
      }());
  return annotate(t, "elemwise", s->attrs);
}

Tensor arg_reduce(const Tensor &x, int64_t axis, bool is_max, bool select_last_index, bool keepdims,
                  const std::string &name) {
  const char *onnx = is_max ? "ArgMax" : "ArgMin";
  int r = x.ndim();
  int ax = normalize_axis(axis, std::max(r, 1), onnx, "axis");
  if (r == 0) throw AttributeError(std::string(onnx) + ": a rank-0 input has no axis");
  Tensor m = reduce_impl(x, is_max ? ReduceOp::Max : ReduceOp::Min, {ax}, true, name + ".val", onnx, nullptr);
  int64_t n = x.shape()[ax];
  Shape out;
  for (int d = 0; d < r; d++)
    if (d != ax || keepdims) out.push_back(d == ax ? 1 : x.shape()[d]);
  auto dn = default_axis_names(r);
  std::vector<std::string> names;
  for (int d = 0; d < r; d++)
    if (d != ax || keepdims) names.push_back(dn[d]);
  Tensor t = compute(
      out,
      [&](const std::vector<Var> &i) {
        IterVar k = reduce_axis(n, "k0");
        std::vector<Expr> xi, mi;
        size_t o = 0;
        for (int d = 0; d < r; d++) {
          if (d == ax) {
            xi.push_back(k.var);
            mi.push_back(make_int(0));
            if (keepdims) o++;
          } else {
            xi.push_back(i[o]);
            mi.push_back(i[o++]);
          }
        }
        Expr xv = x(xi), mv = m(mi);
        Expr hit = xv == mv;
        if (x.dtype().is_float()) hit = select(is_nan(mv), is_nan(xv), hit);  // the max / min of a NaN row is NaN
        Expr pos = cast(int64(), Expr(k.var));
        if (select_last_index) return tetune::max(select(hit, pos, make_int(-1, int64())), std::vector<IterVar>{k});
        return tetune::min(select(hit, pos, make_int(n, int64())), std::vector<IterVar>{k});
      },
      name, "", names);
  return annotate(t, "reduce", {{"op", onnx}, {"axes", std::to_string(ax)}, {"keepdims", keepdims ? "1" : "0"}});
}

}  // namespace ops
}  // namespace tetune
