#include "relay_import/lowering.h"

#include "relay_import/lowering_internal.h"
#include "relay_import/expansion.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "codegen/buffer_limits.h"
#include "base/errors.h"
#include "te/ops/common.h"
#include "te/ops/conv.h"
#include "te/ops/elementwise.h"
#include "te/ops/matmul.h"
#include "te/ops/norm.h"
#include "te/ops/pool.h"
#include "te/ops/pool_indices.h"
#include "te/ops/reduce.h"
#include "te/ops/softmax.h"
#include "te/ops/transform.h"

namespace tetune {
namespace relay {

// ---- context ----------------------------------------------------------------
std::string LowerContext::name() const {
  std::string s;
  for (char c : node_.name) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (s.size() > 40) s = s.substr(s.size() - 40);
  if (s.empty()) s = node_.op;
  return s;
}

Tensor LowerContext::in(int i) const {
  if (!has(i)) fail("input " + std::to_string(i) + " is missing");
  return input_(i);
}

const Value &LowerContext::value(int i) const {
  if (!has(i)) fail("input " + std::to_string(i) + " is missing");
  return g_.values.at(node_.inputs[i]);
}

const NDArray *LowerContext::cdata(int i) const {
  if (!has(i)) return nullptr;
  const Value &v = g_.values.at(node_.inputs[i]);
  return v.data.get();
}

std::vector<int64_t> LowerContext::const_ints(int i, const std::string &what) const {
  const NDArray *a = cdata(i);
  if (!a) fail("input " + std::to_string(i) + " (" + what + ") must be a constant (after folding), '" + value(i).name + "' is not");
  return a->ints();
}

std::vector<double> LowerContext::const_floats(int i, const std::string &what) const {
  const NDArray *a = cdata(i);
  if (!a) fail("input " + std::to_string(i) + " (" + what + ") must be a constant (after folding), '" + value(i).name + "' is not");
  std::vector<double> r(a->size());
  for (int64_t k = 0; k < a->size(); k++) r[k] = a->get(k);
  return r;
}

Tensor LowerContext::in_rank(int i, int n, const std::string &what) const {
  Tensor t = in(i);
  if (t.ndim() != n)
    shape_fail("input " + std::to_string(i) + " (" + what + ") has rank " + std::to_string(t.ndim()) + " " + shape_str(t.shape()) +
               ", expected rank " + std::to_string(n));
  return t;
}

Tensor LowerContext::in_min_rank(int i, int n, const std::string &what) const {
  Tensor t = in(i);
  if (t.ndim() < n)
    shape_fail("input " + std::to_string(i) + " (" + what + ") has rank " + std::to_string(t.ndim()) + " " + shape_str(t.shape()) +
               ", expected rank >= " + std::to_string(n));
  return t;
}

std::vector<int64_t> LowerContext::ints_attr(const std::string &k, const std::vector<int64_t> &def, int n, int64_t min_value) const {
  auto it = node_.attrs.find(k);
  if (it != node_.attrs.end() && it->second.kind != Attr::Ints && it->second.kind != Attr::Int)
    attr_fail("attribute '" + k + "' must be a list of integers");
  std::vector<int64_t> v = node_.attr_ints(k, def);
  if (n >= 0 && static_cast<int>(v.size()) != n)
    attr_fail("attribute '" + k + "' has " + std::to_string(v.size()) + " values, expected " + std::to_string(n));
  for (auto x : v)
    if (x < min_value) attr_fail("attribute '" + k + "' value " + std::to_string(x) + " must be >= " + std::to_string(min_value));
  return v;
}

int64_t checked_num_elements(const Shape &s, int64_t limit) {
  int64_t n = 1;
  for (auto d : s) {
    if (d < 0) return -1;
    if (d == 0) return 0;  // empty tensor
  }
  for (auto d : s) {
    if (d > limit / std::max<int64_t>(n, 1)) return -1;
    n *= d;
  }
  return n <= limit ? n : -1;
}

void LowerContext::check_shape(const Shape &s, const std::string &what) const {
  for (auto d : s)
    if (d <= 0) shape_fail(what + " " + shape_str(s) + " has a non-positive extent");
  if (checked_num_elements(s, kMaxShapeElements) < 0)
    shape_fail(what + " " + shape_str(s) + " has more than " + std::to_string(kMaxShapeElements) + " elements");
}

void LowerContext::shape_fail(const std::string &msg) const {
  throw ShapeError(node_.op + " node '" + node_.name + "' (opset " + std::to_string(g_.opset) + "): " + msg);
}

void LowerContext::attr_fail(const std::string &msg) const {
  throw AttributeError(node_.op + " node '" + node_.name + "' (opset " + std::to_string(g_.opset) + "): " + msg);
}

void LowerContext::fail(const std::string &msg) const {
  throw ImportError(node_.op + " node '" + node_.name + "' (opset " + std::to_string(g_.opset) + "): " + msg);
}

void LowerContext::unsupported(const std::string &what) const { fail("unsupported " + what); }

DType dtype_from_onnx(int code, const std::string &what) {
  switch (code) {
    case 1: return float32();
    case 2: return uint8();
    case 3: return int8();
    case 4: return uint16();
    case 5: return int16();
    case 6: return int32();
    case 7: return int64();
    case 9: return boolean();
    case 10: return float16();
    case 11: return float64();
    case 12: return uint32();
    case 13: return uint64();
    case 16: return bfloat16();
    default: break;
  }
  throw ImportError("unsupported ONNX data type " + std::to_string(code) + " for " + what);
}

namespace lowering {

Expr imm(double v, DType t) {
  if (t.is_float()) return make_float(v, t);
  if (t.is_bool()) return cast(t, make_int(v != 0 ? 1 : 0));
  return make_int(static_cast<int64_t>(v), t);
}

std::vector<Expr> idx_of(const std::vector<Var> &i) { return std::vector<Expr>(i.begin(), i.end()); }

// Truncating integer division (ONNX) from Halide's floor division.
Expr trunc_div(const Expr &a, const Expr &b) {
  Expr q = a / b;
  Expr z = imm(0, a.dtype());
  Expr adjust = (a % b != z) && ((a < z) != (b < z));
  return select(adjust, q + imm(1, a.dtype()), q);
}

Expr apply_bin(BinaryOp op, const Expr &a, const Expr &b, const std::string &onnx) {
  if (onnx == "Div" && !a.dtype().is_float()) return trunc_div(a, b);
  return binary(op, a, b);
}

// Binary elementwise op with NumPy broadcasting; a size-1 constant operand of
// rank <= the other becomes an immediate.
Tensor binop(LowerContext &c, BinaryOp op, const std::string &onnx) {
  const NDArray *ca = c.cdata(0), *cb = c.cdata(1);
  const Value &va = c.value(0), &vb = c.value(1);
  bool both_const = ca && cb;
  std::string name = c.name();
  auto tag_of = [](const Shape &s, const Shape &o) { return s == o ? "elemwise" : "broadcast"; };
  if (!both_const && cb && cb->size() == 1 && vb.shape.size() <= va.shape.size()) {
    Tensor a = c.in(0);
    if (onnx == "Pow" && !a.dtype().is_float()) c.unsupported("integer Pow");
    Expr k = imm(cb->get(0), a.dtype());
    if (cb->dtype() != a.dtype() && onnx != "Pow")
      c.fail("input dtypes differ: " + a.dtype().str() + " and " + cb->dtype().str());
    Tensor t = compute(a.shape(), [&](const std::vector<Var> &i) { return apply_bin(op, a(idx_of(i)), k, onnx); }, name,
                       "", ops::default_axis_names(a.ndim()));
    return ops::annotate(t, "elemwise", {{"op", onnx}});
  }
  if (!both_const && ca && ca->size() == 1 && va.shape.size() <= vb.shape.size() && onnx != "Pow") {
    Tensor b = c.in(1);
    if (ca->dtype() != b.dtype()) c.fail("input dtypes differ: " + ca->dtype().str() + " and " + b.dtype().str());
    Expr k = imm(ca->get(0), b.dtype());
    Tensor t = compute(b.shape(), [&](const std::vector<Var> &i) { return apply_bin(op, k, b(idx_of(i)), onnx); }, name,
                       "", ops::default_axis_names(b.ndim()));
    return ops::annotate(t, "elemwise", {{"op", onnx}});
  }
  Tensor a = c.in(0), b = c.in(1);
  if (onnx == "Pow") {
    if (!a.dtype().is_float()) c.unsupported("integer Pow");
    if (b.dtype() != a.dtype()) b = ops::cast(b, a.dtype(), name + ".exp_cast");
  }
  if (a.dtype() != b.dtype()) c.fail("input dtypes differ: " + a.dtype().str() + " and " + b.dtype().str());
  Shape out = ops::broadcast_shapes(a.shape(), b.shape());
  Tensor t = compute(
      out,
      [&](const std::vector<Var> &i) {
        return apply_bin(op, a(ops::broadcast_index(a, out, i)), b(ops::broadcast_index(b, out, i)), onnx);
      },
      name, "", ops::default_axis_names(static_cast<int>(out.size())));
  bool same = a.shape() == out && b.shape() == out;
  return ops::annotate(t, same ? "elemwise" : tag_of(a.shape(), out), {{"op", onnx}});
}

void check_const_indices(LowerContext &c, int i, int64_t n, const std::string &what, const std::string &where) {
  const NDArray *idx = c.cdata(i);
  if (!idx) return;
  for (int64_t k = 0; k < idx->size(); k++) {
    double v = idx->get(k);
    if (v < -n || v >= n)
      c.fail(what + " " + ops::num_str(v) + " (element " + std::to_string(k) + ") is out of range [" + std::to_string(-n) +
             ", " + std::to_string(n - 1) + "]" + (where.empty() ? "" : " " + where));
  }
}

Tensor unop(LowerContext &c, const std::function<Expr(const Expr &)> &f, const std::string &onnx, bool need_float) {
  Tensor x = c.in(0);
  if (need_float && !x.dtype().is_float()) c.unsupported("input dtype " + x.dtype().str());
  Tensor t = compute(x.shape(), [&](const std::vector<Var> &i) { return f(x(idx_of(i))); }, c.name(), "",
                     ops::default_axis_names(x.ndim()));
  return ops::annotate(t, "elemwise", {{"op", onnx}});
}

LOWER(l_add) { return {binop(c, BinaryOp::Add, "Add")}; }
LOWER(l_sub) { return {binop(c, BinaryOp::Sub, "Sub")}; }
LOWER(l_mul) { return {binop(c, BinaryOp::Mul, "Mul")}; }
LOWER(l_div) { return {binop(c, BinaryOp::Div, "Div")}; }
LOWER(l_pow) {
  if (!c.in(0).dtype().is_float()) return {int_pow(c)};
  return {binop(c, BinaryOp::Pow, "Pow")};
}
LOWER(l_equal) { return {binop(c, BinaryOp::EQ, "Equal")}; }
LOWER(l_less) { return {binop(c, BinaryOp::LT, "Less")}; }
LOWER(l_less_eq) { return {binop(c, BinaryOp::LE, "LessOrEqual")}; }
LOWER(l_greater) { return {binop(c, BinaryOp::GT, "Greater")}; }
LOWER(l_greater_eq) { return {binop(c, BinaryOp::GE, "GreaterOrEqual")}; }
LOWER(l_and) { return {binop(c, BinaryOp::And, "And")}; }
LOWER(l_or) { return {binop(c, BinaryOp::Or, "Or")}; }

std::vector<Tensor> variadic(LowerContext &c, Tensor (*f)(const Tensor &, const Tensor &, const std::string &)) {
  Tensor acc = c.in(0);
  for (int i = 1; i < c.num_inputs(); i++) acc = f(acc, c.in(i), c.name() + (i + 1 == c.num_inputs() ? "" : "." + std::to_string(i)));
  if (c.num_inputs() == 1) acc = ops::annotate(compute(acc.shape(), [&](const std::vector<Var> &i) { return acc(idx_of(i)); }, c.name(), "", ops::default_axis_names(acc.ndim())), "elemwise");
  return {acc};
}
LOWER(l_max) { return variadic(c, [](const Tensor &a, const Tensor &b, const std::string &n) { return ops::maximum(a, b, n); }); }
LOWER(l_min) { return variadic(c, [](const Tensor &a, const Tensor &b, const std::string &n) { return ops::minimum(a, b, n); }); }
LOWER(l_sum) { return variadic(c, [](const Tensor &a, const Tensor &b, const std::string &n) { return ops::add(a, b, n); }); }
LOWER(l_mean) {
  Tensor s = variadic(c, [](const Tensor &a, const Tensor &b, const std::string &n) { return ops::add(a, b, n); })[0];
  double k = c.num_inputs();
  Tensor t = compute(s.shape(), [&](const std::vector<Var> &i) { return s(idx_of(i)) / imm(k, s.dtype()); }, c.name() + ".mean", "",
                     ops::default_axis_names(s.ndim()));
  return {ops::annotate(t, "elemwise", {{"op", "Mean"}})};
}

LOWER(l_sqrt) { return {ops::sqrt(c.in(0), c.name())}; }
LOWER(l_exp) { return {ops::exp(c.in(0), c.name())}; }
LOWER(l_log) { return {ops::log(c.in(0), c.name())}; }
LOWER(l_tanh) { return {ops::tanh(c.in(0), c.name())}; }
LOWER(l_erf) { return {ops::erf(c.in(0), c.name())}; }
LOWER(l_sigmoid) { return {ops::sigmoid(c.in(0), c.name())}; }
LOWER(l_neg) { return {ops::neg(c.in(0), c.name())}; }
LOWER(l_abs) { return {ops::abs(c.in(0), c.name())}; }
LOWER(l_floor) { return {ops::floor(c.in(0), c.name())}; }
LOWER(l_ceil) { return {ops::ceil(c.in(0), c.name())}; }
LOWER(l_round) { return {ops::round(c.in(0), c.name())}; }
LOWER(l_reciprocal) { return {ops::reciprocal(c.in(0), c.name())}; }
LOWER(l_relu) { return {ops::relu(c.in(0), c.name())}; }
LOWER(l_not) { return {unop(c, [](const Expr &x) { return !x; }, "Not", false)}; }
LOWER(l_leaky_relu) { return {ops::leaky_relu(c.in(0), c.node().attr_f("alpha", 0.01), c.name())}; }
LOWER(l_hard_sigmoid) {
  return {ops::hard_sigmoid(c.in(0), c.node().attr_f("alpha", 0.2), c.node().attr_f("beta", 0.5), c.name())};
}
LOWER(l_hard_swish) { return {ops::hard_swish(c.in(0), c.name())}; }
LOWER(l_gelu) {
  if (c.node().attr_s("approximate", "none") != "none") c.unsupported("approximate Gelu");
  return {ops::gelu(c.in(0), c.name())};
}
LOWER(l_elu) {
  double alpha = c.node().attr_f("alpha", 1.0);
  return {unop(c, [&](const Expr &x) {
    DType t = x.dtype();
    return select(x < imm(0, t), imm(alpha, t) * (exp(x) - imm(1, t)), x);
  }, "Elu")};
}
LOWER(l_selu) {
  double alpha = c.node().attr_f("alpha", 1.67326319217681884765625);
  double gamma = c.node().attr_f("gamma", 1.05070102214813232421875);
  return {unop(c, [&](const Expr &x) {
    DType t = x.dtype();
    return imm(gamma, t) * select(x <= imm(0, t), imm(alpha, t) * (exp(x) - imm(1, t)), x);
  }, "Selu")};
}
LOWER(l_softplus) {
  return {unop(c, [](const Expr &x) { return log(exp(x) + imm(1, x.dtype())); }, "Softplus")};
}
LOWER(l_softsign) {
  return {unop(c, [](const Expr &x) { return x / (abs(x) + imm(1, x.dtype())); }, "Softsign")};
}
LOWER(l_thresholded_relu) {
  double alpha = c.node().attr_f("alpha", 1.0);
  return {unop(c, [&](const Expr &x) { return select(x > imm(alpha, x.dtype()), x, imm(0, x.dtype())); }, "ThresholdedRelu")};
}
LOWER(l_prelu) {
  Tensor x = c.in(0), s = c.in(1);
  if (s.dtype() != x.dtype()) c.fail("slope dtype differs");
  // PRelu-1 / -6 (before NumPy broadcasting): a 1-D slope of x's channel count is per channel (axis 1).
  if (c.opset() < 7 && s.ndim() == 1 && x.ndim() > 2 && s.shape()[0] == x.shape()[1] && s.shape()[0] != 1) {
    Shape cs(static_cast<size_t>(x.ndim() - 1), 1);
    cs[0] = s.shape()[0];
    s = ops::reshape(s, cs, c.name() + ".slope");
  }
  Shape out = ops::broadcast_shapes(x.shape(), s.shape());
  if (out != x.shape()) c.fail("slope " + shape_str(s.shape()) + " does not broadcast to " + shape_str(x.shape()));
  Tensor t = compute(out, [&](const std::vector<Var> &i) {
    Expr xv = x(idx_of(i));
    return select(xv < imm(0, x.dtype()), xv * s(ops::broadcast_index(s, out, i)), xv);
  }, c.name(), "", ops::default_axis_names(x.ndim()));
  return {ops::annotate(t, "broadcast", {{"op", "PRelu"}})};
}

LOWER(l_clip) {
  Tensor x = c.in(0);
  DType t = x.dtype();
  double lo = -std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
  if (c.opset() < 11) {
    lo = c.node().attr_f("min", lo);
    hi = c.node().attr_f("max", hi);
  } else {
    if (c.has(1)) lo = c.const_floats(1, "min").at(0);
    if (c.has(2)) hi = c.const_floats(2, "max").at(0);
  }
  Expr elo = std::isinf(lo) ? min_value(t) : imm(lo, t);
  Expr ehi = std::isinf(hi) ? max_value(t) : imm(hi, t);
  Tensor r = compute(x.shape(), [&](const std::vector<Var> &i) { return min(max(x(idx_of(i)), elo), ehi); }, c.name(), "",
                     ops::default_axis_names(x.ndim()));
  return {ops::annotate(r, "elemwise", {{"op", "Clip"}})};
}

LOWER(l_cast) {
  int64_t code = c.node().attr_i("to", 1);
  if (code < 0 || code > 1000) c.attr_fail("attribute 'to' = " + std::to_string(code) + " is not an ONNX data type");
  DType to = dtype_from_onnx(static_cast<int>(code), "Cast 'to'");
  return {ops::cast(c.in(0), to, c.name())};
}

LOWER(l_where) { return {ops::where(c.in(0), c.in(1), c.in(2), c.name())}; }

LOWER(l_identity) {
  Tensor x = c.in(0);
  Tensor t = compute(x.shape(), [&](const std::vector<Var> &i) { return x(idx_of(i)); }, c.name(), "",
                     ops::default_axis_names(x.ndim()));
  return {ops::annotate(t, "injective", {{"op", "Identity"}})};
}

// ---- conv / matmul ------------------------------------------------------------
std::vector<int64_t> auto_pads(LowerContext &c, const Shape &in_hw, const std::vector<int64_t> &k,
                               const std::vector<int64_t> &s, const std::vector<int64_t> &d, bool transpose,
                               const std::vector<int64_t> &outpad) {
  // Attributes come from the file: check their lengths and signs before indexing.
  auto check = [&](const std::vector<int64_t> &v, size_t n, const char *what, int64_t min_value) {
    if (v.size() != n) c.unsupported(std::string(what) + " with " + std::to_string(v.size()) + " values (expected " + std::to_string(n) + ")");
    for (auto x : v)
      if (x < min_value) c.unsupported(std::string(what) + " value " + std::to_string(x));
  };
  check(k, 2, "kernel size", 1);
  check(s, 2, "strides", 1);
  check(d, 2, "dilations", 1);
  if (transpose) check(outpad, 2, "output_padding", 0);
  if (in_hw.size() != 2) c.unsupported("input of rank " + std::to_string(in_hw.size() + 2));
  std::string ap = c.node().attr_s("auto_pad", "NOTSET");
  std::vector<int64_t> pads = c.node().attr_ints("pads", {0, 0, 0, 0});
  check(pads, 4, "pads", 0);
  if (ap == "NOTSET") return pads;
  if (ap == "VALID") return {0, 0, 0, 0};
  if (ap != "SAME_UPPER" && ap != "SAME_LOWER") c.unsupported("auto_pad " + ap);
  std::vector<int64_t> r(4);
  for (int a = 0; a < 2; a++) {
    int64_t total;
    if (!transpose) {
      int64_t out = (in_hw[a] + s[a] - 1) / s[a];
      total = std::max<int64_t>(0, (out - 1) * s[a] + d[a] * (k[a] - 1) + 1 - in_hw[a]);
    } else {
      int64_t out = in_hw[a] * s[a];
      total = std::max<int64_t>(0, s[a] * (in_hw[a] - 1) + outpad[a] + d[a] * (k[a] - 1) + 1 - out);
    }
    int64_t small = total / 2, big = total - small;
    bool upper = ap == "SAME_UPPER";
    r[a] = upper ? small : big;
    r[a + 2] = upper ? big : small;
  }
  return r;
}

LOWER(l_conv) {
  Tensor x = c.in(0);
  if (x.ndim() != 4) return conv_other_rank(c);
  Tensor w = c.in_rank(1, 4, "weight");
  Tensor b = c.has(2) ? c.in_rank(2, 1, "bias") : Tensor();
  std::vector<int64_t> k = {w.shape()[2], w.shape()[3]};
  if (c.node().has_attr("kernel_shape") && c.ints_attr("kernel_shape", {}, 2, 1) != k)
    c.shape_fail("attribute 'kernel_shape' does not match the weight shape " + shape_str(w.shape()));
  auto s = c.ints_attr("strides", {1, 1}, 2, 1);
  auto d = c.ints_attr("dilations", {1, 1}, 2, 1);
  auto pads = auto_pads(c, {x.shape()[2], x.shape()[3]}, k, s, d, false, {0, 0});
  return {ops::conv2d(x, w, b, s, pads, d, c.node().attr_i("group", 1), c.name())};
}

LOWER(l_conv_transpose) {
  Tensor x = c.in(0);
  if (x.ndim() != 4) return conv_transpose_nd(c);
  Tensor w = c.in_rank(1, 4, "weight");
  Tensor b = c.has(2) ? c.in_rank(2, 1, "bias") : Tensor();
  std::vector<int64_t> k = {w.shape()[2], w.shape()[3]};
  auto s = c.ints_attr("strides", {1, 1}, 2, 1);
  auto d = c.ints_attr("dilations", {1, 1}, 2, 1);
  auto op = c.ints_attr("output_padding", {0, 0}, 2, 0);
  std::vector<int64_t> pads;
  if (c.node().has_attr("output_shape")) {
    auto os = c.ints_attr("output_shape", {}, -1, 1);
    if (os.size() < 2) c.attr_fail("attribute 'output_shape' has " + std::to_string(os.size()) + " values, expected 2 (or 4)");
    if (os.size() > 2) os = {os[os.size() - 2], os[os.size() - 1]};
    for (int a = 0; a < 2; a++)
      if (os[a] > (int64_t(1) << 24)) c.attr_fail("attribute 'output_shape' value " + std::to_string(os[a]) + " is too large");
    pads.resize(4);
    std::string ap = c.node().attr_s("auto_pad", "NOTSET");
    for (int a = 0; a < 2; a++) {
      int64_t total = s[a] * (x.shape()[2 + a] - 1) + op[a] + ((k[a] - 1) * d[a] + 1) - os[a];
      if (total < 0) return conv_transpose_nd(c);  // the output extends past the full result
      if (ap == "SAME_UPPER") {
        pads[a] = total / 2;
        pads[a + 2] = total - total / 2;
      } else {
        pads[a] = total - total / 2;
        pads[a + 2] = total / 2;
      }
    }
  } else {
    pads = auto_pads(c, {x.shape()[2], x.shape()[3]}, k, s, d, true, op);
  }
  if (w.shape()[1] > (int64_t(1) << 24)) c.shape_fail("weight " + shape_str(w.shape()) + " is too large");
  return {ops::conv2d_transpose(x, w, b, s, pads, d, op, c.node().attr_i("group", 1), c.name())};
}

LOWER(l_matmul) { return {ops::batch_matmul(c.in(0), c.in(1), false, false, c.name())}; }

LOWER(l_gemm) {
  Tensor C = c.has(2) ? c.in(2) : Tensor();
  return {ops::gemm(c.in(0), c.in(1), C, c.node().attr_f("alpha", 1.0), c.node().attr_f("beta", 1.0),
                    c.node().attr_i("transA", 0) != 0, c.node().attr_i("transB", 0) != 0, c.name())};
}

LOWER(l_batch_norm) {
  if (c.node().attr_i("training_mode", 0) != 0) c.unsupported("training_mode=1");
  if (c.node().outputs.size() > 1) {
    for (size_t i = 1; i < c.node().outputs.size(); i++)
      if (c.node().outputs[i] >= 0) c.unsupported("training outputs (running mean / var)");
  }
  return {ops::batch_norm_inference(c.in(0), c.in(1), c.in(2), c.in(3), c.in(4), c.node().attr_f("epsilon", 1e-5),
                                    c.name())};
}

// ---- pooling --------------------------------------------------------------------
// Pooling attributes; 1-D pooling runs as 2-D pooling over [N, C, 1, L]
// (kernel, stride and dilation 1 along the added axis, no padding on it).
struct PoolArgs {
  Tensor x;  // rank 4
  std::vector<int64_t> k, s, d, pads;
  bool lifted = false;  // a 1-D input reshaped to [N, C, 1, L]
};

PoolArgs pool_args(LowerContext &c) {
  PoolArgs p;
  p.x = c.in(0);
  int r = p.x.ndim() - 2;
  if (r != 1 && r != 2) c.unsupported(std::to_string(r) + "-D pooling (only 1-D and 2-D)");
  p.k = c.ints_attr("kernel_shape", {}, r, 1);
  p.s = c.ints_attr("strides", std::vector<int64_t>(r, 1), r, 1);
  p.d = c.ints_attr("dilations", std::vector<int64_t>(r, 1), r, 1);
  std::string ap = c.node().attr_s("auto_pad", "NOTSET");
  if (ap == "NOTSET") p.pads = c.ints_attr("pads", std::vector<int64_t>(2 * r, 0), 2 * r, 0);
  if (r == 1) {
    const Shape &xs = p.x.shape();
    p.x = ops::reshape(p.x, {xs[0], xs[1], 1, xs[2]}, c.name() + ".as2d");
    p.k.insert(p.k.begin(), 1), p.s.insert(p.s.begin(), 1), p.d.insert(p.d.begin(), 1);
    if (!p.pads.empty()) p.pads = {0, p.pads[0], 0, p.pads[1]};
    p.lifted = true;
  }
  if (ap == "VALID") p.pads = {0, 0, 0, 0};
  else if (ap != "NOTSET") p.pads = auto_pads(c, {p.x.shape()[2], p.x.shape()[3]}, p.k, p.s, p.d, false, {0, 0});
  return p;
}

// The pooled [N, C, 1, L'] back to [N, C, L'] for a 1-D input.
Tensor pool_result(LowerContext &c, const PoolArgs &p, const Tensor &y) {
  if (!p.lifted) return y;
  const Shape &ys = y.shape();
  return ops::reshape(y, {ys[0], ys[1], ys[3]}, c.name() + ".as1d");
}

LOWER(l_max_pool) {
  if (c.in(0).ndim() == 5) return pool3d(c, true);
  PoolArgs p = pool_args(c);
  Tensor y = ops::max_pool2d(p.x, p.k, p.s, p.pads, p.d, c.node().attr_i("ceil_mode", 0) != 0, c.name());
  if (c.node().outputs.size() < 2 || c.node().outputs[1] < 0) return {pool_result(c, p, y)};
  // Indices: flat positions in the input; [N, C, 1, L] and [N, C, L] number them alike
  Tensor ind = ops::max_pool2d_indices(p.x, y, p.k, p.s, {p.pads[0], p.pads[1]}, p.d, c.node().attr_i("storage_order", 0),
                                       c.name() + ".indices");
  const Shape &is = ind.shape();
  if (p.lifted) ind = ops::reshape(ind, {is[0], is[1], is[3]}, c.name() + ".indices_1d");
  return {pool_result(c, p, y), ind};
}

LOWER(l_avg_pool) {
  if (c.in(0).ndim() == 5) return pool3d(c, false);
  PoolArgs p = pool_args(c);
  if (p.d != std::vector<int64_t>{1, 1}) c.unsupported("dilated AveragePool");
  Tensor y = ops::avg_pool2d(p.x, p.k, p.s, p.pads, c.node().attr_i("ceil_mode", 0) != 0,
                             c.node().attr_i("count_include_pad", 0) != 0, c.name());
  return {pool_result(c, p, y)};
}

LOWER(l_global_avg_pool) {
  Tensor x = c.in(0);
  if (x.ndim() != 4) {
    std::vector<int64_t> axes;
    for (int i = 2; i < x.ndim(); i++) axes.push_back(i);
    return {ops::reduce_mean(x, axes, true, c.name())};
  }
  return {ops::global_avg_pool2d(x, c.name())};
}

LOWER(l_global_max_pool) {
  Tensor x = c.in(0);
  std::vector<int64_t> axes;
  for (int i = 2; i < x.ndim(); i++) axes.push_back(i);
  return {ops::reduce_max(x, axes, true, c.name())};
}

// ---- reductions / softmax ---------------------------------------------------------
std::vector<Tensor> reduce_common(LowerContext &c, ReduceOp op, bool mean, int axes_input_opset) {
  Tensor x = c.in(0);
  std::vector<int64_t> axes;
  if (c.opset() < axes_input_opset) axes = c.node().attr_ints("axes");
  else if (c.has(1)) axes = c.const_ints(1, "axes");
  bool keep = c.node().attr_i("keepdims", 1) != 0;
  if (axes.empty() && c.node().attr_i("noop_with_empty_axes", 0) != 0) return l_identity(c);
  if (mean) return {ops::reduce_mean(x, axes, keep, c.name())};
  return {ops::reduce(x, op, axes, keep, c.name())};
}
LOWER(l_reduce_mean) { return reduce_common(c, ReduceOp::Sum, true, 18); }
LOWER(l_reduce_max) { return reduce_common(c, ReduceOp::Max, false, 18); }
LOWER(l_reduce_min) { return reduce_common(c, ReduceOp::Min, false, 18); }
LOWER(l_reduce_prod) { return reduce_common(c, ReduceOp::Prod, false, 18); }
LOWER(l_reduce_sum) { return reduce_common(c, ReduceOp::Sum, false, 13); }

std::vector<Tensor> softmax_common(LowerContext &c, bool log) {
  Tensor x = c.in(0);
  int r = x.ndim();
  int64_t axis = c.node().attr_i("axis", c.opset() < 13 ? 1 : -1);
  int ax = ops::normalize_axis(axis, std::max(r, 1), c.node().op, "axis");
  auto f = [&](const Tensor &t, int64_t a, const std::string &n) {
    return log ? ops::log_softmax(t, a, n) : ops::softmax(t, a, n);
  };
  if (c.opset() >= 13 || ax == r - 1) return {f(x, ax, c.name())};
  // opset < 13: softmax over the flattened trailing axes [axis, r)
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < ax; i++) outer *= x.shape()[i];
  for (int i = ax; i < r; i++) inner *= x.shape()[i];
  Tensor flat = ops::reshape(x, {outer, inner}, c.name() + ".flat");
  Tensor s = f(flat, 1, c.name() + ".sm");
  return {ops::reshape(s, x.shape(), c.name())};
}
LOWER(l_softmax) { return softmax_common(c, false); }
LOWER(l_log_softmax) { return softmax_common(c, true); }

// ---- data movement -------------------------------------------------------------------
LOWER(l_reshape) {
  Tensor x = c.in(0);
  std::vector<int64_t> shape = c.opset() < 5 ? c.node().attr_ints("shape") : c.const_ints(1, "shape");
  if (c.node().attr_i("allowzero", 0) != 0)
    for (auto v : shape)
      if (v == 0) c.unsupported("allowzero=1 with a zero extent");
  return {ops::reshape(x, shape, c.name())};
}

LOWER(l_flatten) { return {ops::flatten(c.in(0), c.node().attr_i("axis", 1), c.name())}; }

LOWER(l_squeeze) {
  std::vector<int64_t> axes = c.opset() < 13 ? c.node().attr_ints("axes") : (c.has(1) ? c.const_ints(1, "axes") : std::vector<int64_t>{});
  return {ops::squeeze(c.in(0), axes, c.name())};
}

LOWER(l_unsqueeze) {
  std::vector<int64_t> axes = c.opset() < 13 ? c.node().attr_ints("axes") : c.const_ints(1, "axes");
  return {ops::unsqueeze(c.in(0), axes, c.name())};
}

LOWER(l_transpose) { return {ops::transpose(c.in(0), c.node().attr_ints("perm"), c.name())}; }

LOWER(l_concat) {
  std::vector<Tensor> ts;
  for (int i = 0; i < c.num_inputs(); i++)
    if (c.has(i)) ts.push_back(c.in(i));
  return {ops::concat(ts, c.node().attr_i("axis", 0), c.name())};
}

LOWER(l_split) {
  Tensor x = c.in(0);
  int64_t axis = c.node().attr_i("axis", 0);
  std::vector<int64_t> sizes;
  if (c.opset() < 13) sizes = c.node().attr_ints("split");
  else if (c.has(1)) sizes = c.const_ints(1, "split");
  int64_t n64 = static_cast<int64_t>(c.node().outputs.size());
  if (c.node().has_attr("num_outputs")) n64 = c.node().attr_i("num_outputs", n64);
  if (n64 < 1 || n64 > 4096) c.attr_fail("number of outputs " + std::to_string(n64) + " must be in 1..4096");
  int n = static_cast<int>(n64);
  for (auto v : sizes)
    if (v < 0) c.attr_fail("split size " + std::to_string(v) + " is negative");
  if (sizes.empty() && c.opset() < 18) {
    int ax = ops::normalize_axis(axis, x.ndim(), "Split", "axis");
    int64_t ext = x.shape()[ax];
    if (ext % n != 0) c.fail("extent " + std::to_string(ext) + " does not divide into " + std::to_string(n) + " outputs");
    sizes.assign(n, ext / n);
  }
  return ops::split(x, axis, sizes, n, c.name());
}

LOWER(l_slice) {
  Tensor x = c.in(0);
  std::vector<int64_t> starts, ends, axes, steps;
  if (c.opset() < 10) {
    starts = c.node().attr_ints("starts");
    ends = c.node().attr_ints("ends");
    axes = c.node().attr_ints("axes");
  } else {
    starts = c.const_ints(1, "starts");
    ends = c.const_ints(2, "ends");
    if (c.has(3)) axes = c.const_ints(3, "axes");
    if (c.has(4)) steps = c.const_ints(4, "steps");
  }
  return {ops::slice(x, starts, ends, axes, steps, c.name())};
}

LOWER(l_gather) {
  Tensor data = c.in(0);
  int64_t axis = c.node().attr_i("axis", 0);
  int ax = ops::normalize_axis(axis, data.ndim(), "Gather");
  check_const_indices(c, 1, data.shape()[ax], "index",
                      "for axis " + std::to_string(ax) + " of '" + data.name() + "' with shape " + shape_str(data.shape()));
  return {ops::gather(data, c.in(1), axis, c.name())};
}

LOWER(l_expand) { return {ops::expand(c.in(0), c.const_ints(1, "shape"), c.name())}; }

LOWER(l_pad) {
  Tensor x = c.in(0);
  std::string mode = c.node().attr_s("mode", "constant");
  std::vector<int64_t> pads;
  double value = 0;
  if (c.opset() < 11) {
    pads = c.node().attr_ints("pads");
    value = c.node().attr_f("value", 0.0);
  } else {
    pads = c.const_ints(1, "pads");
    if (c.has(2)) value = c.const_floats(2, "constant_value").at(0);
    if (c.has(3)) {
      auto axes = c.const_ints(3, "axes");
      if (pads.size() != 2 * axes.size())
        c.shape_fail("input 1 (pads) has " + std::to_string(pads.size()) + " values, expected " + std::to_string(2 * axes.size()) +
                     " (2 per axis)");
      std::vector<int64_t> full(2 * x.ndim(), 0);
      for (size_t i = 0; i < axes.size(); i++) {
        int a = ops::normalize_axis(axes[i], x.ndim(), "Pad", "axes");
        full[a] = pads[i];
        full[a + x.ndim()] = pads[i + axes.size()];
      }
      pads = full;
    }
  }
  if (mode == "wrap") c.unsupported("mode wrap");
  if (pads.size() != 2 * static_cast<size_t>(x.ndim()))
    c.attr_fail("pads has " + std::to_string(pads.size()) + " values, expected " + std::to_string(2 * x.ndim()));
  for (auto p : pads)
    if (p > (int64_t(1) << 24) || p < -(int64_t(1) << 24)) c.attr_fail("pads value " + std::to_string(p) + " is out of range");
  return {ops::pad(x, pads, mode, value, c.name())};
}

// Constant generators (always folded in practice).
LOWER(l_constant_of_shape) {
  Shape s = c.const_ints(0, "shape");
  double v = 0;
  DType t = float32();
  auto it = c.node().attrs.find("value");
  if (it != c.node().attrs.end() && it->second.t) {
    if (it->second.t->size() != 1) c.attr_fail("attribute 'value' must hold one element, it has " + std::to_string(it->second.t->size()));
    t = it->second.t->dtype();
    v = it->second.t->get(0);
  }
  c.check_shape(s, "output shape");
  Tensor r = compute(s, [&](const std::vector<Var> &) { return imm(v, t); }, c.name(), "",
                     ops::default_axis_names(static_cast<int>(s.size())));
  return {ops::annotate(r, "injective", {{"op", "ConstantOfShape"}})};
}

LOWER(l_range) {
  const NDArray *s = c.cdata(0), *l = c.cdata(1), *d = c.cdata(2);
  if (!s || !l || !d) c.unsupported("non-constant start, limit or delta (a data-dependent output shape)");
  if (s->size() != 1 || l->size() != 1 || d->size() != 1) c.shape_fail("start, limit and delta must be scalars");
  double st = s->get(0), li = l->get(0), de = d->get(0);
  double nf = std::ceil((li - st) / de);
  if (!std::isfinite(st) || !std::isfinite(li) || !std::isfinite(de) || de == 0 || !(nf < double(kMaxDataElements)))
    c.attr_fail("start " + std::to_string(st) + ", limit " + std::to_string(li) + ", delta " + std::to_string(de) +
                " give no finite range of at most " + std::to_string(kMaxDataElements) + " elements");
  int64_t n = std::max<int64_t>(0, static_cast<int64_t>(nf));
  if (n == 0) c.unsupported("empty Range");
  DType t = s->dtype();
  Tensor r = compute({n}, [&](const std::vector<Var> &i) {
    return imm(st, t) + cast(t, Expr(i[0])) * imm(de, t);
  }, c.name(), "", {"i"});
  return {ops::annotate(r, "injective", {{"op", "Range"}})};
}

const OpTable &core_ops() {
  static const OpTable r = {
      {"Add", {l_add, OpPattern::Elemwise}},
      {"Sub", {l_sub, OpPattern::Elemwise}},
      {"Mul", {l_mul, OpPattern::Elemwise}},
      {"Div", {l_div, OpPattern::Elemwise}},
      {"Pow", {l_pow, OpPattern::Elemwise}},
      {"Equal", {l_equal, OpPattern::Elemwise}},
      {"Less", {l_less, OpPattern::Elemwise}},
      {"LessOrEqual", {l_less_eq, OpPattern::Elemwise}},
      {"Greater", {l_greater, OpPattern::Elemwise}},
      {"GreaterOrEqual", {l_greater_eq, OpPattern::Elemwise}},
      {"And", {l_and, OpPattern::Elemwise}},
      {"Or", {l_or, OpPattern::Elemwise}},
      {"Not", {l_not, OpPattern::Elemwise}},
      {"Max", {l_max, OpPattern::Elemwise}},
      {"Min", {l_min, OpPattern::Elemwise}},
      {"Sum", {l_sum, OpPattern::Elemwise}},
      {"Mean", {l_mean, OpPattern::Elemwise}},
      {"Sqrt", {l_sqrt, OpPattern::Elemwise}},
      {"Exp", {l_exp, OpPattern::Elemwise}},
      {"Log", {l_log, OpPattern::Elemwise}},
      {"Tanh", {l_tanh, OpPattern::Elemwise}},
      {"Erf", {l_erf, OpPattern::Elemwise}},
      {"Sigmoid", {l_sigmoid, OpPattern::Elemwise}},
      {"Neg", {l_neg, OpPattern::Elemwise}},
      {"Abs", {l_abs, OpPattern::Elemwise}},
      {"Floor", {l_floor, OpPattern::Elemwise}},
      {"Ceil", {l_ceil, OpPattern::Elemwise}},
      {"Round", {l_round, OpPattern::Elemwise}},
      {"Reciprocal", {l_reciprocal, OpPattern::Elemwise}},
      {"Relu", {l_relu, OpPattern::Elemwise}},
      {"LeakyRelu", {l_leaky_relu, OpPattern::Elemwise}},
      {"HardSigmoid", {l_hard_sigmoid, OpPattern::Elemwise}},
      {"HardSwish", {l_hard_swish, OpPattern::Elemwise}},
      {"Gelu", {l_gelu, OpPattern::Elemwise}},
      {"Elu", {l_elu, OpPattern::Elemwise}},
      {"Selu", {l_selu, OpPattern::Elemwise}},
      {"Softplus", {l_softplus, OpPattern::Elemwise}},
      {"Softsign", {l_softsign, OpPattern::Elemwise}},
      {"ThresholdedRelu", {l_thresholded_relu, OpPattern::Elemwise}},
      {"PRelu", {l_prelu, OpPattern::Elemwise}},
      {"Clip", {l_clip, OpPattern::Elemwise}},
      {"Cast", {l_cast, OpPattern::Elemwise}},
      {"Where", {l_where, OpPattern::Elemwise}},
      {"BatchNormalization", {l_batch_norm, OpPattern::Elemwise}},
      {"Identity", {l_identity, OpPattern::View}},
      {"Conv", {l_conv, OpPattern::Anchor}},
      {"ConvTranspose", {l_conv_transpose, OpPattern::Anchor}},
      {"MatMul", {l_matmul, OpPattern::Anchor}},
      {"Gemm", {l_gemm, OpPattern::Anchor}},
      {"MaxPool", {l_max_pool, OpPattern::Reduce}},
      {"AveragePool", {l_avg_pool, OpPattern::Reduce}},
      {"GlobalAveragePool", {l_global_avg_pool, OpPattern::Reduce}},
      {"GlobalMaxPool", {l_global_max_pool, OpPattern::Reduce}},
      {"ReduceMean", {l_reduce_mean, OpPattern::Reduce}},
      {"ReduceMax", {l_reduce_max, OpPattern::Reduce}},
      {"ReduceMin", {l_reduce_min, OpPattern::Reduce}},
      {"ReduceProd", {l_reduce_prod, OpPattern::Reduce}},
      {"ReduceSum", {l_reduce_sum, OpPattern::Reduce}},
      {"Softmax", {l_softmax, OpPattern::Reduce}},
      {"LogSoftmax", {l_log_softmax, OpPattern::Reduce}},
      {"Reshape", {l_reshape, OpPattern::View}},
      {"Flatten", {l_flatten, OpPattern::View}},
      {"Squeeze", {l_squeeze, OpPattern::View}},
      {"Unsqueeze", {l_unsqueeze, OpPattern::View}},
      {"Transpose", {l_transpose, OpPattern::Injective}},
      {"Concat", {l_concat, OpPattern::Injective}},
      {"Split", {l_split, OpPattern::Injective}},
      {"Slice", {l_slice, OpPattern::Injective}},
      {"Gather", {l_gather, OpPattern::Injective}},
      {"Expand", {l_expand, OpPattern::Injective}},
      {"Pad", {l_pad, OpPattern::Injective}},
      {"ConstantOfShape", {l_constant_of_shape, OpPattern::Injective}},
      {"Range", {l_range, OpPattern::Injective}},
  };
  return r;
}

}  // namespace lowering

namespace {

// Every group's table in one; an op in two tables is a programming error.
const lowering::OpTable &registry() {
  static const lowering::OpTable r = [] {
    lowering::OpTable all;
    for (const lowering::OpTable *t :
         {&lowering::core_ops(), &lowering::math_ops(), &lowering::indexing_ops(), &lowering::loss_ops(),
          &lowering::rnn_ops(), &lowering::dynamic_ops(), &lowering::select_ops(), &lowering::resize_ops(), &lowering::quant_ops(),
          &lowering::integer_ops(), &lowering::spatial_ops(), &lowering::signal_ops(),
          &lowering::unpool_ops(), &lowering::einsum_ops(), &lowering::cumsum_ops(), &lowering::layout_ops()})
      for (const auto &kv : *t)
        if (!all.emplace(kv.first, kv.second).second)
          throw Error("internal error: ONNX op '" + kv.first + "' has two lowerings");
    return all;
  }();
  return r;
}

}  // namespace

bool is_supported_op(const std::string &op) {
  return registry().count(op) != 0 || is_expanded_op(op) || op == "Constant" || op == "Shape" || op == "Size";
}

std::vector<std::string> supported_ops() {
  std::vector<std::string> v;
  for (auto &kv : registry())
    if (kv.first.compare(0, 7, "tetune.") != 0) v.push_back(kv.first);  // tetune's own ops (layout) are no ONNX op
  v.push_back("Constant");
  v.push_back("Shape");
  v.push_back("Size");
  for (const char *op : {"RNN", "LSTM", "GRU", "If", "Loop", "Scan"}) v.push_back(op);
  std::sort(v.begin(), v.end());
  return v;
}

OpPattern op_pattern(const Node &n) {
  auto it = registry().find(n.op);
  if (it == registry().end()) return OpPattern::Injective;
  bool second_output = n.outputs.size() > 1 && n.outputs[1] >= 0;
  return it->second.pattern == OpPattern::View && second_output ? OpPattern::Injective : it->second.pattern;
}

std::vector<Tensor> lower_node(LowerContext &ctx) {
  auto it = registry().find(ctx.node().op);
  if (it == registry().end()) ctx.fail("unsupported op type '" + ctx.node().op + "'");
  if (ctx.opset() < 7) lowering::check_legacy_opset(ctx);
  std::vector<Tensor> outs;
  try {
    outs = it->second.fn(ctx);
  } catch (const ImportError &) {
    throw;
  } catch (const Error &e) {
    // ShapeError / AttributeError / DTypeError from te/ops: keep the type, add the node
    std::string prefix = ctx.node().op + " node '" + ctx.node().name + "' (opset " + std::to_string(ctx.opset()) + "): ";
    std::string w = e.what();
    std::string msg = w.compare(0, prefix.size(), prefix) == 0 ? w : prefix + w;  // LowerContext checks name the node already
    if (w.find("is empty") != std::string::npos || w.find("non-positive extent") != std::string::npos)
      throw ImportError(msg + " (unsupported: zero-size tensors)");
    if (dynamic_cast<const ShapeError *>(&e)) throw ShapeError(msg);
    if (dynamic_cast<const AttributeError *>(&e)) throw AttributeError(msg);
    if (dynamic_cast<const DTypeError *>(&e)) throw DTypeError(msg);
    throw ImportError(msg);
  } catch (const std::bad_alloc &) {
    ctx.fail("out of memory while lowering (malformed shapes or attributes?)");
  } catch (const std::exception &e) {
    // std::out_of_range / length_error from malformed attribute or constant contents
    ctx.fail(std::string("malformed node: ") + e.what());
  }
  for (size_t i = 0; i < outs.size(); i++) {
    if (!outs[i].defined()) continue;
    ctx.check_shape(outs[i].shape(), "output " + std::to_string(i) + " shape");
    std::string too_large = buffer_too_large(outs[i].shape(), outs[i].dtype());
    if (!too_large.empty())
      ctx.shape_fail("output " + std::to_string(i) + " " + too_large + " (a smaller --input-shape?)");
  }
  return outs;
}

}  // namespace relay
}  // namespace tetune
