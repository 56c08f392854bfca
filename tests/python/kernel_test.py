"""tetune.build: kernels called on NumPy arrays in place, their checks, timing and lowering."""
import numpy as np
import pytest

import tetune
from tetune import te

from conftest import assert_close, matmul


@pytest.fixture(scope="module")
def gemm():
    """A vectorized GEMM on odd shapes (tails everywhere) and its kernel."""
    A, B, C = matmul(37, 45, 19)
    s = tetune.Schedule(C)
    jo, ji = s.split(C, "j", 8)
    s.reorder(C, ["i", jo, "k", ji])
    s.vectorize(C, ji)
    s.parallel(C, "i")
    return A, B, C, tetune.build(s)


def inputs(rng, *tensors):
    return [rng.standard_normal(t.shape).astype(t.dtype) for t in tensors]


def test_kernel_matches_numpy_and_returns_a_fresh_aligned_array(gemm, rng):
    A, B, C, f = gemm
    a, b = inputs(rng, A, B)
    c = f(a, b)
    assert c.shape == (37, 45) and c.dtype == np.float32 and c.flags.c_contiguous
    assert c.ctypes.data % 64 == 0
    assert_close(c, a.astype("float64") @ b.astype("float64"))
    assert f(a, b) is not c
    assert [i["name"] for i in f.inputs] == ["A", "B"] and f.outputs[0]["shape"] == (37, 45)
    assert f.flops == 2 * 37 * 45 * 19


def test_out_argument_is_written_in_place(gemm, rng):
    A, B, C, f = gemm
    a, b = inputs(rng, A, B)
    out = np.full((37, 45), np.nan, "float32")
    assert f(a, b, out=out) is out
    assert_close(out, a.astype("float64") @ b.astype("float64"))
    view_of_bigger = np.zeros((37, 45 + 3), "float32")[:, :45]
    with pytest.raises(tetune.KernelRuntimeError, match="output 0 'C'.*not C-contiguous"):
        f(a, b, out=view_of_bigger)
    read_only = np.empty((37, 45), "float32")
    read_only.flags.writeable = False
    with pytest.raises(tetune.KernelRuntimeError, match="output 0 'C'.*read-only"):
        f(a, b, out=read_only)


def test_inputs_are_not_copied(gemm, rng):
    """The kernel reads the caller's memory: a change to the array after the call shows in the next result."""
    A, B, C, f = gemm
    a, b = inputs(rng, A, B)
    first = f(a, b)
    a[0, :] = 0
    second = f(a, b)
    assert np.all(second[0] == 0) and np.array_equal(second[1:], first[1:])


def test_bad_arguments_raise_errors_naming_the_argument(gemm, rng):
    A, B, C, f = gemm
    a, b = inputs(rng, A, B)
    with pytest.raises(tetune.KernelRuntimeError, match="input 1 'B': expected dtype float32, got float64"):
        f(a, b.astype("float64"))
    with pytest.raises(tetune.KernelRuntimeError, match=r"input 0 'A': expected shape \[37x19\], got \[19x37\]"):
        f(a.T.copy(), b)
    with pytest.raises(tetune.KernelRuntimeError, match="input 0 'A'.*not C-contiguous"):
        f(np.asfortranarray(a), b)
    with pytest.raises(TypeError, match="input 1 'B': expected a numpy.ndarray"):
        f(a, b.tolist())
    with pytest.raises(TypeError, match=r"takes 2 input arrays \(A, B\), got 1"):
        f(a)
    assert isinstance(tetune.KernelRuntimeError("x"), tetune.TetuneError)


def test_misaligned_input_is_copied_and_still_correct(gemm, rng):
    A, B, C, f = gemm
    a, b = inputs(rng, A, B)
    raw = np.zeros(a.nbytes + 8, np.uint8)
    for offset in (4, 1):  # 4: element-aligned, used in place; 1: not even element-aligned, copied
        view = raw[offset:offset + a.nbytes].view(np.float32).reshape(a.shape)
        view[...] = a
        assert view.flags.aligned == (offset == 4)
        np.testing.assert_array_equal(f(view, b), f(a, b))
    out = np.zeros(37 * 45 * 4 + 1, np.uint8)[1:].view(np.float32).reshape(37, 45)
    with pytest.raises(tetune.KernelRuntimeError, match="output 0 'C'.*not aligned"):
        f(a, b, out=out)


def test_integer_and_multi_output_kernel():
    X = te.placeholder((5, 7), "int32", name="X")
    parts = te.ops.split(X, 1, [3, 4])
    f = tetune.build(tetune.Schedule(parts))
    x = np.arange(35, dtype="int32").reshape(5, 7)
    p0, p1 = f(x)
    np.testing.assert_array_equal(p0, x[:, :3])
    np.testing.assert_array_equal(p1, x[:, 3:])
    o0, o1 = np.empty((5, 3), "int32"), np.empty((5, 4), "int32")
    assert f(x, out=(o0, o1))[1] is o1
    np.testing.assert_array_equal(o1, x[:, 3:])


def test_time_and_lower(gemm, rng):
    A, B, C, f = gemm
    a, b = inputs(rng, A, B)
    ms = f.time(a, b, repeat=5)
    assert 0 < ms < 1000
    with pytest.raises(ValueError):
        f.time(a, b, repeat=0)
    text = f.lower()
    assert "vectorized" in text or "ramp(" in text  # Halide's vector code for j_i
    assert "f_C.s1.j.j_o" in f.loop_nest()  # one line per loop, Halide's names
    assert tetune.lower(tetune.Schedule(C)).count("for (") >= 3  # i, j, k at least


def cpu_flags():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


def test_host_target_is_cpuid_based():
    t = tetune.host_target()
    assert t.startswith("x86-64-linux") or "x86" not in t
    if "avx512_sapphirerapids" in t:  # only where the CPU has what Halide's Zen 4 mistake assumed (AVX512-FP16, AMX)
        assert {"avx512_fp16", "amx_tile"} <= cpu_flags(), t


def test_codegen_errors_are_named():
    _, _, C = matmul(8, 8, 8)
    with pytest.raises(tetune.CodegenError, match="unknown target"):
        tetune.build(tetune.Schedule(C), target="not-a-target")


def test_float16_and_bool_arrays_and_bfloat16_as_bit_patterns():
    X = te.placeholder((5,), "float16", name="X")
    Y = te.compute((5,), lambda i: X[i] * 2, name="Y")
    Z = te.compute((5,), lambda i: X[i] > 0.5, name="Z")
    x = np.linspace(0, 1, 5).astype("float16")
    y, z = tetune.build(tetune.Schedule([Y, Z]))(x)
    assert y.dtype == np.float16 and z.dtype == np.bool_
    np.testing.assert_array_equal(y, x * 2)
    np.testing.assert_array_equal(z, x > 0.5)
    H = te.placeholder((2,), "bfloat16", name="H")
    G = te.compute((2,), lambda i: H[i] + 1.0, name="G")
    g = tetune.build(tetune.Schedule(G))
    out = g(np.array([0x3F80, 0x4000], "uint16"))  # bfloat16 1.0, 2.0
    assert out.dtype == np.uint16 and out.tolist() == [0x4000, 0x4040]  # 2.0, 3.0
    with pytest.raises(tetune.KernelRuntimeError, match="bfloat16 \\(as uint16 bit patterns\\), got float32"):
        g(np.ones(2, "float32"))
