#include "te/interpreter.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <sstream>

#include "base/errors.h"

namespace tetune {

namespace {

// A value: `f` for float dtypes, `i` for integer and bool dtypes.
struct Val {
  double f = 0;
  int64_t i = 0;
};

// Wraps an integer to the bit width of t (two's complement), bool to 0/1.
int64_t wrap(int64_t v, DType t) {
  if (t.is_bool()) return v != 0;
  if (t.bits >= 64) return v;
  uint64_t u = static_cast<uint64_t>(v);
  if (t.is_uint()) return static_cast<int64_t>(u & ((uint64_t(1) << t.bits) - 1));
  int sh = 64 - t.bits;
  return static_cast<int64_t>(u << sh) >> sh;
}

// Rounds a double to the precision of float dtype t.
double round_float(double v, DType t) {
  if (t.bits == 64) return v;
  if (t.code == DType::BFloat) return bfloat_to_float(float_to_bfloat(static_cast<float>(v)));
  if (t.bits == 16) return half_to_float(float_to_half(static_cast<float>(v)));
  return static_cast<float>(v);
}

int64_t read_int(const NDArray &a, int64_t k) {
  const void *p = a.raw();
  DType t = a.dtype();
  if (t.is_bool()) return static_cast<const uint8_t *>(p)[k] != 0;
  if (t.is_uint()) {
    switch (t.bits) {
      case 8: return static_cast<const uint8_t *>(p)[k];
      case 16: return static_cast<const uint16_t *>(p)[k];
      case 32: return static_cast<const uint32_t *>(p)[k];
      default: return static_cast<int64_t>(static_cast<const uint64_t *>(p)[k]);
    }
  }
  switch (t.bits) {
    case 8: return static_cast<const int8_t *>(p)[k];
    case 16: return static_cast<const int16_t *>(p)[k];
    case 32: return static_cast<const int32_t *>(p)[k];
    default: return static_cast<const int64_t *>(p)[k];
  }
}

void write_int(NDArray &a, int64_t k, int64_t v) {
  void *p = a.raw();
  DType t = a.dtype();
  v = wrap(v, t);
  if (t.is_bool() || t.bits == 8) { static_cast<uint8_t *>(p)[k] = static_cast<uint8_t>(v); return; }
  switch (t.bits) {
    case 16: static_cast<uint16_t *>(p)[k] = static_cast<uint16_t>(v); return;
    case 32: static_cast<uint32_t *>(p)[k] = static_cast<uint32_t>(v); return;
    default: static_cast<uint64_t *>(p)[k] = static_cast<uint64_t>(v); return;
  }
}

// IEEE 754-2019 maximum / minimum: NaN when either operand is NaN (as compiled kernels do).
double nan_max(double x, double y) { return std::isnan(x) || std::isnan(y) ? x + y : std::max(x, y); }
double nan_min(double x, double y) { return std::isnan(x) || std::isnan(y) ? x + y : std::min(x, y); }

// Halide integer division / modulo (Euclidean; division by zero gives zero).
int64_t int_div(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t q = a / b, r = a % b;
  if (r < 0) q += b > 0 ? -1 : 1;
  return q;
}
int64_t int_mod(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t r = a % b;
  if (r < 0) r += b > 0 ? b : -b;
  return r;
}

// An Expr with variables resolved to slots and tensors to arrays.
struct Node {
  ExprKind kind;
  DType dtype;
  int op = 0;
  int64_t ival = 0;
  double fval = 0;
  int slot = -1;
  const NDArray *array = nullptr;
  const TensorNode *tensor = nullptr;
  std::vector<Node> args;
  std::vector<std::pair<int, int64_t>> raxes;  // Reduce: (slot, extent)
};

struct Compiler {
  std::map<const VarNode *, int> slots;
  const std::map<const TensorNode *, NDArray> *values;
  std::string stage;

  Node compile(const Expr &e) {
    Node n;
    n.kind = e->kind;
    n.dtype = e->dtype;
    n.op = e->op;
    switch (e->kind) {
      case ExprKind::IntImm: n.ival = wrap(e->int_value, e->dtype); break;
      case ExprKind::FloatImm: n.fval = round_float(e->float_value, e->dtype); break;  // a float32 immediate is a float32 value
      case ExprKind::Var: {
        auto it = slots.find(e->var.get());
        if (it == slots.end())
          throw Error("interpret: compute '" + stage + "' uses variable '" + e->var->name +
                      "' that is neither one of its axes nor a reduce axis in scope");
        n.slot = it->second;
        break;
      }
      case ExprKind::Access: {
        auto it = values->find(e->tensor.get());
        if (it == values->end())
          throw Error("interpret: compute '" + stage + "' reads tensor '" + e->tensor->name + "' before it is computed");
        n.array = &it->second;
        n.tensor = e->tensor.get();
        break;
      }
      case ExprKind::Reduce:
        for (const auto &a : e->reduce_axes) {
          int s = static_cast<int>(slots.size());
          slots[a.var.get()] = s;
          n.raxes.push_back({s, a.extent});
        }
        break;
      default: break;
    }
    for (const auto &a : e->args) n.args.push_back(compile(a));
    return n;
  }
};

struct Evaluator {
  std::vector<int64_t> env;
  std::string stage;

