// Bindings of te/: expressions, axes, tensors, compute, reductions,
// intrinsics, the workload key and the reference interpreter.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "base/errors.h"
#include "python/src/arrays.h"
#include "python/src/bindings.h"
#include "python/src/convert.h"
#include "te/interpreter.h"
#include "te/structural_hash.h"
#include "te/tensor.h"

namespace py = pybind11;
using namespace pybind11::literals;

namespace tetune::python {

namespace {

const char *kind_name(ExprKind k) {
  switch (k) {
    case ExprKind::IntImm: return "int";
    case ExprKind::FloatImm: return "float";
    case ExprKind::Var: return "var";
    case ExprKind::Access: return "access";
    case ExprKind::Unary: return "unary";
    case ExprKind::Binary: return "binary";
    case ExprKind::Select: return "select";
    case ExprKind::Cast: return "cast";
    case ExprKind::Reduce: return "reduce";
  }
  return "?";
}

ReduceOp reduce_op(const std::string &name) {
  if (name == "sum") return ReduceOp::Sum;
  if (name == "max") return ReduceOp::Max;
  if (name == "min") return ReduceOp::Min;
  if (name == "prod") return ReduceOp::Prod;
  throw AttributeError("unknown reducer '" + name + "' (sum, max, min or prod)");
}

// & | ~ mean logical and / or / not on bool operands (Python's `and` cannot be
// overloaded), bitwise operations on integers (the C++ operators check dtypes).
Expr and_op(const Expr &a, const Expr &b) { return a.dtype().is_bool() ? (a && b) : (a & b); }
Expr or_op(const Expr &a, const Expr &b) { return a.dtype().is_bool() ? (a || b) : (a | b); }
Expr floordiv(const Expr &a, const Expr &b) {
  Expr q = a / b;  // integers: floor division already (Halide semantics)
  return q.dtype().is_float() ? floor(q) : q;
}

/** Arithmetic, comparison and logic operators for a class whose values convert to Expr. */
template <typename Cls>
void add_operators(Cls &cls) {
  using Fn = Expr (*)(const Expr &, const Expr &);
  auto binary_pair = [&](const char *name, const char *rname, Fn f) {
    cls.def(name, [f](py::handle a, py::handle b) { return f(to_expr(a), to_expr(b)); }, py::is_operator());
    if (rname) cls.def(rname, [f](py::handle a, py::handle b) { return f(to_expr(b), to_expr(a)); }, py::is_operator());
  };
  binary_pair("__add__", "__radd__", [](const Expr &a, const Expr &b) { return a + b; });
  binary_pair("__sub__", "__rsub__", [](const Expr &a, const Expr &b) { return a - b; });
  binary_pair("__mul__", "__rmul__", [](const Expr &a, const Expr &b) { return a * b; });
  binary_pair("__truediv__", "__rtruediv__", [](const Expr &a, const Expr &b) { return a / b; });
  binary_pair("__floordiv__", "__rfloordiv__", &floordiv);
  binary_pair("__mod__", "__rmod__", [](const Expr &a, const Expr &b) { return a % b; });
  binary_pair("__pow__", "__rpow__", [](const Expr &a, const Expr &b) { return pow(a, b); });
  binary_pair("__and__", "__rand__", &and_op);
  binary_pair("__or__", "__ror__", &or_op);
  binary_pair("__xor__", "__rxor__", [](const Expr &a, const Expr &b) { return a ^ b; });
  binary_pair("__eq__", nullptr, [](const Expr &a, const Expr &b) { return a == b; });
  binary_pair("__ne__", nullptr, [](const Expr &a, const Expr &b) { return a != b; });
  binary_pair("__lt__", nullptr, [](const Expr &a, const Expr &b) { return a < b; });
  binary_pair("__le__", nullptr, [](const Expr &a, const Expr &b) { return a <= b; });
  binary_pair("__gt__", nullptr, [](const Expr &a, const Expr &b) { return a > b; });
  binary_pair("__ge__", nullptr, [](const Expr &a, const Expr &b) { return a >= b; });
  cls.def("__neg__", [](py::handle a) { return -to_expr(a); });
  cls.def("__pos__", [](py::handle a) { return to_expr(a); });
  cls.def("__abs__", [](py::handle a) { return abs(to_expr(a)); });
  cls.def("__invert__", [](py::handle a) {
    Expr e = to_expr(a);
    return e.dtype().is_bool() ? !e : ~e;
  });
  cls.def("astype", [](py::handle a, DType t) { return cast(t, to_expr(a)); }, "dtype"_a,
          "This value converted to dtype (float -> int truncates toward zero).");
  // `if x < 3:` inside a compute lambda would otherwise silently take a branch.
  cls.def("__bool__", [](py::handle) -> bool {
    throw py::type_error(
        "a tensor expression has no truth value: use te.select(cond, a, b) for a conditional, "
        "& | ~ for and / or / not");
  });
  cls.attr("__hash__") = py::none();  // == builds an expression, so values are not hashable
}

std::vector<Expr> indices_of(py::handle index) {
  std::vector<Expr> out;
  if (py::isinstance<py::tuple>(index))
    for (py::handle h : index) out.push_back(to_expr(h));
  else
    out.push_back(to_expr(index));
  return out;
}

std::vector<IterVar> axes_of(const Tensor &t) {
  return t.is_placeholder() ? std::vector<IterVar>{} : t->axes;
}

std::vector<IterVar> reduce_axes_of(const Tensor &t) {
  if (t.is_placeholder() || t->body->kind != ExprKind::Reduce) return {};
  return t->body->reduce_axes;
}

py::tuple shape_tuple(const Shape &s) { return py::tuple(py::cast(s)); }

}  // namespace

void bind_te(py::module_ &m) {
  py::class_<Expr> expr(m, "Expr", "An immutable scalar expression of the tensor-expression language (te/expr.h).");
  expr.def_property_readonly("dtype", &Expr::dtype)
      .def_property_readonly("kind", [](const Expr &e) { return kind_name(e->kind); },
                             "'int', 'float', 'var', 'access', 'unary', 'binary', 'select', 'cast' or 'reduce'")
      .def_property_readonly("value", [](const Expr &e) -> py::object {
            if (e->kind == ExprKind::IntImm) return py::int_(e->int_value);
            if (e->kind == ExprKind::FloatImm) return py::float_(e->float_value);
            return py::none();
          }, "The value of an immediate; None for other expressions.")
      .def_property_readonly("name", [](const Expr &e) -> py::object {
            return e->kind == ExprKind::Var ? py::str(e->var->name) : py::object(py::none());
          }, "The variable's name; None for other expressions.")
      .def("__repr__", [](const Expr &e) { return to_string(e); });
  add_operators(expr);

  py::class_<IterVar> iter_var(m, "IterVar", "An axis: a variable over [0, extent); a reduce axis when is_reduce.");
  iter_var.def_property_readonly("name", [](const IterVar &v) { return v.var.name(); })
      .def_property_readonly("extent", [](const IterVar &v) { return v.extent; })
      .def_property_readonly("is_reduce", [](const IterVar &v) { return v.is_reduce; })
      .def_property_readonly("var", [](const IterVar &v) { return Expr(v.var); })
      .def("__repr__", [](const IterVar &v) {
        return std::string(v.is_reduce ? "reduce_axis(" : "axis(") + v.var.name() + ", " + std::to_string(v.extent) + ")";
      });
  add_operators(iter_var);

  py::class_<Tensor>(m, "Tensor", "A placeholder (an input) or a compute (te/tensor.h).")
      .def_property_readonly("name", &Tensor::name)
      .def_property_readonly("shape", [](const Tensor &t) { return shape_tuple(t.shape()); })
      .def_property_readonly("dtype", &Tensor::dtype)
      .def_property_readonly("ndim", &Tensor::ndim)
      .def_property_readonly("size", &Tensor::size, "Number of elements.")
      .def_property_readonly("is_placeholder", &Tensor::is_placeholder)
      .def_property_readonly("tag", [](const Tensor &t) { return t->tag; }, "Operator family: 'matmul', 'conv2d', ...")
      .def_property_readonly("attrs", [](const Tensor &t) { return t->attrs; }, "Operator attributes (strings).")
      .def_property_readonly("axes", &axes_of, "The spatial axes of a compute, outermost first (empty for a placeholder).")
      .def_property_readonly("reduce_axes", &reduce_axes_of, "The reduce axes of a reduction compute, else empty.")
      .def_property_readonly("body", [](const Tensor &t) -> py::object {
            return t.is_placeholder() ? py::object(py::none()) : py::cast(t->body);
          }, "The value of a compute at its axes (None for a placeholder).")
      .def("inputs", &Tensor::inputs, "Tensors this compute reads, in first-use order (empty for a placeholder).")
      .def("__getitem__", [](const Tensor &t, py::handle index) { return t(indices_of(index)); },
           "T[i, j]: the element at the index expressions (ShapeError naming the tensor when the rank differs).")
      .def("__eq__", [](const Tensor &a, const Tensor &b) { return a.same_as(b); })
      .def("__hash__", [](const Tensor &t) { return std::hash<const void *>()(t.node().get()); })
      .def("__repr__", [](const Tensor &t) {
        return std::string("Tensor(") + (t.is_placeholder() ? "placeholder" : "compute") + " '" + t.name() + "', " +
               t.dtype().str() + "[" + shape_str(t.shape()) + "])";
      });

  m.def("placeholder", &placeholder, "shape"_a, "dtype"_a, "name"_a,
        "An input tensor. ShapeError for a non-positive dimension.");
  m.def("compute",
        [](const Shape &shape, const py::function &fcompute, const std::string &name, const std::string &tag,
           const std::vector<std::string> &axis_names) {
          return compute(shape, [&](const std::vector<Var> &vars) {
            py::tuple args(vars.size());
            for (size_t i = 0; i < vars.size(); i++) args[i] = py::cast(Expr(vars[i]));
            return to_expr(fcompute(*args));
          }, name, tag, axis_names);
        },
        "shape"_a, "fcompute"_a, "name"_a, "tag"_a = "", "axis_names"_a = std::vector<std::string>{},
        "A tensor whose element at index (i, j, ...) is fcompute(i, j, ...).");
  m.def("reduce_axis", &reduce_axis, "extent"_a, "name"_a = "k", "A reduce axis over [0, extent).");
  m.def("reduce", [](const std::string &op, py::handle source, const std::vector<IterVar> &axes) {
          return reduce(reduce_op(op), to_expr(source), axes);
        }, "op"_a, "source"_a, "axes"_a,
        "The sum / max / min / prod of source over the reduce axes (only as the whole body of a compute).");

  using Unary = Expr (*)(const Expr &);
  const std::pair<const char *, Unary> unary_fns[] = {
      {"exp", &exp}, {"log", &log}, {"sqrt", &sqrt}, {"tanh", &tanh}, {"erf", &erf}, {"floor", &floor},
      {"ceil", &ceil}, {"round", &round}, {"abs", &abs}, {"sin", &sin}, {"cos", &cos}, {"tan", &tan},
      {"sinh", &sinh}, {"cosh", &cosh}, {"asin", &asin}, {"acos", &acos}, {"atan", &atan}, {"asinh", &asinh},
      {"acosh", &acosh}, {"atanh", &atanh}, {"is_nan", &is_nan}, {"is_inf", &is_inf}, {"sigmoid", &sigmoid},
  };
  for (const auto &[name, fn] : unary_fns) m.def(name, [fn = fn](py::handle a) { return fn(to_expr(a)); }, "x"_a);
  m.def("minimum", [](py::handle a, py::handle b) { return min(to_expr(a), to_expr(b)); }, "a"_a, "b"_a,
        "The smaller of a and b (NaN propagates).");
  m.def("maximum", [](py::handle a, py::handle b) { return max(to_expr(a), to_expr(b)); }, "a"_a, "b"_a,
        "The larger of a and b (NaN propagates).");
  m.def("power", [](py::handle a, py::handle b) { return pow(to_expr(a), to_expr(b)); }, "a"_a, "b"_a);
  m.def("clamp", [](py::handle e, py::handle lo, py::handle hi) { return clamp(to_expr(e), to_expr(lo), to_expr(hi)); },
        "x"_a, "lo"_a, "hi"_a, "min(max(x, lo), hi); a NaN x stays NaN.");
  m.def("select", [](py::handle c, py::handle t, py::handle f) { return select(to_expr(c), to_expr(t), to_expr(f)); },
        "cond"_a, "true_value"_a, "false_value"_a, "true_value where the bool cond holds, else false_value.");
  m.def("cast", [](py::handle e, DType t) { return cast(t, to_expr(e)); }, "x"_a, "dtype"_a);
  m.def("const", [](py::handle v, DType t) {
          if (t.is_float()) return make_float(v.cast<double>(), t);
          return make_int(t.is_bool() ? int64_t(v.cast<bool>()) : v.cast<int64_t>(), t);
        }, "value"_a, "dtype"_a, "An immediate of this dtype.");
  m.def("max_value", &max_value, "dtype"_a, "Largest finite value of dtype (+inf for floats).");
  m.def("min_value", &min_value, "dtype"_a, "Smallest finite value of dtype (-inf for floats).");

  m.def("post_order", &post_order, "outputs"_a, "All tensors reachable from outputs, producers first.");
  m.def("workload_key", &workload_key, "outputs"_a,
        "The tuning log's key of this compute: 16 hex digits, equal for equal computes whatever their names.");
  m.def("evaluate",
        [](const std::vector<Tensor> &outputs, const std::vector<Tensor> &inputs, const std::vector<py::handle> &arrays) {
          if (arrays.size() != inputs.size())
            throw ShapeError("evaluate: " + std::to_string(inputs.size()) + " input tensors but " +
                             std::to_string(arrays.size()) + " arrays");
          std::vector<NDArray> data;
          for (size_t i = 0; i < arrays.size(); i++)
            data.push_back(ndarray_from_numpy(arrays[i], inputs[i].dtype(), "input '" + inputs[i].name() + "'"));
          std::vector<NDArray> results = interpret(outputs, inputs, data);
          py::list out;
          for (const auto &r : results) out.append(numpy_from_ndarray(r));
          return out;
        },
        "outputs"_a, "inputs"_a, "arrays"_a,
        "The reference interpreter (slow, plain loops): the outputs' values for these input arrays (copied).");
}

}  // namespace tetune::python
