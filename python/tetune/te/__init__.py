"""The tensor-expression language (te/): placeholders, computes, reductions.

    A = te.placeholder((M, K), "float32", name="A")
    k = te.reduce_axis((0, K), name="k")
    C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")

A compute's lambda receives one index variable per axis, named after the
lambda's parameters (so the schedule names its loops "i" and "j" here).
Expressions support + - * / // % ** and comparisons; & | ~ are logical on
bools and bitwise on integers (Python's and / or / not cannot be
overloaded); use select(cond, a, b) for a conditional. Integer / is floor
division and % Euclidean (Halide semantics). Operands need equal dtypes,
except Python numbers, which take the other operand's dtype.
"""
import inspect as _inspect

from .. import _core
from .._core import (
    Expr,
    IterVar,
    Tensor,
    exp, log, sqrt, tanh, erf, floor, ceil, round, abs, sin, cos, tan, sinh, cosh, asin, acos, atan,
    asinh, acosh, atanh, is_nan, is_inf, sigmoid,
    clamp, select, cast, const, max_value, min_value, post_order, workload_key, evaluate,
)
from . import ops

__all__ = [
    "Expr", "IterVar", "Tensor", "placeholder", "compute", "reduce_axis", "sum", "max", "min", "prod",
    "exp", "log", "sqrt", "tanh", "erf", "floor", "ceil", "round", "abs", "sin", "cos", "tan", "sinh", "cosh",
    "asin", "acos", "atan", "asinh", "acosh", "atanh", "is_nan", "is_inf", "sigmoid", "power", "clamp",
    "select", "cast", "const", "max_value", "min_value", "post_order", "workload_key", "evaluate", "ops",
]


def _shape(shape):
    return (shape,) if isinstance(shape, int) else tuple(shape)


def placeholder(shape, dtype="float32", name="placeholder"):
    """An input tensor of this shape (outermost axis first) and dtype. ShapeError for a dimension < 1."""
    return _core.placeholder(_shape(shape), dtype, name)


def _parameter_names(fcompute, ndim):
    """The lambda's parameter names when it takes exactly ndim positional ones, else [] (C++ names them i0, i1, ...)."""
    try:
        params = list(_inspect.signature(fcompute).parameters.values())
    except (TypeError, ValueError):
        return []
    positional = (_inspect.Parameter.POSITIONAL_ONLY, _inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if len(params) != ndim or any(p.kind not in positional for p in params):
        return []
    return [p.name for p in params]


def compute(shape, fcompute, name="compute", tag="", axis_names=None):
    """A tensor whose element at (i, j, ...) is fcompute(i, j, ...).

    The body may be a reduction (sum / max / min / prod) only as a whole.
    Axes are named axis_names, else after fcompute's parameters.
    """
    shape = _shape(shape)
    if axis_names is None:
        axis_names = _parameter_names(fcompute, len(shape))
    return _core.compute(shape, fcompute, name, tag, list(axis_names))


def reduce_axis(dom, name="k"):
    """A reduce axis over range(extent): dom is the extent or (0, extent) as in TVM."""
    if isinstance(dom, int):
        return _core.reduce_axis(dom, name)
    lo, hi = dom
    if lo != 0:
        raise _core.OpAttributeError(f"reduce_axis '{name}': ranges start at 0, got ({lo}, {hi})")
    return _core.reduce_axis(hi, name)


def _axes(axis):
    return [axis] if isinstance(axis, IterVar) else list(axis)


def sum(source, axis):  # noqa: A001 (te.sum, as TVM)
    """The sum of source over the reduce axis (or list of axes): the whole body of a compute."""
    return _core.reduce("sum", source, _axes(axis))


def prod(source, axis):
    """The product of source over the reduce axes."""
    return _core.reduce("prod", source, _axes(axis))


def max(a, b=None, axis=None):  # noqa: A001
    """max(x, axis=k): the maximum over reduce axes; max(a, b): the larger value (NaN propagates)."""
    if axis is not None:
        if b is not None:
            raise TypeError("te.max: give either a second value or axis=, not both")
        return _core.reduce("max", a, _axes(axis))
    if b is None:
        raise TypeError("te.max needs a second value or axis=")
    return _core.maximum(a, b)


def min(a, b=None, axis=None):  # noqa: A001
    """min(x, axis=k): the minimum over reduce axes; min(a, b): the smaller value (NaN propagates)."""
    if axis is not None:
        if b is not None:
            raise TypeError("te.min: give either a second value or axis=, not both")
        return _core.reduce("min", a, _axes(axis))
    if b is None:
        raise TypeError("te.min needs a second value or axis=")
    return _core.minimum(a, b)


def power(a, b):
    """a ** b for floats."""
    return _core.power(a, b)
