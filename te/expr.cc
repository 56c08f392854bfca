#include "te/expr.h"

#include <cmath>
#include <limits>
#include <sstream>

#include "base/errors.h"
#include "te/tensor.h"

namespace tetune {

Var::Var(const std::string &name) : node_(std::make_shared<VarNode>(VarNode{name})) {}

IterVar reduce_axis(int64_t extent, const std::string &name) {
  if (extent <= 0) throw ShapeError("reduce_axis '" + name + "' has non-positive extent " + std::to_string(extent));
  return IterVar{Var(name), extent, true};
}

const char *to_string(UnaryOp op) {
  static const char *names[] = {"neg", "not", "exp", "log", "sqrt", "tanh", "erf",
                                "floor", "ceil", "round", "abs", "sin", "cos",
                                "tan", "sinh", "cosh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "is_nan", "is_inf", "bit_not"};
  return names[static_cast<int>(op)];
}
const char *to_string(BinaryOp op) {
  static const char *names[] = {"+", "-", "*", "/", "%", "min", "max", "pow",
                                "==", "!=", "<", "<=", ">", ">=", "&&", "||", "&", "|", "^"};
  return names[static_cast<int>(op)];
}
const char *to_string(ReduceOp op) {
  static const char *names[] = {"sum", "max", "min", "prod"};
  return names[static_cast<int>(op)];
}

namespace {
std::shared_ptr<ExprNode> node(ExprKind k, DType t) {
  auto n = std::make_shared<ExprNode>();
  n->kind = k;
  n->dtype = t;
  return n;
}
bool is_imm(const Expr &e) { return e->kind == ExprKind::IntImm || e->kind == ExprKind::FloatImm; }
double imm_value(const Expr &e) {
  return e->kind == ExprKind::IntImm ? static_cast<double>(e->int_value) : e->float_value;
}
Expr imm_as(const Expr &e, DType t) {
  if (t.is_float()) return make_float(imm_value(e), t);
  if (e->kind == ExprKind::FloatImm && e->float_value != std::floor(e->float_value))
    throw DTypeError("immediate " + to_string(e) + " is not integral but is used with " + t.str());
  return make_int(static_cast<int64_t>(imm_value(e)), t);
}
void check_defined(const Expr &e, const char *what) {
  if (!e.defined()) throw Error(std::string("undefined expression passed to ") + what);
}
// Coerces immediates to the other operand's dtype; other mismatches are errors.
void unify(Expr &a, Expr &b, const char *op) {
  if (a.dtype() == b.dtype()) return;
  if (is_imm(b) && !is_imm(a)) { b = imm_as(b, a.dtype()); return; }
  if (is_imm(a) && !is_imm(b)) { a = imm_as(a, b.dtype()); return; }
  if (is_imm(a) && is_imm(b)) {  // int literal with float literal: float wins
    if (a.dtype().is_float()) b = imm_as(b, a.dtype()); else a = imm_as(a, b.dtype());
    return;
  }
  throw DTypeError(std::string("operator ") + op + ": dtype mismatch " + a.dtype().str() + " vs " +
                   b.dtype().str() + " in " + to_string(a) + " and " + to_string(b));
}
}  // namespace

Expr::Expr(int v) : Expr(make_int(v)) {}
Expr::Expr(int64_t v) : Expr(make_int(v)) {}
Expr::Expr(float v) : Expr(make_float(v)) {}
Expr::Expr(double v) : Expr(make_float(v)) {}
Expr::Expr(const IterVar &v) : Expr(v.var) {}
Expr::Expr(const Var &v) {
  auto n = node(ExprKind::Var, int32());
  n->var = v.node();
  node_ = n;
}

DType Expr::dtype() const {
  if (!node_) throw Error("dtype() of an undefined expression");
  return node_->dtype;
}

Expr make_int(int64_t v, DType t) {
  auto n = node(ExprKind::IntImm, t);
  n->int_value = v;
  return Expr(n);
}
Expr make_float(double v, DType t) {
  auto n = node(ExprKind::FloatImm, t);
  n->float_value = v;
  return Expr(n);
}

Expr cast(DType t, const Expr &e) {
  check_defined(e, "cast");
  if (e.dtype() == t) return e;
  auto n = node(ExprKind::Cast, t);
  n->args = {e};
  return Expr(n);
}

Expr select(const Expr &cond, const Expr &t, const Expr &f) {
  check_defined(cond, "select");
  check_defined(t, "select");
  check_defined(f, "select");
  if (!cond.dtype().is_bool()) throw DTypeError("select condition must be bool, got " + cond.dtype().str() + ": " + to_string(cond));
  Expr a = t, b = f;
  unify(a, b, "select");
  auto n = node(ExprKind::Select, a.dtype());
  n->args = {cond, a, b};
  return Expr(n);
}

Expr unary(UnaryOp op, const Expr &a) {
  check_defined(a, to_string(op));
  DType t = a.dtype();
  switch (op) {
    case UnaryOp::Not:
      if (!t.is_bool()) throw DTypeError(std::string("operator ! needs bool, got ") + t.str());
      break;
    case UnaryOp::Neg:
    case UnaryOp::Abs:
      break;
    case UnaryOp::BitNot:
      if (!t.is_int() && !t.is_uint()) throw DTypeError(std::string("operator ~ needs an integer, got ") + t.str() + ": " + to_string(a));
      break;
    default:
      if (!t.is_float()) throw DTypeError(std::string(to_string(op)) + " needs a float operand, got " + t.str() + ": " + to_string(a));
  }
  auto n = node(ExprKind::Unary, op == UnaryOp::IsNan || op == UnaryOp::IsInf ? boolean() : t);
  n->op = static_cast<int>(op);
  n->args = {a};
  return Expr(n);
}

Expr binary(BinaryOp op, Expr a, Expr b) {
  check_defined(a, to_string(op));
  check_defined(b, to_string(op));
  unify(a, b, to_string(op));
  DType t = a.dtype();
  bool compare = op >= BinaryOp::EQ && op <= BinaryOp::GE;
  bool logical = op == BinaryOp::And || op == BinaryOp::Or;
  if (logical && !t.is_bool()) throw DTypeError(std::string("operator ") + to_string(op) + " needs bool operands, got " + t.str());
  if (op == BinaryOp::Pow && !t.is_float()) throw DTypeError("pow needs float operands, got " + t.str());
  bool bitwise = op == BinaryOp::BitAnd || op == BinaryOp::BitOr || op == BinaryOp::BitXor;
  if (bitwise && !t.is_int() && !t.is_uint())
    throw DTypeError(std::string("operator ") + to_string(op) + " needs integer operands, got " + t.str());
  auto n = node(ExprKind::Binary, compare ? boolean() : t);
  n->op = static_cast<int>(op);
  n->args = {a, b};
  return Expr(n);
}

Expr operator+(const Expr &a, const Expr &b) { return binary(BinaryOp::Add, a, b); }
Expr operator-(const Expr &a, const Expr &b) { return binary(BinaryOp::Sub, a, b); }
Expr operator*(const Expr &a, const Expr &b) { return binary(BinaryOp::Mul, a, b); }
Expr operator/(const Expr &a, const Expr &b) { return binary(BinaryOp::Div, a, b); }
Expr operator%(const Expr &a, const Expr &b) { return binary(BinaryOp::Mod, a, b); }
Expr operator-(const Expr &a) { return unary(UnaryOp::Neg, a); }
Expr operator==(const Expr &a, const Expr &b) { return binary(BinaryOp::EQ, a, b); }
Expr operator!=(const Expr &a, const Expr &b) { return binary(BinaryOp::NE, a, b); }
Expr operator<(const Expr &a, const Expr &b) { return binary(BinaryOp::LT, a, b); }
Expr operator<=(const Expr &a, const Expr &b) { return binary(BinaryOp::LE, a, b); }
Expr operator>(const Expr &a, const Expr &b) { return binary(BinaryOp::GT, a, b); }
Expr operator>=(const Expr &a, const Expr &b) { return binary(BinaryOp::GE, a, b); }
Expr operator&&(const Expr &a, const Expr &b) { return binary(BinaryOp::And, a, b); }
Expr operator||(const Expr &a, const Expr &b) { return binary(BinaryOp::Or, a, b); }
Expr operator!(const Expr &a) { return unary(UnaryOp::Not, a); }
Expr operator&(const Expr &a, const Expr &b) { return binary(BinaryOp::BitAnd, a, b); }
Expr operator|(const Expr &a, const Expr &b) { return binary(BinaryOp::BitOr, a, b); }
Expr operator^(const Expr &a, const Expr &b) { return binary(BinaryOp::BitXor, a, b); }
Expr operator~(const Expr &a) { return unary(UnaryOp::BitNot, a); }

Expr min(const Expr &a, const Expr &b) { return binary(BinaryOp::Min, a, b); }
Expr max(const Expr &a, const Expr &b) { return binary(BinaryOp::Max, a, b); }
Expr pow(const Expr &a, const Expr &b) { return binary(BinaryOp::Pow, a, b); }
Expr clamp(const Expr &e, const Expr &lo, const Expr &hi) { return min(max(e, lo), hi); }
Expr exp(const Expr &a) { return unary(UnaryOp::Exp, a); }
Expr log(const Expr &a) { return unary(UnaryOp::Log, a); }
Expr sqrt(const Expr &a) { return unary(UnaryOp::Sqrt, a); }
Expr tanh(const Expr &a) { return unary(UnaryOp::Tanh, a); }
Expr erf(const Expr &a) { return unary(UnaryOp::Erf, a); }
Expr floor(const Expr &a) { return unary(UnaryOp::Floor, a); }
Expr ceil(const Expr &a) { return unary(UnaryOp::Ceil, a); }
Expr round(const Expr &a) { return unary(UnaryOp::Round, a); }
Expr abs(const Expr &a) { return unary(UnaryOp::Abs, a); }
Expr sin(const Expr &a) { return unary(UnaryOp::Sin, a); }
Expr cos(const Expr &a) { return unary(UnaryOp::Cos, a); }
Expr tan(const Expr &a) { return unary(UnaryOp::Tan, a); }
Expr sinh(const Expr &a) { return unary(UnaryOp::Sinh, a); }
Expr cosh(const Expr &a) { return unary(UnaryOp::Cosh, a); }
Expr asin(const Expr &a) { return unary(UnaryOp::Asin, a); }
Expr acos(const Expr &a) { return unary(UnaryOp::Acos, a); }
Expr atan(const Expr &a) { return unary(UnaryOp::Atan, a); }
Expr asinh(const Expr &a) { return unary(UnaryOp::Asinh, a); }
Expr acosh(const Expr &a) { return unary(UnaryOp::Acosh, a); }
Expr atanh(const Expr &a) { return unary(UnaryOp::Atanh, a); }
Expr is_nan(const Expr &a) { return unary(UnaryOp::IsNan, a); }
Expr is_inf(const Expr &a) { return unary(UnaryOp::IsInf, a); }
Expr sigmoid(const Expr &a) { return 1.0f / (1.0f + exp(-a)); }

Expr max_value(DType t) {
  if (t.is_float()) return make_float(std::numeric_limits<double>::infinity(), t);
  if (t.is_bool()) return make_int(1, t);
  if (t.is_uint()) return make_int(t.bits >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << t.bits) - 1, t);
  return make_int(t.bits >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (t.bits - 1)) - 1, t);
}
Expr min_value(DType t) {
  if (t.is_float()) return make_float(-std::numeric_limits<double>::infinity(), t);
  if (t.is_bool() || t.is_uint()) return make_int(0, t);
  return make_int(t.bits >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (t.bits - 1)), t);
}

