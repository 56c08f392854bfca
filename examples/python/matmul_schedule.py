#!/usr/bin/env python3
"""A matrix product from Python: compute, a hand schedule, build, check, time.

    bazel build //python:tetune && eval "$(tools/python_env.sh)"
    /usr/bin/python3 examples/python/matmul_schedule.py [--size M N K] [--repeat R]

The schedule is the classic CPU GEMM blocking: a tile of C held in
registers while k runs (cache_write), its columns one vector wide, rows of
tiles in parallel. Prints the schedule's trace, the error against NumPy
and the time of the default (unscheduled) and the hand-scheduled kernel.
Exits 1 when the result differs from NumPy.
"""
import argparse
import sys

import numpy as np

import tetune
from tetune import te


def gemm(M, N, K):
    A = te.placeholder((M, K), "float32", name="A")
    B = te.placeholder((K, N), "float32", name="B")
    k = te.reduce_axis((0, K), name="k")
    C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return A, B, C


def hand_schedule(C, rows=4, cols=32):
    """C in rows x cols register tiles: C.local accumulates a tile over all of k (k outermost), C copies it out."""
    s = tetune.Schedule(C)
    local = s.cache_write(C)
    io, jo, ii, ji = s.tile(C, "i", "j", rows, cols)
    s.parallel(C, io)
    s.vectorize(C, ji)
    s.compute_at(local, C, jo)
    # C.local keeps its own loops i, j, k; at C's jo loop Halide computes one tile of them, so
    # splitting i and j by the tile leaves outer loops of one iteration and inner ones to unroll.
    lio, lii = s.split(local, "i", rows)
    ljo, lji = s.split(local, "j", cols)
    s.reorder(local, [lio, ljo, "k", lii, lji])
    vo, vi = s.split(local, lji, 16)
    s.unroll(local, lii)
    s.unroll(local, vo)
    s.vectorize(local, vi)
    return s


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, nargs=3, default=[509, 515, 257], metavar=("M", "N", "K"))
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    M, N, K = args.size

    A, B, C = gemm(M, N, K)
    s = hand_schedule(C)
    print("trace:", *s.trace(), sep="\n  ")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, K), dtype=np.float32)
    b = rng.standard_normal((K, N), dtype=np.float32)

    kernel = tetune.build(s)
    c = kernel(a, b)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    error = np.abs(c - ref).max() / np.abs(ref).max()  # scaled, as base/ndarray.h's scaled_max_error
    print(f"max error / max |C|: {error:.2e}")

    naive = tetune.build(tetune.Schedule(C))
    for name, k in (("default", naive), ("hand", kernel)):
        ms = k.time(a, b, repeat=args.repeat)
        print(f"{name:8s} {ms:8.3f} ms  {k.flops / ms / 1e6:7.1f} GFLOP/s")
    if not error < 1e-5:
        print(f"FAILED: the kernel differs from NumPy (scaled error {error:.2e} >= 1e-5)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
