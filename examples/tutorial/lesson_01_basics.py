#!/usr/bin/env python3
"""Lesson 1: a compute and its schedule (the Python twin of lesson_01_basics.cc).

tetune keeps *what* a kernel computes apart from *how* it computes it, as
Halide and TVM do. The what is a tensor expression: te.placeholder() names an
input, te.compute() gives every element of an output as a function of its
index. Writing one runs nothing; it describes a small DAG of tensors.

The how is a Schedule: steps such as split, reorder, vectorize and parallel
that rearrange each stage's loops. A step is checked when it is applied (an
illegal one raises tetune.ScheduleError and leaves the schedule as it was)
and is recorded, so a schedule is a trace that can be written as JSON and
replayed on the same compute. The tuner stores exactly these traces (lesson 3).

tetune.build() hands both to Halide, which compiles a kernel for this CPU; the
kernel runs on NumPy arrays in place. A schedule changes the loop nest, never
the result: this lesson builds the same compute three ways, prints each
stage's loops as the schedule left them, and checks every result against
NumPy. (Halide's own view of a kernel is kernel.lower().)

    bazel build //python:tetune && eval "$(tools/python_env.sh)"
    /usr/bin/python3 examples/tutorial/lesson_01_basics.py
"""
import sys

import numpy as np

import tetune
from tetune import te


def fail(what):
    print(f"FAILED: {what}", file=sys.stderr)
    sys.exit(1)


def print_loops(s):
    """Each stage's loops, outermost first, with their annotations."""
    for stage in s.stages:
        print(f"  stage {stage.name}:")
        for depth, loop in enumerate(stage.leaves):
            note = f"  {loop.annotation}" if loop.annotation else ""
            print(f"    {'  ' * depth}for {loop.name} in [0, {loop.extent}){note}")


def check_against_numpy(kernel, image, label):
    out = kernel(image)
    H, W = image.shape
    expected = image * np.float32(1.5) + np.arange(W, dtype=np.float32) / np.float32(W)
    worst = float(np.abs(out - expected).max())
    print(f"{label}: max |kernel - numpy| = {worst:.2g}")
    if not worst < 1e-5:
        fail(f"{label} differs from NumPy")


def main():
    # The compute: brighten an image and add a horizontal ramp. The lambda's
    # parameter names ("y", "x") become the axis names that schedules use.
    H, W = 64, 200
    image = te.placeholder((H, W), "float32", name="image")
    out = te.compute((H, W), lambda y, x: image[y, x] * 1.5 + te.cast(x, "float32") / float(W), name="out")
    pixels = np.random.default_rng(1).random((H, W), dtype=np.float32)

    # 1. No steps: every stage at root, loops in declaration order, y outside x.
    plain = tetune.Schedule(out)
    print("-- default schedule")
    print_loops(plain)
    check_against_numpy(tetune.build(plain), pixels, "default")

    # 2. reorder: x outside y walks the image column by column. Legal (each
    # element is computed once either way), only slower: strided memory access.
    columns = tetune.Schedule(out)
    columns.reorder(out, ["x", "y"])
    print("\n-- reorder(x, y)")
    print_loops(columns)
    check_against_numpy(tetune.build(columns), pixels, "reorder")

    # 3. The usual CPU schedule: split x into vectors of 8 lanes (x_o, x_i),
    # vectorize x_i, run the rows in parallel.
    fast = tetune.Schedule(out)
    xo, xi = fast.split(out, "x", 8)
    fast.vectorize(out, xi)
    fast.parallel(out, "y")
    print("\n-- split(x, 8), vectorize(x_i), parallel(y)")
    print_loops(fast)
    kernel = tetune.build(fast)
    check_against_numpy(kernel, pixels, "split+vectorize+parallel")
    # Halide's loop nest of the kernel shows the effect: one dense 8-lane store per x_o.
    stores = [line.split() for line in kernel.loop_nest().splitlines() if line.split()[:1] == ["store"]]
    lanes = int(stores[0][2].lstrip("x")) if stores else 0
    print(f"the compiled kernel stores {lanes} lanes at a time")
    if lanes != 8:
        fail("vectorize(x_i) should give 8-lane stores")

    # A step that names a loop which no longer exists is refused, and the
    # schedule stays as it was: x was split into x_o and x_i above.
    try:
        fast.vectorize(out, "x")
        fail("vectorize of a loop that was split away should raise ScheduleError")
    except tetune.ScheduleError as e:
        print(f"\nvectorize(x) after the split is refused: {e}")
    if len(fast.trace()) != 3:
        fail("a refused step must not enter the trace")

    # The schedule is its trace. Written as JSON and replayed, it builds the same kernel.
    text = fast.trace_json()
    print(f"\ntrace: {text}")
    replayed = tetune.Schedule.from_json(out, text)
    check_against_numpy(tetune.build(replayed), pixels, "replayed trace")
    print("\nlesson 1 OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