Expr reduce_identity(ReduceOp op, DType t) {
  switch (op) {
    case ReduceOp::Sum: return t.is_float() ? make_float(0, t) : make_int(0, t);
    case ReduceOp::Prod: return t.is_float() ? make_float(1, t) : make_int(1, t);
    case ReduceOp::Max: return min_value(t);
    case ReduceOp::Min: return max_value(t);
  }
  throw Error("unknown reduction");
}

Expr reduce(ReduceOp op, const Expr &source, const std::vector<IterVar> &axes) {
  check_defined(source, to_string(op));
  if (axes.empty()) throw Error(std::string("reduction ") + to_string(op) + " has no reduce axes");
  for (const auto &a : axes)
    if (!a.is_reduce) throw Error(std::string("reduction ") + to_string(op) + ": axis '" + a.var.name() + "' is not a reduce_axis");
  auto n = node(ExprKind::Reduce, source.dtype());
  n->op = static_cast<int>(op);
  n->args = {source};
  n->reduce_axes = axes;
  return Expr(n);
}
Expr sum(const Expr &s, const std::vector<IterVar> &axes) { return reduce(ReduceOp::Sum, s, axes); }
Expr max(const Expr &s, const std::vector<IterVar> &axes) { return reduce(ReduceOp::Max, s, axes); }
Expr min(const Expr &s, const std::vector<IterVar> &axes) { return reduce(ReduceOp::Min, s, axes); }
Expr max(const Expr &s, std::initializer_list<IterVar> axes) { return reduce(ReduceOp::Max, s, axes); }
Expr min(const Expr &s, std::initializer_list<IterVar> axes) { return reduce(ReduceOp::Min, s, axes); }
Expr prod(const Expr &s, const std::vector<IterVar> &axes) { return reduce(ReduceOp::Prod, s, axes); }

