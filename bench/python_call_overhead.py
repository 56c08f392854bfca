#!/usr/bin/env python3
"""What calling a tetune kernel from Python costs on top of the C++ call.

    bazel build //python:tetune && eval "$(tools/python_env.sh)"
    /usr/bin/python3 bench/python_call_overhead.py [--calls N] [--size N]

Times a tiny kernel (an elementwise add of --size floats, so the kernel
itself is little more than Halide's call) two ways: N calls of the Python
kernel object (argument checks, array views, GIL release) timed from Python,
and Kernel.time, which times N runs inside C++ (Kernel::median_ms_views:
the same Kernel::run_views call, without Python). Prints the medians of
several rounds of each per call in microseconds, and their difference: the
Python overhead. Goal: < 5 us.
"""
import argparse
import statistics
import time

import numpy as np

import tetune
from tetune import te


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000, help="calls per round")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--size", type=int, default=16, help="elements of the add")
    args = parser.parse_args()

    A = te.placeholder((args.size,), name="A")
    B = te.placeholder((args.size,), name="B")
    C = te.compute((args.size,), lambda i: A[i] + B[i], name="C")
    kernel = tetune.build(tetune.Schedule(C), runtime_checks=False)
    a, b, c = (np.ones(args.size, np.float32) for _ in range(3))

    def python_us(**kw):
        start = time.perf_counter()
        for _ in range(args.calls):
            kernel(a, b, **kw)
        return (time.perf_counter() - start) / args.calls * 1e6

    python_us(out=c)  # warm-up: the thread pool, caches
    rows = {"python, out=": [], "python, new output": [], "c++ (Kernel.time)": []}
    for _ in range(args.rounds):
        rows["python, out="].append(python_us(out=c))
        rows["python, new output"].append(python_us())
        rows["c++ (Kernel.time)"].append(kernel.time(a, b, out=c, repeat=args.calls) * 1e3)
    medians = {name: statistics.median(v) for name, v in rows.items()}
    for name, us in medians.items():
        print(f"{name:22s} {us:7.3f} us per call")
    overhead = medians["python, out="] - medians["c++ (Kernel.time)"]
    print(f"{'python overhead':22s} {overhead:7.3f} us per call (goal < 5 us)")


if __name__ == "__main__":
    main()
