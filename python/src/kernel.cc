// Bindings of codegen/: build() and JIT kernels called on NumPy arrays in
// place, the host target, worker threads, FLOP counts.
#include <pybind11/stl.h>

#include "base/errors.h"
#include "codegen/host_target.h"
#include "codegen/kernel.h"
#include "python/src/arrays.h"
#include "python/src/bindings.h"

namespace py = pybind11;
using namespace pybind11::literals;

namespace tetune::python {

namespace {

/** A built kernel with the tensors of its arguments (for checking and allocating NumPy arrays). */
struct PyKernel {
  Kernel kernel;
  std::vector<Tensor> inputs, outputs;
  std::string target;  // the Halide target string it was compiled for

  /** Buffers of one call; the arrays made for it (outputs, aligned copies of inputs) live as long as it. */
  struct Call {
    std::vector<BufferView> in, out;
    std::vector<py::array> outputs;  // what the call returns
    std::vector<py::array> copies;
  };

  Call prepare(const py::args &args, const py::object &out) const {
    if (args.size() != inputs.size()) {
      std::string names;
      for (const auto &t : inputs) names += (names.empty() ? "" : ", ") + t.name();
      throw py::type_error("kernel takes " + std::to_string(inputs.size()) + " input arrays (" + names + "), got " +
                           std::to_string(args.size()));
    }
    Call c;
    for (size_t i = 0; i < inputs.size(); i++) {
      py::array copy;
      c.in.push_back(view_argument(args[i], inputs[i], "input " + std::to_string(i) + " '" + inputs[i].name() + "'",
                                   false, &copy));
      if (copy) c.copies.push_back(copy);
    }
    std::vector<py::object> given;
    if (!out.is_none()) {
      if (py::isinstance<py::tuple>(out) || py::isinstance<py::list>(out))
        for (py::handle h : out) given.push_back(py::reinterpret_borrow<py::object>(h));
      else
        given.push_back(out);
      if (given.size() != outputs.size())
        throw py::type_error("out= takes " + std::to_string(outputs.size()) + " arrays, got " +
                             std::to_string(given.size()));
    }
    for (size_t i = 0; i < outputs.size(); i++) {
      py::array a = given.empty() ? aligned_empty(outputs[i].shape(), outputs[i].dtype())
                                  : py::reinterpret_borrow<py::array>(given[i]);
      c.out.push_back(view_argument(given.empty() ? py::handle(a) : py::handle(given[i]), outputs[i],
                                    "output " + std::to_string(i) + " '" + outputs[i].name() + "'", true, nullptr));
      c.outputs.push_back(a);
    }
    return c;
  }

  py::object result(const Call &c) const {
    if (c.outputs.size() == 1) return c.outputs[0];
    py::tuple t(c.outputs.size());
    for (size_t i = 0; i < c.outputs.size(); i++) t[i] = c.outputs[i];
    return t;
  }
};

py::list describe(const std::vector<Tensor> &tensors) {
  py::list out;
  for (const auto &t : tensors)
    out.append(py::dict("name"_a = t.name(), "shape"_a = py::tuple(py::cast(t.shape())), "dtype"_a = t.dtype().str()));
  return out;
}

}  // namespace

void bind_kernel(py::module_ &m) {
  py::class_<PyKernel>(m, "Kernel", "A JIT-compiled kernel (codegen/kernel.h), called on NumPy arrays in place.")
      .def("__call__",
           [](const PyKernel &k, const py::args &args, const py::object &out) {
             PyKernel::Call c = k.prepare(args, out);
             {
               py::gil_scoped_release unlocked;
               k.kernel.run_views(c.in, c.out);
             }
             return k.result(c);
           },
           py::kw_only(), "out"_a = py::none(),
           "kernel(*inputs, out=None): runs on the input arrays (Schedule.inputs order) in place; returns the "
           "output array, a tuple for several, or out. KernelRuntimeError names an argument of the wrong dtype or "
           "shape, a non-contiguous one, or a read-only out.")
      .def("time",
           [](const PyKernel &k, const py::args &args, int repeat, int warmup, const py::object &out) {
             if (repeat < 1) throw py::value_error("repeat must be at least 1, got " + std::to_string(repeat));
             PyKernel::Call c = k.prepare(args, out);
             py::gil_scoped_release unlocked;
             return k.kernel.median_ms_views(c.in, c.out, warmup, repeat);
           },
           py::kw_only(), "repeat"_a = 10, "warmup"_a = 1, "out"_a = py::none(),
           "Median wall time in ms of `repeat` runs (each timed on its own, in C++) after `warmup` runs.")
      .def("lower", [](const PyKernel &k) { return k.kernel.lowered_stmt(); },
           "Halide's pseudo-code of the lowered statement (the loop nest as compiled).")
      .def("loop_nest", [](const PyKernel &k) { return k.kernel.loop_nest().str(); },
           "The loops, loads and stores of the compiled kernel, one line each.")
      .def_property_readonly("inputs", [](const PyKernel &k) { return describe(k.inputs); })
      .def_property_readonly("outputs", [](const PyKernel &k) { return describe(k.outputs); })
      .def_property_readonly("input_tensors", [](const PyKernel &k) { return k.inputs; })
      .def_property_readonly("output_tensors", [](const PyKernel &k) { return k.outputs; })
      .def_property_readonly("target", [](const PyKernel &k) { return k.target; })
      .def_property_readonly("flops", [](const PyKernel &k) { return flop_count(k.outputs); },
                             "FLOPs of one call (a multiply-add counts 2).");

  m.def("build",
        [](const Schedule &s, const std::string &target, bool runtime_checks, bool inspect) {
          BuildOptions options;
          options.runtime_checks = runtime_checks;
          options.inspect = inspect;
          Target t{target};
          PyKernel k{Kernel::build(s, t, options), s.inputs(), s.outputs(), t.halide_string()};
          return k;
        },
        "schedule"_a, "target"_a = "host", "runtime_checks"_a = true, "inspect"_a = true,
        py::call_guard<py::gil_scoped_release>(),
        "JIT-compiles schedule for target ('host': this CPU from CPUID; 'cuda'; or a Halide target string). "
        "runtime_checks=False drops Halide's assertions (faster to compile); inspect=False skips lower() / "
        "loop_nest(). CodegenError with Halide's message on failure.");
  m.def("host_target", &codegen::host_halide_target, "The Halide target 'host' compiles for (from this CPU's CPUID).");
  m.def("host_target_note", &codegen::host_target_note);
  m.def("set_num_threads", &set_num_threads, "n"_a,
        "Worker threads of JIT kernels; before the first kernel runs (KernelRuntimeError afterwards).");
  m.def("num_threads", &num_threads);
  m.def("flop_count", &flop_count, "outputs"_a, "FLOPs of one evaluation of the outputs (a multiply-add counts 2).");
}

}  // namespace tetune::python