namespace {
void print(std::ostream &os, const Expr &e) {
  switch (e->kind) {
    case ExprKind::IntImm: os << e->int_value; break;
    case ExprKind::FloatImm: os << e->float_value << "f"; break;
    case ExprKind::Var: os << e->var->name; break;
    case ExprKind::Access:
      os << e->tensor->name << "[";
      for (size_t i = 0; i < e->args.size(); i++) { if (i) os << ", "; print(os, e->args[i]); }
      os << "]";
      break;
    case ExprKind::Unary:
      os << to_string(static_cast<UnaryOp>(e->op)) << "(";
      print(os, e->args[0]);
      os << ")";
      break;
    case ExprKind::Binary: {
      auto op = static_cast<BinaryOp>(e->op);
      if (op == BinaryOp::Min || op == BinaryOp::Max || op == BinaryOp::Pow) {
        os << to_string(op) << "(";
        print(os, e->args[0]);
        os << ", ";
        print(os, e->args[1]);
        os << ")";
      } else {
        os << "(";
        print(os, e->args[0]);
        os << " " << to_string(op) << " ";
        print(os, e->args[1]);
        os << ")";
      }
      break;
    }
    case ExprKind::Select:
      os << "select(";
      print(os, e->args[0]); os << ", "; print(os, e->args[1]); os << ", "; print(os, e->args[2]);
      os << ")";
      break;
    case ExprKind::Cast: os << e->dtype.str() << "("; print(os, e->args[0]); os << ")"; break;
    case ExprKind::Reduce:
      os << to_string(static_cast<ReduceOp>(e->op)) << "(";
      print(os, e->args[0]);
      os << ", axes=[";
      for (size_t i = 0; i < e->reduce_axes.size(); i++)
        os << (i ? ", " : "") << e->reduce_axes[i].var.name() << ":" << e->reduce_axes[i].extent;
      os << "])";
      break;
  }
}
}  // namespace

std::string to_string(const Expr &e) {
  if (!e.defined()) return "<undefined>";
  std::ostringstream os;
  print(os, e);
  return os.str();
}

}  // namespace tetune
