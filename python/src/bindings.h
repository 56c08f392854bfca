// The pieces of the tetune._core extension module, one per C++ package bound.
//
// Each bind_* adds its classes and functions to the module (or a submodule).
// They are thin: every check and every transformation is the C++ library's;
// a binding only converts arguments and results.
#pragma once

#include <pybind11/pybind11.h>

namespace tetune::python {

/** tetune.TetuneError and its subclasses, and the C++ -> Python translation. */
void bind_errors(pybind11::module_ &m);
/** Expr, IterVar, Tensor, placeholder / compute / reductions / intrinsics, the interpreter. */
void bind_te(pybind11::module_ &m);
/** The operator library (te/ops/) as the submodule `ops`. */
void bind_ops(pybind11::module_ &m);
/** Schedule and its primitives, the trace as JSON. */
void bind_schedule(pybind11::module_ &m);
/** build(): JIT kernels called on NumPy arrays; the host target, threads. */
void bind_kernel(pybind11::module_ &m);
/** The tuning log (tuning_logs/) as the submodule `log`. */
void bind_log(pybind11::module_ &m);
/** Tasks, tune() and the policy / cost-model registries, Python plug-ins included, as the submodule `autotune`. */
void bind_autotune(pybind11::module_ &m);
/** tune_model(), compile_model() and the runtime's loaded models as the submodule `model`. */
void bind_model(pybind11::module_ &m);

}  // namespace tetune::python
