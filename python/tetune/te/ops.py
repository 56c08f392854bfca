"""The operator library (te/ops/): ONNX-semantics operators as computes.

Each function takes and returns Tensors with the C++ signature and defaults
(te/ops/*.h document shapes, attributes and the errors raised); an optional
tensor argument takes None. registry() lists the named workloads of
`tetune ops`, and build_op(name, shape) builds one: (inputs, outputs).

    y = ops.conv2d(x, w, strides=[2, 2], pads=[1, 1, 1, 1])
    inputs, outputs = ops.build_op("matmul", [256, 256, 256])
"""
from .._core.ops import *  # noqa: F401,F403 (the bound operators are this module's API)
from .._core import ops as _ops

__all__ = [name for name in dir(_ops) if not name.startswith("_")]
