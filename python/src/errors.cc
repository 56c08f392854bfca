// tetune's C++ errors (base/errors.h) as Python exceptions.
//
// Every class derives from tetune.TetuneError and carries the C++ what() as
// its message. Where a Python built-in means the same thing the class also
// derives from it (a ShapeError is a ValueError, a DTypeError a TypeError), so
// generic handlers catch it too. Three C++ names would shadow Python
// built-ins and are renamed: AttributeError -> OpAttributeError,
// RuntimeError -> KernelRuntimeError, ImportError -> ModelImportError.
#include <exception>

#include "base/errors.h"
#include "python/src/bindings.h"

namespace py = pybind11;

namespace tetune::python {

namespace {

enum ErrorKind {
  kBase, kShape, kDType, kAttribute, kSchedule, kCodegen, kRuntime, kParse, kTuningLog, kImport, kMeasure, kUsage,
  kExportCheck, kNumKinds
};

struct ErrorClassSpec {
  ErrorKind kind;
  const char *name;
  PyObject *builtin;  // second base besides TetuneError, or nullptr
  const char *doc;
};

PyObject *g_classes[kNumKinds] = {};

void translate(std::exception_ptr p) {
  try {
    if (p) std::rethrow_exception(p);
  } catch (const ShapeError &e) { PyErr_SetString(g_classes[kShape], e.what());
  } catch (const DTypeError &e) { PyErr_SetString(g_classes[kDType], e.what());
  } catch (const AttributeError &e) { PyErr_SetString(g_classes[kAttribute], e.what());
  } catch (const ScheduleError &e) { PyErr_SetString(g_classes[kSchedule], e.what());
  } catch (const CodegenError &e) { PyErr_SetString(g_classes[kCodegen], e.what());
  } catch (const RuntimeError &e) { PyErr_SetString(g_classes[kRuntime], e.what());
  } catch (const ParseError &e) { PyErr_SetString(g_classes[kParse], e.what());
  } catch (const TuningLogError &e) { PyErr_SetString(g_classes[kTuningLog], e.what());
  } catch (const ImportError &e) { PyErr_SetString(g_classes[kImport], e.what());
  } catch (const MeasureError &e) { PyErr_SetString(g_classes[kMeasure], e.what());
  } catch (const UsageError &e) { PyErr_SetString(g_classes[kUsage], e.what());
  } catch (const ExportCheckError &e) { PyErr_SetString(g_classes[kExportCheck], e.what());
  } catch (const Error &e) { PyErr_SetString(g_classes[kBase], e.what());
  }
}

}  // namespace

void bind_errors(py::module_ &m) {
  g_classes[kBase] = PyErr_NewExceptionWithDoc("tetune.TetuneError", "Base of every error tetune raises.", PyExc_Exception,
                                               nullptr);
  if (!g_classes[kBase]) throw py::error_already_set();
  m.attr("TetuneError") = py::handle(g_classes[kBase]);
  const ErrorClassSpec specs[] = {
      {kShape, "ShapeError", PyExc_ValueError, "A tensor shape, rank or axis is wrong (names the tensor and axis)."},
      {kDType, "DTypeError", PyExc_TypeError, "Two dtypes disagree, or a dtype is unsupported by an operation."},
      {kAttribute, "OpAttributeError", PyExc_ValueError,
       "An operator attribute is out of range (C++ tetune::AttributeError; names the operator and attribute)."},
      {kSchedule, "ScheduleError", nullptr, "An illegal schedule step (names the step, the stage and the axis)."},
      {kCodegen, "CodegenError", nullptr, "Lowering to Halide or compiling failed."},
      {kRuntime, "KernelRuntimeError", nullptr,
       "A compiled kernel failed at run time, or was given bad buffers (C++ tetune::RuntimeError)."},
      {kParse, "ParseError", PyExc_ValueError, "A malformed serialised object (schedule trace JSON, record line)."},
      {kTuningLog, "TuningLogError", nullptr, "The tuning log database could not be opened, read or written."},
      {kImport, "ModelImportError", nullptr, "A model could not be imported (C++ tetune::ImportError)."},
      {kMeasure, "MeasureError", nullptr, "Measurement failed in a way that is not a property of the candidate."},
      {kUsage, "UsageError", PyExc_ValueError, "An option or argument has a value that makes no sense here."},
      {kExportCheck, "ExportCheckError", nullptr, "An exported model refused before its library is loaded."},
  };
  for (const auto &s : specs) {
    py::tuple bases = s.builtin ? py::make_tuple(py::handle(g_classes[kBase]), py::handle(s.builtin))
                                : py::make_tuple(py::handle(g_classes[kBase]));
    std::string qualified = std::string("tetune.") + s.name;
    g_classes[s.kind] = PyErr_NewExceptionWithDoc(qualified.c_str(), s.doc, bases.ptr(), nullptr);
    if (!g_classes[s.kind]) throw py::error_already_set();
    m.attr(s.name) = py::handle(g_classes[s.kind]);
  }
  py::register_exception_translator(&translate);
}

}  // namespace tetune::python
