"""tetune.te: the compute language from Python, checked with the reference interpreter."""
import numpy as np
import pytest

import tetune
from tetune import te

from conftest import assert_close, matmul


def test_placeholder_properties():
    A = te.placeholder((3, 5), "int16", name="A")
    assert (A.name, A.shape, A.dtype, A.ndim, A.size, A.is_placeholder) == ("A", (3, 5), "int16", 2, 15, True)
    assert te.placeholder(7).shape == (7,)
    assert te.placeholder((2, 2), np.float64).dtype == "float64"
    assert te.placeholder((2, 2), np.dtype("uint8")).dtype == "uint8"


def test_compute_names_axes_after_the_lambda_and_keeps_reductions():
    A, B, C = matmul(5, 7, 3)
    assert [a.name for a in C.axes] == ["i", "j"]
    assert [(k.name, k.extent, k.is_reduce) for k in C.reduce_axes] == [("k", 3, True)]
    assert C.body.kind == "reduce"
    assert C.inputs() == [A, B]
    D = te.compute((4,), lambda *idx: idx[0] * 2)  # no names to take: C++'s default
    assert [a.name for a in D.axes] == ["i0"]


def test_expression_arithmetic_and_dtype_rules():
    A = te.placeholder((4,), "float64", name="A")
    e = A[0] * 2 + 1.5  # Python numbers take the other operand's dtype
    assert e.dtype == "float64"
    assert (A[0] < 1).dtype == "bool"
    assert te.cast(A[0], "int32").dtype == "int32" and A[0].astype("float32").dtype == "float32"
    assert te.const(3, "int8").dtype == "int8" and te.const(3, "int8").value == 3
    with pytest.raises(tetune.DTypeError, match="dtype mismatch float64 vs float32"):
        A[0] + te.placeholder((4,), name="F")[0]
    with pytest.raises(TypeError, match="no truth value"):
        bool(A[0] > 0)
    with pytest.raises(TypeError, match="cannot use a str"):
        A["i"]
    with pytest.raises(tetune.ShapeError, match="rank 1 but is indexed with 2"):
        A[0, 1]


def test_elementwise_compute_with_select_and_intrinsics_matches_numpy(rng):
    n = 37
    X = te.placeholder((n,), name="X")
    Y = te.compute((n,), lambda i: te.select(X[i] > 0, te.sqrt(X[i]), te.exp(X[i]) * -1.0) + te.tanh(X[i]), name="Y")
    x = rng.standard_normal(n).astype("float32")
    (y,) = te.evaluate([Y], [X], [x])
    assert_close(y, np.where(x > 0, np.sqrt(np.abs(x)), -np.exp(x)) + np.tanh(x))


def test_integer_division_is_floor_and_logic_ops_on_bools():
    X = te.placeholder((6,), "int32", name="X")
    Q = te.compute((6,), lambda i: X[i] // 4 + X[i] % 4 * 100, name="Q")
    M = te.compute((6,), lambda i: te.select((X[i] > -3) & ~(X[i] == 5), 1, 0), name="M")
    x = np.array([-7, -3, 0, 3, 5, 9], dtype="int32")
    q, m = te.evaluate([Q, M], [X], [x])
    np.testing.assert_array_equal(q, x // 4 + (x % 4) * 100)  # NumPy's // and % are floor / Euclidean too
    np.testing.assert_array_equal(m, ((x > -3) & (x != 5)).astype("int32"))


def test_max_min_reductions_and_binary_forms(rng):
    X = te.placeholder((5, 9), name="X")
    k = te.reduce_axis(9, name="k")
    R = te.compute((5,), lambda i: te.max(X[i, k], axis=k), name="R")
    k2 = te.reduce_axis((0, 9), name="k2")
    S = te.compute((5,), lambda i: te.min(X[i, k2], axis=[k2]), name="S")
    T = te.compute((5, 9), lambda i, j: te.max(X[i, j], 0.0), name="T")
    x = rng.standard_normal((5, 9)).astype("float32")
    r, s, t = te.evaluate([R, S, T], [X], [x])
    assert_close(r, x.max(axis=1))
    assert_close(s, x.min(axis=1))
    assert_close(t, np.maximum(x, 0))
    with pytest.raises(TypeError, match="second value or axis"):
        te.max(X[0, 0])
    with pytest.raises(tetune.OpAttributeError, match="ranges start at 0"):
        te.reduce_axis((1, 9))


def test_reduction_below_the_root_is_refused():
    X = te.placeholder((4, 4), name="X")
    k = te.reduce_axis(4)
    with pytest.raises(tetune.TetuneError, match="reduction"):
        te.compute((4,), lambda i: te.sum(X[i, k], axis=k) + 1.0)


def test_workload_key_ignores_names():
    assert te.workload_key([matmul(8, 8, 8)[2]]) == te.workload_key([matmul(8, 8, 8)[2]])
    assert te.workload_key([matmul(8, 8, 8)[2]]) != te.workload_key([matmul(8, 8, 9)[2]])


def test_ops_conv2d_has_the_cpp_signature_and_values(rng):
    x = te.placeholder((1, 3, 7, 6), name="x")
    w = te.placeholder((4, 3, 3, 3), name="w")
    b = te.placeholder((4,), name="b")
    y = te.ops.conv2d(x, w, b, strides=[2, 1], pads=[1, 1, 1, 1])
    assert y.shape == (1, 4, 4, 6)
    assert [t.name for t in te.post_order([y])] == ["x", "conv2d.pad", "w", "conv2d.conv", "b", "conv2d"]
    xa, wa, ba = (rng.standard_normal(t.shape).astype("float32") for t in (x, w, b))
    (ya,) = te.evaluate([y], [x, w, b], [xa, wa, ba])
    xp = np.pad(xa, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.zeros((1, 4, 4, 6), "float32")
    for oh in range(4):
        for ow in range(6):
            patch = xp[0, :, oh * 2:oh * 2 + 3, ow:ow + 3]
            ref[0, :, oh, ow] = np.tensordot(wa, patch, axes=([1, 2, 3], [0, 1, 2])) + ba
    assert_close(ya, ref)
    with pytest.raises(tetune.OpAttributeError):
        te.ops.conv2d(x, w, strides=[0, 1])


def test_ops_registry_matches_tetune_ops():
    names = [e["name"] for e in te.ops.registry()]
    assert names == sorted(names) and "matmul" in names and "conv2d" in names
    inputs, outputs = te.ops.build_op("matmul", [16, 8, 4])
    assert [t.shape for t in inputs] == [(16, 4), (4, 8)] and outputs[0].shape == (16, 8)
    with pytest.raises(tetune.UsageError):
        te.ops.build_op("matmul", [16, 8])
    with pytest.raises(tetune.OpAttributeError):
        te.ops.build_op("no_such_op", [1])


def test_ops_with_several_outputs_and_optional_tensors(rng):
    x = te.placeholder((3, 10), name="x")
    values, indices = te.ops.topk(x, 4, -1, True)
    assert indices.dtype == "int64" and values.shape == (3, 4)
    parts = te.ops.split(x, 1, [4, 6])
    assert [p.shape for p in parts] == [(3, 4), (3, 6)]
    y = te.ops.layer_norm(x, te.placeholder((10,), name="g"))  # bias=None: the C++ Tensor()
    assert y.shape == (3, 10)
    xa = rng.standard_normal((3, 10)).astype("float32")
    v, i = te.evaluate([values, indices], [x], [xa])
    np.testing.assert_array_equal(i, np.argsort(-xa, axis=1, kind="stable")[:, :4])
    assert_close(v, np.take_along_axis(xa, i, axis=1))
