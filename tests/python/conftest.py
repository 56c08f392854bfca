"""Shared computes and arrays of the tetune Python tests."""
import numpy as np
import pytest

from tetune import te


def matmul(M, N, K, dtype="float32"):
    """C[i, j] = sum_k A[i, k] * B[k, j]: (A, B, C)."""
    A = te.placeholder((M, K), dtype, name="A")
    B = te.placeholder((K, N), dtype, name="B")
    k = te.reduce_axis((0, K), name="k")
    C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return A, B, C


def assert_close(actual, expected, rtol=1e-4, atol=1e-5):
    """float32 tolerances of base/ndarray.h's default_tolerance (reductions reorder their sums)."""
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)


@pytest.fixture
def rng():
    return np.random.default_rng(7)
