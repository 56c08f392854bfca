// Scalar expressions of the tensor-expression language.
//
// An Expr is an immutable tree of nodes: immediates, index variables, tensor
// accesses, unary and binary arithmetic, select, cast, and (only as the body of
// a compute) a reduction over reduce axes. Index variables are int32.
//
// Arithmetic follows Halide's rules: integer `/` is floor division and `%` is
// Euclidean modulo; operands must have equal dtypes, except that an immediate
// (a C++ literal) takes the dtype of the other operand.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "base/dtype.h"

namespace tetune {

struct TensorNode;
struct ExprNode;

/** An index variable (a loop axis). Identity is the node, not the name. */
struct VarNode {
  std::string name;
};

class Var {
 public:
  /** A fresh variable with the given name (names need not be unique). */
  explicit Var(const std::string &name = "v");
  const std::string &name() const { return node_->name; }
  const VarNode *get() const { return node_.get(); }
  const std::shared_ptr<VarNode> &node() const { return node_; }
  bool same_as(const Var &o) const { return node_ == o.node_; }

 private:
  std::shared_ptr<VarNode> node_;
};

/** An axis of a compute: a variable ranging over [0, extent). */
struct IterVar {
  Var var;
  int64_t extent = 0;
  bool is_reduce = false;
};

/** A reduce axis over [0, extent), for sum / max / min / prod. */
IterVar reduce_axis(int64_t extent, const std::string &name = "k");

enum class ExprKind { IntImm, FloatImm, Var, Access, Unary, Binary, Select, Cast, Reduce };
enum class UnaryOp {
  Neg, Not, Exp, Log, Sqrt, Tanh, Erf, Floor, Ceil, Round, Abs, Sin, Cos,
  Tan, Sinh, Cosh, Asin, Acos, Atan, Asinh, Acosh, Atanh,
  IsNan, IsInf,  // float operand, bool result
  BitNot          // integer operand
};
enum class BinaryOp { Add, Sub, Mul, Div, Mod, Min, Max, Pow, EQ, NE, LT, LE, GT, GE, And, Or, BitAnd, BitOr, BitXor };
enum class ReduceOp { Sum, Max, Min, Prod };

const char *to_string(UnaryOp op);
const char *to_string(BinaryOp op);
const char *to_string(ReduceOp op);

/** Handle to an immutable expression node. Default-constructed = undefined. */
class Expr {
 public:
  Expr() = default;
  Expr(int v);      // NOLINT: int32 immediate
  Expr(int64_t v);  // NOLINT: int32 immediate (index arithmetic is int32)
  Expr(float v);    // NOLINT: float32 immediate
  Expr(double v);   // NOLINT: float32 immediate
  Expr(const Var &v);  // NOLINT
  /** The axis's variable: A(i, k) for an IterVar k reads A(i, k.var). */
  Expr(const IterVar &v);  // NOLINT
  explicit Expr(std::shared_ptr<const ExprNode> n) : node_(std::move(n)) {}

  bool defined() const { return node_ != nullptr; }
  const ExprNode *operator->() const { return node_.get(); }
  const ExprNode *get() const { return node_.get(); }
  DType dtype() const;

