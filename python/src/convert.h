// Conversions between Python values and tetune's C++ types, shared by the
// bindings: dtypes (a pybind11 type caster), expressions, optional tensors.
#pragma once

#include <optional>
#include <string>

#include <pybind11/pybind11.h>

#include "base/dtype.h"
#include "te/expr.h"
#include "te/tensor.h"

namespace tetune::python {

/**
 * The DType a Python value names: a string ("float32", "bool"), a NumPy dtype
 * or a NumPy scalar type (numpy.float32). Raises DTypeError naming the value
 * when it names none of tetune's dtypes.
 */
DType dtype_from_python(pybind11::handle value);

/**
 * An expression from a Python value: an Expr, an IterVar (its variable), a
 * bool (a bool immediate), an int or a float (int32 / float32 immediates,
 * which take the other operand's dtype in arithmetic), or NumPy scalars of
 * those. Raises TypeError naming the value's type otherwise.
 */
Expr to_expr(pybind11::handle value);

/** None -> an undefined Tensor (the C++ default of an optional tensor argument). */
inline Tensor or_undefined(const std::optional<Tensor> &t) { return t ? *t : Tensor(); }

}  // namespace tetune::python

namespace pybind11::detail {

/** DType <-> Python: accepts what dtype_from_python accepts, returns the name ("float32"). */
template <>
struct type_caster<tetune::DType> {
  PYBIND11_TYPE_CASTER(tetune::DType, const_name("dtype"));
  bool load(handle src, bool) {
    if (!src || src.is_none()) return false;
    value = tetune::python::dtype_from_python(src);
    return true;
  }
  static handle cast(const tetune::DType &t, return_value_policy, handle) { return str(t.str()).release(); }
};

}  // namespace pybind11::detail
