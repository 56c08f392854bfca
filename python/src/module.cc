// tetune._core: the C++ library as a Python extension module. The package
// tetune (python/tetune/) wraps it; users import tetune, not this.
#include "python/src/bindings.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "tetune's C++ core (internal; import tetune instead)";
  tetune::python::bind_errors(m);
  tetune::python::bind_te(m);
  tetune::python::bind_ops(m);
  tetune::python::bind_schedule(m);
  tetune::python::bind_kernel(m);
  tetune::python::bind_log(m);
  tetune::python::bind_autotune(m);
  tetune::python::bind_model(m);
}
