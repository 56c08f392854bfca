#include "te/ops/quant.h"

#include <cmath>
#include <functional>

#include "base/errors.h"
#include "te/ops/common.h"
#include "te/ops/conv.h"
#include "te/ops/matmul.h"
#include "te/ops/reduce.h"

namespace tetune {
namespace ops {

namespace {

std::vector<Expr> idx(const std::vector<Var> &i) { return std::vector<Expr>(i.begin(), i.end()); }

bool per_tensor(const Tensor &p) { return p.ndim() == 0 || (p.ndim() == 1 && p.shape()[0] == 1); }

// Checks p's shape against x's (header: per tensor / per axis / per block) and
// returns how to index p for the element of x at i.
std::function<std::vector<Expr>(const std::vector<Var> &)> param_indexer(const Tensor &p, const Shape &xs, int axis,
                                                                         int64_t block, const std::string &op,
                                                                         const std::string &what) {
  int r = static_cast<int>(xs.size());
  if (per_tensor(p))
    return [n = p.ndim()](const std::vector<Var> &) { return std::vector<Expr>(n, make_int(0)); };
  auto bad = [&](const std::string &why) {
    throw ShapeError(op + ": " + what + " '" + p.name() + "' has shape " + shape_str(p.shape()) + ", data " +
                     shape_str(xs) + ": " + why);
  };
  if (axis < 0 || axis >= r) bad("a per-axis parameter needs an axis in [0, " + std::to_string(r) + ")");
  if (block <= 0) {
    if (p.ndim() != 1 || p.shape()[0] != xs[axis])
      bad("expected a scalar or 1-D [" + std::to_string(xs[axis]) + "] along axis " + std::to_string(axis));
    return [axis](const std::vector<Var> &i) { return std::vector<Expr>{i[axis]}; };
  }
  if (p.ndim() != r) bad("a blocked parameter needs the data's rank");
  for (int d = 0; d < r; d++) {
    int64_t want = d == axis ? (xs[d] + block - 1) / block : xs[d];
    if (p.shape()[d] != want) bad("expected extent " + std::to_string(want) + " on axis " + std::to_string(d));
  }
  return [axis, block](const std::vector<Var> &i) {
    std::vector<Expr> k = idx(i);
    k[axis] = k[axis] / make_int(block);
    return k;
  };
}

void check_quant_dtype(DType t, const std::string &op, const std::string &what) {
  if ((t.is_int() || t.is_uint()) && (t.bits == 8 || t.bits == 16)) return;
  throw DTypeError(op + ": " + what + " must be an 8- or 16-bit integer type, got " + t.str());
}

// saturate(round_half_even(real) + zp) as dtype out; real is float32, zp an integer Expr (or undefined).
Expr quantize_value(const Expr &real, const Expr &zp, DType out) {
  Expr v = round(real);
  v = select(is_nan(v), make_float(0), v);  // NaN has no integer; it maps to the zero point
  if (zp.defined()) v = v + cast(float32(), zp);
  double lo = out.is_uint() ? 0.0 : -std::ldexp(1.0, out.bits - 1);
  double hi = out.is_uint() ? std::ldexp(1.0, out.bits) - 1 : std::ldexp(1.0, out.bits - 1) - 1;
  // Clamp in float before the cast: an out-of-range float-to-int conversion is undefined.
  return cast(out, clamp(v, make_float(lo), make_float(hi)));
}

DType widened(DType t) { return t.bits >= 32 ? int64() : int32(); }

}  // namespace

Tensor quantize_linear(const Tensor &x, const Tensor &scale, const Tensor &zero_point, DType out, int64_t axis,
                       int64_t block_size, const std::string &name) {
  const std::string op = "QuantizeLinear";
  if (!x.dtype().is_float() && x.dtype() != int32())
    throw DTypeError(op + ": input '" + x.name() + "' must be float or int32, got " + x.dtype().str());
  check_float(scale, op);
  if (x.dtype().is_float() && scale.dtype() != x.dtype())
    throw DTypeError(op + ": scale dtype " + scale.dtype().str() + " differs from the input's " + x.dtype().str());
  // The axis only matters for per-axis / blocked parameters (onnxruntime ignores it otherwise).
  int ax = per_tensor(scale) ? 0 : normalize_axis(axis, x.ndim(), op);
  if (zero_point.defined()) out = zero_point.dtype();
  check_quant_dtype(out, op, "output (zero point) dtype");
  auto si = param_indexer(scale, x.shape(), ax, block_size, op, "scale");
  std::function<std::vector<Expr>(const std::vector<Var> &)> zi;
  if (zero_point.defined()) {
    if (zero_point.shape() != scale.shape())
      throw ShapeError(op + ": zero point shape " + shape_str(zero_point.shape()) + " differs from the scale's " +
                       shape_str(scale.shape()));
    zi = param_indexer(zero_point, x.shape(), ax, block_size, op, "zero point");
  }
  Tensor t = compute(
      x.shape(),
      [&](const std::vector<Var> &i) {
        Expr real = cast(float32(), x(idx(i))) / cast(float32(), scale(si(i)));
        return quantize_value(real, zero_point.defined() ? zero_point(zi(i)) : Expr(), out);
      },
      name, "", default_axis_names(x.ndim()));
  return annotate(t, "elemwise", {{"op", op}, {"axis", std::to_string(ax)}, {"block_size", std::to_string(block_size)}});
}

Tensor dequantize_linear(const Tensor &x, const Tensor &scale, const Tensor &zero_point, int64_t axis, int64_t block_size,
                         const std::string &name) {
  const std::string op = "DequantizeLinear";
  if (!x.dtype().is_int() && !x.dtype().is_uint())
    throw DTypeError(op + ": input '" + x.name() + "' must be an integer type, got " + x.dtype().str());
  check_float(scale, op);
  if (zero_point.defined() && zero_point.dtype() != x.dtype())
    throw DTypeError(op + ": zero point dtype " + zero_point.dtype().str() + " differs from the input's " + x.dtype().str());
  // The axis only matters for per-axis / blocked parameters (onnxruntime ignores it otherwise).
  int ax = per_tensor(scale) ? 0 : normalize_axis(axis, x.ndim(), op);
  auto si = param_indexer(scale, x.shape(), ax, block_size, op, "scale");
  std::function<std::vector<Expr>(const std::vector<Var> &)> zi;
  if (zero_point.defined()) zi = param_indexer(zero_point, x.shape(), ax, block_size, op, "zero point");
  DType wide = widened(x.dtype());
  DType out = scale.dtype();
  Tensor t = compute(
      x.shape(),
      [&](const std::vector<Var> &i) {
        Expr d = cast(wide, x(idx(i)));
        if (zero_point.defined()) d = d - cast(wide, zero_point(zi(i)));
        DType calc = out.bits == 64 ? float64() : float32();
        return cast(out, cast(calc, d) * cast(calc, scale(si(i))));
      },
      name, "", default_axis_names(x.ndim()));
  return annotate(t, "elemwise", {{"op", op}, {"axis", std::to_string(ax)}, {"block_size", std::to_string(block_size)}});
}

std::vector<Tensor> dynamic_quantize_linear(const Tensor &x, const std::string &name) {
  if (x.dtype() != float32())
    throw DTypeError("DynamicQuantizeLinear: input '" + x.name() + "' must be float32, got " + x.dtype().str());
  Tensor lo = reduce_min(x, {}, false, name + ".min");
  Tensor hi = reduce_max(x, {}, false, name + ".max");
  Expr zero = make_float(0);
  Tensor scale = compute(
      Shape{},
      [&](const std::vector<Var> &) {
        Expr l = min(lo(), zero), h = max(hi(), zero);
        return select(h == l, make_float(1), (h - l) / make_float(255));
      },
      name + ".scale");
  scale = annotate(scale, "elemwise", {{"op", "DynamicQuantizeLinear"}});
  Tensor zp = compute(
      Shape{}, [&](const std::vector<Var> &) { return quantize_value((zero - min(lo(), zero)) / scale(), Expr(), uint8()); },
      name + ".zero_point");
  zp = annotate(zp, "elemwise", {{"op", "DynamicQuantizeLinear"}});
  Tensor y = compute(
      x.shape(), [&](const std::vector<Var> &i) { return quantize_value(x(idx(i)) / scale(), zp(), uint8()); }, name,
      "", default_axis_names(x.ndim()));
  y = annotate(y, "elemwise", {{"op", "DynamicQuantizeLinear"}});
  return {y, scale, zp};
}

Tensor zero_point_shift(const Tensor &x, const Tensor &zero_point, int64_t axis, const std::string &name) {
  check_quant_dtype(x.dtype(), "ZeroPointShift", "input '" + x.name() + "'");
  if (zero_point.defined() && zero_point.dtype() != x.dtype())
    throw DTypeError("ZeroPointShift: zero point dtype " + zero_point.dtype().str() + " differs from the input's " +
                     x.dtype().str());
  std::function<std::vector<Expr>(const std::vector<Var> &)> zi;
  if (zero_point.defined()) zi = param_indexer(zero_point, x.shape(), static_cast<int>(axis), 0, "ZeroPointShift", "zero point");
  Tensor t = compute(
      x.shape(),
      [&](const std::vector<Var> &i) {
        Expr v = cast(int32(), x(idx(i)));
        return zero_point.defined() ? v - cast(int32(), zero_point(zi(i))) : v;
      },
      name, "", default_axis_names(x.ndim()));
  return annotate(t, "elemwise", {{"op", "ZeroPointShift"}});
}

Tensor matmul_integer(const Tensor &A, const Tensor &B, const Tensor &a_zero_point, const Tensor &b_zero_point,
                      const std::string &name) {
  if (A.ndim() < 1 || B.ndim() < 1) throw ShapeError("MatMulInteger: operands must have rank >= 1");
  Tensor a = zero_point_shift(A, a_zero_point, A.ndim() >= 2 ? A.ndim() - 2 : -1, name + ".a_shift");
  Tensor b = zero_point_shift(B, b_zero_point, B.ndim() - 1, name + ".b_shift");
  Tensor t = batch_matmul(a, b, false, false, name);
  t.node()->attrs["op"] = "MatMulInteger";
  return t;
}

Tensor conv2d_integer(const Tensor &x, const Tensor &w, const Tensor &x_zero_point, const Tensor &w_zero_point,
                      const std::vector<int64_t> &strides, const std::vector<int64_t> &pads,
                      const std::vector<int64_t> &dilations, int64_t groups, const std::string &name) {
  if (x_zero_point.defined() && !per_tensor(x_zero_point))
    throw ShapeError("ConvInteger: input zero point must be a scalar, got shape " + shape_str(x_zero_point.shape()));
  // Padding the shifted input with 0 is padding x with its zero point, i.e. with real 0.
  Tensor xs = zero_point_shift(x, x_zero_point, 1, name + ".x_shift");
  Tensor ws = zero_point_shift(w, w_zero_point, 0, name + ".w_shift");
  Tensor t = conv2d(xs, ws, Tensor(), strides, pads, dilations, groups, name);
  t.node()->attrs["op"] = "ConvInteger";
  return t;
}

Tensor requantize(const Tensor &acc, const Tensor &in_scale, const Tensor &w_scale, const Tensor &y_scale,
                  const Tensor &y_zero_point, DType out, int64_t axis, const std::string &name) {
  const std::string op = "Requantize";
  if (acc.dtype() != int32()) throw DTypeError(op + ": accumulator must be int32, got " + acc.dtype().str());
  check_float(in_scale, op);
  check_float(w_scale, op);
  check_float(y_scale, op);
  for (const Tensor *p : {&in_scale, &y_scale})
    if (!per_tensor(*p)) throw ShapeError(op + ": scale '" + p->name() + "' must be a scalar, got " + shape_str(p->shape()));
  if (y_zero_point.defined()) {
    if (!per_tensor(y_zero_point)) throw ShapeError(op + ": output zero point must be a scalar, got " + shape_str(y_zero_point.shape()));
    out = y_zero_point.dtype();
  }
  check_quant_dtype(out, op, "output dtype");
  int ax = normalize_axis(axis, acc.ndim(), op);
  auto wi = param_indexer(w_scale, acc.shape(), ax, 0, op, "weight scale");
  std::vector<Expr> s0(static_cast<size_t>(in_scale.ndim()), make_int(0)), y0(static_cast<size_t>(y_scale.ndim()), make_int(0));
  std::vector<Expr> z0(static_cast<size_t>(y_zero_point.defined() ? y_zero_point.ndim() : 0), make_int(0));
  Tensor t = compute(
      acc.shape(),
      [&](const std::vector<Var> &i) {
        Expr m = cast(float32(), in_scale(s0)) * cast(float32(), w_scale(wi(i))) / cast(float32(), y_scale(y0));
        return quantize_value(cast(float32(), acc(idx(i))) * m, y_zero_point.defined() ? y_zero_point(z0) : Expr(), out);
      },
      name, "", default_axis_names(acc.ndim()));
  return annotate(t, "elemwise", {{"op", op}});
}

}  // namespace ops
}  // namespace tetune