  double fv(const Val &v, DType t) const { return t.is_float() ? v.f : static_cast<double>(v.i); }

  Val eval(const Node &n) {
    Val r;
    const bool fl = n.dtype.is_float();
    switch (n.kind) {
      case ExprKind::IntImm: r.i = n.ival; return r;
      case ExprKind::FloatImm: r.f = n.fval; return r;
      case ExprKind::Var: r.i = env[n.slot]; return r;
      case ExprKind::Access: {
        const Shape &shape = n.array->shape();
        int64_t flat = 0;
        for (size_t d = 0; d < n.args.size(); d++) {
          int64_t idx = eval(n.args[d]).i;
          if (idx < 0 || idx >= shape[d]) {
            std::ostringstream os;
            os << "interpret: compute '" << stage << "' reads tensor '" << n.tensor->name << "' out of range: index "
               << idx << " on axis " << d << " (extent " << shape[d] << ", shape " << shape_str(shape) << ")";
            throw Error(os.str());
          }
          flat = flat * shape[d] + idx;
        }
        if (fl) r.f = n.array->get(flat); else r.i = read_int(*n.array, flat);
        return r;
      }
      case ExprKind::Cast: {
        DType from = n.args[0].dtype;
        Val a = eval(n.args[0]);
        if (fl) {
          r.f = round_float(from.is_float() ? a.f : static_cast<double>(a.i), n.dtype);
        } else if (n.dtype.is_bool()) {
          r.i = from.is_float() ? (a.f != 0) : (a.i != 0);
        } else if (from.is_float()) {
          double t = std::trunc(a.f);
          if (std::isnan(t)) t = 0;
          t = std::max(t, -9.2233720368547758e18);
          t = std::min(t, 9.2233720368547748e18);
          r.i = wrap(static_cast<int64_t>(t), n.dtype);
        } else {
          r.i = wrap(a.i, n.dtype);
        }
        return r;
      }
      case ExprKind::Select: {
        // Both operands are evaluated (strict: both must be in range).
        Val c = eval(n.args[0]);
        Val t = eval(n.args[1]);
        Val f = eval(n.args[2]);
        return c.i ? t : f;
      }
      case ExprKind::Unary: {
        Val a = eval(n.args[0]);
        auto op = static_cast<UnaryOp>(n.op);
        if (!fl) {
          switch (op) {
            case UnaryOp::Neg: r.i = wrap(static_cast<int64_t>(0ULL - static_cast<uint64_t>(a.i)), n.dtype); break;
            case UnaryOp::Abs: r.i = wrap(a.i < 0 ? static_cast<int64_t>(0ULL - static_cast<uint64_t>(a.i)) : a.i, n.dtype); break;
            case UnaryOp::Not: r.i = !a.i; break;
            case UnaryOp::IsNan: r.i = std::isnan(a.f); break;  // float operand, bool result
            case UnaryOp::IsInf: r.i = std::isinf(a.f); break;
            case UnaryOp::BitNot: r.i = wrap(~a.i, n.dtype); break;
            default: throw Error(std::string("interpret: ") + to_string(op) + " on a non-float value in '" + stage + "'");
          }
          return r;
        }
        double x = a.f;
        switch (op) {
          case UnaryOp::Neg: r.f = -x; break;
          case UnaryOp::Abs: r.f = std::fabs(x); break;
          case UnaryOp::Exp: r.f = std::exp(x); break;
          case UnaryOp::Log: r.f = std::log(x); break;
          case UnaryOp::Sqrt: r.f = std::sqrt(x); break;
          case UnaryOp::Tanh: r.f = std::tanh(x); break;
          case UnaryOp::Erf: r.f = std::erf(x); break;
          case UnaryOp::Floor: r.f = std::floor(x); break;
          case UnaryOp::Ceil: r.f = std::ceil(x); break;
          case UnaryOp::Round: r.f = std::nearbyint(x); break;  // default rounding mode: half to even
          case UnaryOp::Sin: r.f = std::sin(x); break;
          case UnaryOp::Cos: r.f = std::cos(x); break;
          case UnaryOp::Tan: r.f = std::tan(x); break;
          case UnaryOp::Sinh: r.f = std::sinh(x); break;
          case UnaryOp::Cosh: r.f = std::cosh(x); break;
          case UnaryOp::Asin: r.f = std::asin(x); break;
          case UnaryOp::Acos: r.f = std::acos(x); break;
          case UnaryOp::Atan: r.f = std::atan(x); break;
          case UnaryOp::Asinh: r.f = std::asinh(x); break;
          case UnaryOp::Acosh: r.f = std::acosh(x); break;
          case UnaryOp::Atanh: r.f = std::atanh(x); break;
          case UnaryOp::Not: throw Error("interpret: ! on a float value in '" + stage + "'");
          case UnaryOp::IsNan: case UnaryOp::IsInf: throw Error("interpret: is_nan / is_inf with a float result in '" + stage + "'");
          case UnaryOp::BitNot: throw Error("interpret: ~ on a float value in '" + stage + "'");
        }
        return r;
      }
      case ExprKind::Binary: {
        auto op = static_cast<BinaryOp>(n.op);
        DType ot = n.args[0].dtype;  // operand dtype (both equal)
        Val a = eval(n.args[0]), b = eval(n.args[1]);
        if (op >= BinaryOp::EQ && op <= BinaryOp::GE) {
          bool res;
          if (ot.is_float()) {
            double x = a.f, y = b.f;
            switch (op) {
              case BinaryOp::EQ: res = x == y; break;
              case BinaryOp::NE: res = x != y; break;
              case BinaryOp::LT: res = x < y; break;
              case BinaryOp::LE: res = x <= y; break;
              case BinaryOp::GT: res = x > y; break;
              default: res = x >= y; break;
            }
          } else {
            int64_t x = a.i, y = b.i;
            switch (op) {
              case BinaryOp::EQ: res = x == y; break;
              case BinaryOp::NE: res = x != y; break;
              case BinaryOp::LT: res = x < y; break;
              case BinaryOp::LE: res = x <= y; break;
              case BinaryOp::GT: res = x > y; break;
              default: res = x >= y; break;
            }
          }
          r.i = res;
          return r;
        }
        if (op == BinaryOp::And) { r.i = a.i && b.i; return r; }
        if (op == BinaryOp::Or) { r.i = a.i || b.i; return r; }
        if (fl) {
          double x = a.f, y = b.f;
          switch (op) {
            case BinaryOp::Add: r.f = x + y; break;
            case BinaryOp::Sub: r.f = x - y; break;
            case BinaryOp::Mul: r.f = x * y; break;
            case BinaryOp::Div: r.f = x / y; break;
            case BinaryOp::Mod: r.f = x - y * std::floor(x / y); break;
            case BinaryOp::Min: r.f = nan_min(x, y); break;
            case BinaryOp::Max: r.f = nan_max(x, y); break;
            case BinaryOp::Pow: r.f = std::pow(x, y); break;
            default: throw Error("interpret: bad float binary op in '" + stage + "'");
          }
          return r;
        }
        uint64_t x = static_cast<uint64_t>(a.i), y = static_cast<uint64_t>(b.i);
        int64_t v;
        switch (op) {
          case BinaryOp::Add: v = static_cast<int64_t>(x + y); break;
          case BinaryOp::Sub: v = static_cast<int64_t>(x - y); break;
          case BinaryOp::Mul: v = static_cast<int64_t>(x * y); break;
          case BinaryOp::Div: v = int_div(a.i, b.i); break;
          case BinaryOp::Mod: v = int_mod(a.i, b.i); break;
          case BinaryOp::Min: v = std::min(a.i, b.i); break;
          case BinaryOp::Max: v = std::max(a.i, b.i); break;
          case BinaryOp::BitAnd: v = a.i & b.i; break;
          case BinaryOp::BitOr: v = a.i | b.i; break;
          case BinaryOp::BitXor: v = a.i ^ b.i; break;
          default: throw Error("interpret: bad integer binary op in '" + stage + "'");
        }
        r.i = wrap(v, n.dtype);
        return r;
      }
      case ExprKind::Reduce:
        throw Error("interpret: compute '" + stage + "' has a reduction below the root of its body");
    }
    return r;
  }

