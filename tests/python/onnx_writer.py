"""Writes small ONNX models for the tests without the onnx package (Debian has none for Python).

The protobuf wire format by hand, for the few fields of onnx-ml.proto the
tests use (field numbers from onnx/onnx-ml.proto): a graph of nodes with INT
/ INTS / FLOAT attributes, float32 initializers and typed float32 inputs and
outputs. As tests/relay_import/onnx_builder.h does for the C++ tests.
"""
import struct

import numpy as np

_VARINT, _FIXED32, _BYTES = 0, 5, 2
_FLOAT = 1  # TensorProto.FLOAT
_ATTR_FLOAT, _ATTR_INT, _ATTR_INTS = 1, 2, 7


def _varint(n):
    n &= (1 << 64) - 1  # negative int64s as ten bytes, as protobuf does
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _key(field, wire):
    return _varint(field << 3 | wire)


def _int(field, n):
    return _key(field, _VARINT) + _varint(n)


def _bytes(field, data):
    if isinstance(data, str):
        data = data.encode()
    return _key(field, _BYTES) + _varint(len(data)) + data


def _attribute(name, value):
    a = _bytes(1, name)
    if isinstance(value, float):
        return a + _key(2, _FIXED32) + struct.pack("<f", value) + _int(20, _ATTR_FLOAT)
    if isinstance(value, int):
        return a + _int(3, value) + _int(20, _ATTR_INT)
    return a + b"".join(_int(8, v) for v in value) + _int(20, _ATTR_INTS)


def node(op_type, inputs, outputs, **attributes):
    """A NodeProto (its bytes); attributes: int, float or a list of ints."""
    body = b"".join(_bytes(1, i) for i in inputs) + b"".join(_bytes(2, o) for o in outputs)
    body += _bytes(3, f"{op_type}_{outputs[0]}") + _bytes(4, op_type)
    return body + b"".join(_bytes(5, _attribute(k, v)) for k, v in attributes.items())


def _value_info(name, shape):
    dims = b"".join(_bytes(1, _int(1, d)) for d in shape)
    tensor_type = _int(1, _FLOAT) + _bytes(2, dims)
    return _bytes(1, name) + _bytes(2, _bytes(1, tensor_type))


def _initializer(name, array):
    array = np.ascontiguousarray(array, dtype="<f4")
    return b"".join(_int(1, d) for d in array.shape) + _int(2, _FLOAT) + _bytes(8, name) + _bytes(9, array.tobytes())


def model(nodes, inputs, outputs, initializers, opset=13):
    """ModelProto bytes. inputs / outputs: {name: shape} (float32); initializers: {name: array}."""
    graph = b"".join(_bytes(1, n) for n in nodes) + _bytes(2, "test_graph")
    graph += b"".join(_bytes(5, _initializer(k, v)) for k, v in initializers.items())
    graph += b"".join(_bytes(11, _value_info(k, s)) for k, s in inputs.items())
    graph += b"".join(_bytes(12, _value_info(k, s)) for k, s in outputs.items())
    opset_import = _bytes(1, "") + _int(2, opset)
    return _int(1, 8) + _bytes(2, "tetune-tests") + _bytes(7, graph) + _bytes(8, opset_import)
