#include "python/src/convert.h"

#include "base/errors.h"

namespace py = pybind11;

namespace tetune::python {

DType dtype_from_python(py::handle value) {
  if (py::isinstance<py::str>(value)) return DType::parse(value.cast<std::string>());
  // numpy.dtype(x) accepts dtypes, scalar types (numpy.float32) and their names.
  py::object numpy_dtype;
  try {
    numpy_dtype = py::module_::import("numpy").attr("dtype")(value);
  } catch (const py::error_already_set &) {
    throw DTypeError("not a dtype: " + py::repr(value).cast<std::string>() +
                     " (give a name such as 'float32' or a NumPy dtype)");
  }
  return DType::parse(numpy_dtype.attr("name").cast<std::string>());
}

Expr to_expr(py::handle value) {
  if (py::isinstance<Expr>(value)) return value.cast<Expr>();
  if (py::isinstance<IterVar>(value)) return Expr(value.cast<IterVar>());
  // bool before int: True is an int in Python.
  if (py::isinstance<py::bool_>(value) || value.get_type().attr("__name__").cast<std::string>() == "bool_")
    return make_int(value.cast<bool>() ? 1 : 0, boolean());
  if (PyIndex_Check(value.ptr())) {
    py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()));
    if (!index) throw py::error_already_set();
    return make_int(index.cast<int64_t>());
  }
  if (PyFloat_Check(value.ptr()) || py::hasattr(value, "__float__")) return make_float(value.cast<double>());
  throw py::type_error("cannot use a " + py::str(value.get_type().attr("__name__")).cast<std::string>() +
                       " in a tensor expression (" + py::repr(value).cast<std::string>() +
                       "): expected an Expr, an axis, a bool, an int or a float");
}

}  // namespace tetune::python
