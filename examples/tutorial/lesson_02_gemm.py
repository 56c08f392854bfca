#!/usr/bin/env python3
"""Lesson 2: a hand-scheduled matrix product (the Python twin of lesson_02_gemm.cc).

C[i, j] = sum_k A[i, k] B[k, j] is three loops and two lines of compute. A
fast CPU GEMM is the same compute with a schedule that feeds the vector units
from registers and caches (Goto and van de Geijn, "Anatomy of
High-Performance Matrix Multiplication", 2008; TVM's "How to optimize GEMM on
CPU"). This lesson adds the schedule's ideas one at a time and prints GFLOP/s
after each:

  blocking      tile C into register blocks of 8 rows x 32 columns and run k
                outside the block, so every loaded B vector is used 8 times;
                the 32 columns are 2 vectors of 16 lanes, unrolled.
  write cache   cache_write gives the block an accumulator stage, C.local,
                computed at each block: it lives in registers while k runs,
                and C receives each element once.
  packing       cache_read copies B, and pack_layout stores the copy in
                panels of 32 columns, so the block reads k rows of 32
                contiguous floats instead of rows 2 KiB apart.
  parallel      outer tiles of 64 x 128 are fused into one loop and run in
                parallel on every core.

Every version is checked against NumPy (in float64); speeds are printed,
never asserted. NumPy's own float32 matmul (its BLAS) is timed for
comparison; the C++ lesson compares with oneDNN.

    bazel build //python:tetune && eval "$(tools/python_env.sh)"
    /usr/bin/python3 examples/tutorial/lesson_02_gemm.py
"""
import os
import sys
import time

import numpy as np

import tetune
from tetune import te

N = 512                         # M = N = K
ROWS, COLS = 8, 32              # register block of C
TILE_ROWS, TILE_COLS = 64, 128  # parallel tile of C (multiples of the block)
LANES = 16                      # vector lanes (AVX-512 float; narrower CPUs split them)


def fail(what):
    print(f"FAILED: {what}", file=sys.stderr)
    sys.exit(1)


def gemm_schedule(B, C, write_cache=False, pack=False, parallel=False):
    """The GEMM schedule with the lesson's ideas switched on."""
    s = tetune.Schedule(C)
    # cache_write and pack_layout must come before other steps on their stages.
    L = s.cache_write(C) if write_cache else s.stage_of(C)
    # C's loops: parallel tiles, then register blocks inside them.
    io, jo, ii, ji = s.tile(C, "i", "j", TILE_ROWS, TILE_COLS)
    bi, ri = s.split(C, ii, ROWS)
    bj, rj = s.split(C, ji, COLS)
    if parallel:
        s.parallel(C, s.fuse(C, io, jo))
    if write_cache:
        # C only copies the block out of C.local: vectorize the copy ...
        s.reorder(C, [bi, bj, ri, rj])
        s.vectorize(C, s.split(C, rj, LANES)[1])
        # ... and compute C.local, whose own loops are i, j, k, once per block. Its
        # i and j split by the block leave outer loops of one iteration there.
        s.compute_at(L, C, bj)
        li_o, li = s.split(L, "i", ROWS)
        lj_o, lj = s.split(L, "j", COLS)
        lv_o, lv = s.split(L, lj, LANES)
        s.reorder(L, [li_o, lj_o, "k", li, lv_o, lv])
        s.unroll(L, li)
        s.unroll(L, lv_o)
        s.vectorize(L, lv)
    else:
        # Without a write cache the block accumulates in C itself, k outside it.
        v_o, v = s.split(C, rj, LANES)
        s.reorder(C, [bi, bj, "k", ri, v_o, v])
        s.unroll(C, ri)
        s.unroll(C, v_o)
        s.vectorize(C, v)
    if pack:
        # B read through a copy stored in panels of COLS columns: [N / 32, K, 32].
        P = s.cache_read(B, [L])
        panel, col = s.pack_layout(P, "ax1", COLS)
        if parallel:
            s.parallel(P, panel)
        s.vectorize(P, s.split(P, col, LANES)[1])
    return s


def gflops(ms):
    return 2.0 * N * N * N / (ms * 1e6)


def run(label, s, a, b, ref, repeat):
    """Builds, checks against the reference and times one schedule; returns its GFLOP/s."""
    kernel = tetune.build(s)
    c = kernel(a, b)
    error = float(np.abs(c - ref).max() / np.abs(ref).max())
    ms = kernel.time(a, b, repeat=repeat)
    print(f"{label:34s} {ms:9.3f} ms {gflops(ms):8.1f} GFLOP/s   error {error:.1e}")
    if not error < 1e-5:
        fail(f"{label}: the product differs from NumPy")
    return gflops(ms)


def numpy_gflops(a, b):
    """NumPy's float32 matmul: median of 20 timed calls after 3 warm-up calls."""
    for _ in range(3):
        a @ b
    times = []
    for _ in range(20):
        t0 = time.perf_counter()
        a @ b
        times.append((time.perf_counter() - t0) * 1e3)
    return gflops(sorted(times)[len(times) // 2])


def main():
    # Kernels run on every core.
    tetune.set_num_threads(os.cpu_count() or 1)
    A = te.placeholder((N, N), "float32", name="A")
    B = te.placeholder((N, N), "float32", name="B")
    k = te.reduce_axis(N, name="k")
    C = te.compute((N, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")

    rng = np.random.default_rng(1)
    a = rng.uniform(-1, 1, (N, N)).astype(np.float32)
    b = rng.uniform(-1, 1, (N, N)).astype(np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    print(f"C[{N} x {N}] = A B, K = {N}, {tetune.num_threads()} threads")
    # NumPy first, before tetune's kernels start their worker threads.
    library = numpy_gflops(a, b)

    naive = run("default schedule (i, j, k loops)", tetune.Schedule(C), a, b, ref, 2)
    run("+ blocking, vectorize, unroll", gemm_schedule(B, C), a, b, ref, 10)
    run("+ write cache (C.local)", gemm_schedule(B, C, write_cache=True), a, b, ref, 10)
    run("+ packed B panels", gemm_schedule(B, C, write_cache=True, pack=True), a, b, ref, 10)
    best = run("+ parallel tiles", gemm_schedule(B, C, write_cache=True, pack=True, parallel=True), a, b, ref, 10)
    print(f"{'NumPy float32 matmul':34s} {'':9s}    {library:8.1f} GFLOP/s")
    print(f"hand schedule: {best / naive:.0f}x the default schedule, {best / library:.2f}x NumPy's speed")
    print("\nlesson 2 OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
