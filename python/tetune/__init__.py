"""tetune: a tensor-expression auto-tuning compiler (Halide 14 code generation).

    import numpy as np, tetune
    from tetune import te
    A = te.placeholder((64, 48), name="A"); B = te.placeholder((48, 32), name="B")
    k = te.reduce_axis(48, name="k")
    C = te.compute((64, 32), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = tetune.Schedule(C); s.split(C, "j", 8); s.vectorize(C, "j_i")
    f = tetune.build(s)
    c = f(np.ones((64, 48), "float32"), np.ones((48, 32), "float32"))

Modules: te (compute language and te.ops, the operator library), log (the
tuning log), autotune (tasks, tune(), Python search policies and cost
models), model (tune, compile and run ONNX models). Every error is a
TetuneError subclass carrying the C++ message.
"""
from . import _core
from ._core import (
    TetuneError,
    ShapeError,
    DTypeError,
    OpAttributeError,
    ScheduleError,
    CodegenError,
    KernelRuntimeError,
    ParseError,
    TuningLogError,
    ModelImportError,
    MeasureError,
    UsageError,
    ExportCheckError,
)
from .schedule import Schedule
from .kernel import Kernel, build, lower, host_target, set_num_threads, num_threads
from . import te
from . import log
from . import autotune
from . import model

__all__ = [
    "te", "log", "autotune", "model",
    "Schedule", "Kernel", "build", "lower", "host_target", "set_num_threads", "num_threads",
    "TetuneError", "ShapeError", "DTypeError", "OpAttributeError", "ScheduleError", "CodegenError",
    "KernelRuntimeError", "ParseError", "TuningLogError", "ModelImportError", "MeasureError", "UsageError",
    "ExportCheckError",
]