 private:
  std::shared_ptr<const ExprNode> node_;
};

/** One node; which fields are meaningful depends on kind. */
struct ExprNode {
  ExprKind kind;
  DType dtype;
  int64_t int_value = 0;     // IntImm
  double float_value = 0;    // FloatImm
  std::shared_ptr<VarNode> var;          // Var
  std::shared_ptr<TensorNode> tensor;    // Access
  int op = 0;                            // UnaryOp / BinaryOp / ReduceOp
  std::vector<Expr> args;                // operands, indices, select(c, t, f), cast source
  std::vector<IterVar> reduce_axes;      // Reduce
};

// ---- constructors -------------------------------------------------------
Expr make_int(int64_t v, DType t = int32());
Expr make_float(double v, DType t = float32());
/** Casts e to t (no-op when the dtype is already t). */
Expr cast(DType t, const Expr &e);
/** select(cond, t, f): t where cond is true, else f. cond must be bool. */
Expr select(const Expr &cond, const Expr &t, const Expr &f);
Expr unary(UnaryOp op, const Expr &a);
Expr binary(BinaryOp op, Expr a, Expr b);

Expr operator+(const Expr &a, const Expr &b);
Expr operator-(const Expr &a, const Expr &b);
Expr operator*(const Expr &a, const Expr &b);
Expr operator/(const Expr &a, const Expr &b);
Expr operator%(const Expr &a, const Expr &b);
Expr operator-(const Expr &a);
Expr operator==(const Expr &a, const Expr &b);
Expr operator!=(const Expr &a, const Expr &b);
Expr operator<(const Expr &a, const Expr &b);
Expr operator<=(const Expr &a, const Expr &b);
Expr operator>(const Expr &a, const Expr &b);
Expr operator>=(const Expr &a, const Expr &b);
Expr operator&&(const Expr &a, const Expr &b);
Expr operator||(const Expr &a, const Expr &b);
Expr operator!(const Expr &a);
/**
 * Bitwise and, or, xor and not of integer (signed or unsigned) operands, on
 * their two's-complement bits; DTypeError for float or bool operands (use
 * && / || / ! on bools). ONNX BitwiseAnd / Or / Xor / Not (opset 18).
 */
Expr operator&(const Expr &a, const Expr &b);
Expr operator|(const Expr &a, const Expr &b);
Expr operator^(const Expr &a, const Expr &b);
Expr operator~(const Expr &a);

/**
 * Smaller / larger of a and b. For floats NaN propagates (IEEE 754-2019 minimum / maximum, as ONNX
 * Min / Max and numpy.minimum / maximum): max(NaN, 0) is NaN, so Relu and Clip keep a NaN input.
 * The max / min reductions below follow the same rule.
 */
Expr min(const Expr &a, const Expr &b);
Expr max(const Expr &a, const Expr &b);
Expr pow(const Expr &a, const Expr &b);
/** min(max(e, lo), hi): a NaN e stays NaN. */
Expr clamp(const Expr &e, const Expr &lo, const Expr &hi);
Expr exp(const Expr &a);
Expr log(const Expr &a);
Expr sqrt(const Expr &a);
Expr tanh(const Expr &a);
Expr erf(const Expr &a);
Expr floor(const Expr &a);
Expr ceil(const Expr &a);
/** Round half to even (as ONNX and Halide do). */
Expr round(const Expr &a);
Expr abs(const Expr &a);
Expr sin(const Expr &a);
Expr cos(const Expr &a);
/** Trigonometric and hyperbolic functions and their inverses, as C's libm (NaN outside the domain). */
Expr tan(const Expr &a);
Expr sinh(const Expr &a);
Expr cosh(const Expr &a);
Expr asin(const Expr &a);
Expr acos(const Expr &a);
Expr atan(const Expr &a);
Expr asinh(const Expr &a);
Expr acosh(const Expr &a);
Expr atanh(const Expr &a);
/** True where float a is NaN / +-infinity (tested on the bits in a kernel, so fast-math cannot fold it away). */
Expr is_nan(const Expr &a);
Expr is_inf(const Expr &a);
/** 1 / (1 + exp(-a)). */
Expr sigmoid(const Expr &a);

/** Largest / smallest finite value of t (+-inf for floats), as an immediate. */
Expr max_value(DType t);
Expr min_value(DType t);

// ---- reductions (only allowed as the whole body of a compute) -------------
Expr sum(const Expr &source, const std::vector<IterVar> &axes);
Expr max(const Expr &source, const std::vector<IterVar> &axes);
Expr min(const Expr &source, const std::vector<IterVar> &axes);
/** max(x, {k}) and min(x, {k}) reduce over k (a braced IterVar also converts to Expr, the binary max / min). */
Expr max(const Expr &source, std::initializer_list<IterVar> axes);
Expr min(const Expr &source, std::initializer_list<IterVar> axes);
Expr prod(const Expr &source, const std::vector<IterVar> &axes);
Expr reduce(ReduceOp op, const Expr &source, const std::vector<IterVar> &axes);
/** The identity of a reduction (0 for sum, 1 for prod, -inf for max, +inf for min). */
Expr reduce_identity(ReduceOp op, DType t);

/** A readable rendering such as "(A[i, k] * B[k, j])". */
std::string to_string(const Expr &e);

}  // namespace tetune
