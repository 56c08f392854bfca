"""tetune's error classes: one per C++ class of base/errors.h, all TetuneError, carrying the C++ message."""
import pytest

import tetune
from tetune import te

ERRORS = ["ShapeError", "DTypeError", "OpAttributeError", "ScheduleError", "CodegenError", "KernelRuntimeError",
          "ParseError", "TuningLogError", "ModelImportError", "MeasureError", "UsageError", "ExportCheckError"]


@pytest.mark.parametrize("name", ERRORS)
def test_every_class_derives_from_tetune_error(name):
    cls = getattr(tetune, name)
    assert issubclass(cls, tetune.TetuneError) and cls.__module__ == "tetune" and cls.__doc__


def test_builtin_bases_where_they_mean_the_same():
    assert issubclass(tetune.ShapeError, ValueError) and issubclass(tetune.DTypeError, TypeError)
    assert not issubclass(tetune.ScheduleError, ValueError)


@pytest.mark.parametrize("make, cls, message", [
    (lambda: te.placeholder((2, -1), name="W"), tetune.ShapeError, "tensor 'W': axis 1 has non-positive extent -1"),
    (lambda: te.placeholder((2,), "complex64"), tetune.DTypeError, "unknown dtype 'complex64'"),
    (lambda: te.ops.softmax(te.placeholder((2, 3), name="S"), axis=5), tetune.OpAttributeError, "axis"),
    (lambda: tetune.Schedule([te.placeholder((2,), name="P")]), tetune.TetuneError, "output 'P' is not a compute"),
])
def test_cpp_errors_arrive_with_their_class_and_message(make, cls, message):
    with pytest.raises(cls, match=message) as info:
        make()
    assert type(info.value) is cls  # the most derived class, not only a base