  // Evaluates a reduction rooted at n over all its reduce axes.
  Val reduce(const Node &n) {
    auto op = static_cast<ReduceOp>(n.op);
    const bool fl = n.dtype.is_float();
    Val acc;
    if (fl) {
      acc.f = op == ReduceOp::Sum ? 0.0 : op == ReduceOp::Prod ? 1.0
            : op == ReduceOp::Max ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    } else {
      Expr id = reduce_identity(op, n.dtype);
      acc.i = id->int_value;
    }
    const size_t na = n.raxes.size();
    for (auto &ax : n.raxes) env[ax.first] = 0;
    while (true) {
      Val v = eval(n.args[0]);
      if (fl) {
        switch (op) {
          case ReduceOp::Sum: acc.f += v.f; break;
          case ReduceOp::Prod: acc.f *= v.f; break;
          case ReduceOp::Max: acc.f = nan_max(acc.f, v.f); break;
          case ReduceOp::Min: acc.f = nan_min(acc.f, v.f); break;
        }
      } else {
        uint64_t x = static_cast<uint64_t>(acc.i), y = static_cast<uint64_t>(v.i);
        switch (op) {
          case ReduceOp::Sum: acc.i = wrap(static_cast<int64_t>(x + y), n.dtype); break;
          case ReduceOp::Prod: acc.i = wrap(static_cast<int64_t>(x * y), n.dtype); break;
          case ReduceOp::Max: acc.i = std::max(acc.i, v.i); break;
          case ReduceOp::Min: acc.i = std::min(acc.i, v.i); break;
        }
      }
      // Odometer increment, innermost (last) axis fastest.
      size_t d = na;
      while (d > 0) {
        auto &ax = n.raxes[d - 1];
        if (++env[ax.first] < ax.second) break;
        env[ax.first] = 0;
        d--;
      }
      if (d == 0) break;
    }
    return acc;
  }
};

void compute_into(const Tensor &t, std::map<const TensorNode *, NDArray> &values) {
  Compiler c;
  c.values = &values;
  c.stage = t.name();
  for (size_t i = 0; i < t->axes.size(); i++) c.slots[t->axes[i].var.get()] = static_cast<int>(i);
  Node body = c.compile(t->body);
  Evaluator ev;
  ev.stage = t.name();
  ev.env.assign(c.slots.size(), 0);
  NDArray out(t.shape(), t.dtype());
  const bool fl = t.dtype().is_float();
  const int r = t.ndim();
  for (int64_t flat = 0; flat < out.size(); flat++) {
    int64_t rem = flat;
    for (int d = r - 1; d >= 0; d--) {
      ev.env[d] = rem % t.shape()[d];
      rem /= t.shape()[d];
    }
    Val v = body.kind == ExprKind::Reduce ? ev.reduce(body) : ev.eval(body);
    if (fl) out.set(flat, v.f); else write_int(out, flat, v.i);
  }
  values[t.node().get()] = std::move(out);
}

}  // namespace

std::vector<NDArray> interpret(const std::vector<Tensor> &outputs, const std::vector<Tensor> &inputs,
                               const std::vector<NDArray> &input_data) {
  if (inputs.size() != input_data.size())
    throw ShapeError("interpret: " + std::to_string(inputs.size()) + " input tensors but " +
                     std::to_string(input_data.size()) + " arrays");
  std::map<const TensorNode *, NDArray> values;
  for (size_t i = 0; i < inputs.size(); i++) {
    const Tensor &t = inputs[i];
    if (!t.defined()) throw ShapeError("interpret: input " + std::to_string(i) + " is an undefined tensor");
    const NDArray &a = input_data[i];
    if (a.shape() != t.shape())
      throw ShapeError("interpret: input '" + t.name() + "' has shape " + shape_str(t.shape()) + " but its data has shape " +
                       shape_str(a.shape()));
    if (a.dtype() != t.dtype())
      throw ShapeError("interpret: input '" + t.name() + "' has dtype " + t.dtype().str() + " but its data has dtype " +
                       a.dtype().str());
    values[t.node().get()] = a;
  }
  for (const auto &o : outputs)
    if (!o.defined()) throw ShapeError("interpret: an output is an undefined tensor");
  // Post order that stops at tensors bound to data.
  std::function<void(const Tensor &)> walk = [&](const Tensor &t) {
    if (values.count(t.node().get())) return;
    if (t.is_placeholder()) throw ShapeError("interpret: placeholder '" + t.name() + "' is not among the inputs");
    for (const auto &in : t.inputs()) walk(in);
    compute_into(t, values);
  };
  for (const auto &o : outputs) walk(o);
  std::vector<NDArray> result;
  for (const auto &o : outputs) result.push_back(values.at(o.node().get()));
  return result;
}

}  // namespace tetune
