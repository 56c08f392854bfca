#!/usr/bin/env python3
"""Lesson 4: add an operator (the Python twin of lesson_04_new_op.cc).

An operator in tetune is a function that returns a TE compute (lesson 1): it
checks its inputs, raising the tetune error class that names what is wrong,
and builds one or more stages. This lesson adds RMS normalization (ONNX
RMSNormalization, opset 23; the LayerNorm without the mean of LLaMA-style
models) over the last axis:

    y[..., j] = x[..., j] / sqrt(mean_j(x[..., j]^2) + epsilon) * scale[j]

as two stages: "rms_norm.sumsq", a reduction, and "rms_norm", elementwise.

The operator registry (te/ops/registry.h, te.ops.registry() here) names a
workload: an op name plus integers (its --shape form) build a concrete
compute. Its entries are C++: a name, the form, a description with the layout
and the ONNX op, an example shape and a builder. This lesson writes the
Python equivalent of an entry, a builder from the shape to (inputs, outputs)
as te.ops.build_op returns them. To add the op to tetune for good, the
compute goes into te/ops/norm.{h,cc} and the entry into
te/ops/registry_reduce.cc (lesson_04_new_op.cc shows both); then `tetune ops`
lists it, te.ops.build_op("rms_norm", [6, 40]) builds it, and
//tests/te:op_registry_test checks its default schedule against the reference
interpreter.

An ONNX model reaches the op through relay_import: each ONNX op has a lowering
(relay_import/lowering*.cc) from its node to te/ops computes, and an entry in
a table with its fusion pattern; lesson_04_new_op.cc shows the lowering of
RMSNormalization. Here the lesson checks the op against NumPy and the
reference interpreter, gives it the default schedule of an untuned task and
a schedule of its own, and checks that a bad scale raises the error it must.

    bazel build //python:tetune && eval "$(tools/python_env.sh)"
    /usr/bin/python3 examples/tutorial/lesson_04_new_op.py
"""
import sys

import numpy as np

import tetune
from tetune import autotune, te


def fail(what):
    print(f"FAILED: {what}", file=sys.stderr)
    sys.exit(1)


def rms_norm(x, scale, epsilon=1e-5, name="rms_norm"):
    """RMS normalization over the last axis: x [..., D] float32, scale [D] -> y of x's shape.

    Stages "<name>.sumsq" (sum of squares, shape [..., 1]) and <name>. ShapeError when scale is not
    [D], DTypeError for a dtype other than float32, OpAttributeError for epsilon < 0.
    """
    op = "RMSNormalization"
    if x.dtype != "float32" or scale.dtype != "float32":
        raise tetune.DTypeError(f"{op}: x and scale must be float32, got {x.dtype} and {scale.dtype}")
    D = x.shape[-1]
    if tuple(scale.shape) != (D,):
        raise tetune.ShapeError(f"{op}: scale '{scale.name}' has shape {list(scale.shape)}, expected [{D}] "
                                f"(the last axis of x {list(x.shape)})")
    if epsilon < 0:
        raise tetune.OpAttributeError(f"{op}: attribute 'epsilon' = {epsilon} is negative")
    axes = [f"i{a}" for a in range(len(x.shape))]

    k = te.reduce_axis(D, name="k")
    sumsq = te.compute(tuple(x.shape[:-1]) + (1,), lambda *i: te.sum(x[i[:-1] + (k,)] * x[i[:-1] + (k,)], axis=k),
                       name=f"{name}.sumsq", tag="reduce", axis_names=axes)
    return te.compute(tuple(x.shape),
                      lambda *i: x[i] / te.sqrt(sumsq[i[:-1] + (0,)] / float(D) + epsilon) * scale[i[-1]],
                      name=name, tag="norm", axis_names=axes)


# The registry entry, as te.ops.registry() shows entries, with its builder.
RMS_NORM_ENTRY = {
    "name": "rms_norm",
    "shape_help": "D0,...,Dn",
    "description": "x / sqrt(mean(x^2) + 1e-5) * scale[Dn] over the last axis (ONNX RMSNormalization, opset 23)",
    "example": "6,40",
}


def build_rms_norm(shape):
    """(inputs, outputs) for a --shape, as te.ops.build_op returns them."""
    x = te.placeholder(tuple(shape), "float32", name="x")
    scale = te.placeholder((shape[-1],), "float32", name="scale")
    return [x, scale], [rms_norm(x, scale)]


def numpy_rms_norm(x, scale):
    x64 = x.astype(np.float64)
    return x64 / np.sqrt((x64 * x64).mean(axis=-1, keepdims=True) + 1e-5) * scale


def check_kernel(label, schedule, x, scale, reference):
    kernel = tetune.build(schedule)
    args = {"x": x, "scale": scale}
    y = kernel(*[args[t["name"]] for t in kernel.inputs])  # kernel inputs in Schedule.inputs order
    worst = float(np.abs(y - reference).max())
    print(f"{label} vs interpreter: max |diff| {worst:.1e}")
    if not worst < 1e-5:
        fail(f"the {label} kernel differs from the interpreter")


def main():
    e = RMS_NORM_ENTRY
    shape = [int(d) for d in e["example"].split(",")]
    print(f"{e['name']:10s} --shape {e['shape_help']:10s} e.g. {e['example']:6s} {e['description']}")
    inputs, outputs = build_rms_norm(shape)
    stages = [t.name for t in te.post_order(outputs) if t.name not in ("x", "scale")]
    print(f"inputs: {', '.join(f'{t.name} {list(t.shape)}' for t in inputs)}; stages: {', '.join(stages)}")

    # 1. The reference interpreter against NumPy.
    rng = np.random.default_rng(1)
    x = rng.uniform(-2, 2, shape).astype(np.float32)
    scale = rng.uniform(0.5, 1.5, shape[-1]).astype(np.float32)
    (reference,) = te.evaluate(outputs, inputs, [x, scale])
    worst = float(np.abs(reference - numpy_rms_norm(x, scale)).max())
    print(f"interpreter vs NumPy: max |diff| {worst:.1e}")
    if not worst < 1e-5:
        fail("the compute differs from the formula")

    # 2. The schedule an untuned task gets (the analytical default), against the interpreter.
    task = autotune.Task(outputs, name="rms_norm_6x40", threads=1)
    default = task.default_schedule()
    print("default schedule:", "; ".join(default.trace()) or "(no steps)")
    check_kernel("default schedule", default, x, scale, reference)

    # 3. A schedule of its own: rows in parallel, each row's sum of squares computed
    # inside the row loop (compute_at), the row's elements in vectors of 8.
    y = outputs[0]
    s = tetune.Schedule(y)
    s.parallel(y, "i0")
    s.compute_at(f"{y.name}.sumsq", y, "i0")
    s.vectorize(y, s.split(y, "i1", 8)[1])
    print("own schedule:", "; ".join(s.trace()))
    check_kernel("own schedule", s, x, scale, reference)

    # 4. A scale that does not match x is refused with an error naming it.
    try:
        rms_norm(inputs[0], te.placeholder((7,), "float32", name="bad_scale"))
        fail("a scale of the wrong shape must raise ShapeError")
    except tetune.ShapeError as err:
        print(f"refused: {err}")
    print("\nlesson 4 OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
