#!/usr/bin/env python3
"""Lesson 5: compile and run an ONNX model with a tuning log (the Python twin of lesson_05_onnx_model.cc).

A model is many operators. relay_import reads the ONNX file (the input shapes
made concrete), lowers each node to operators of te/ops (lesson 4), runs graph
passes (constant folding, batch norms folded into convolutions) and fuses the
graph into groups: a convolution with the elementwise operators after it is
one kernel. Each group is a tuning task with a workload key, and equal groups
share one kernel.

tetune.model.tune_model spreads a trial budget over the model's tasks (a
gradient-based task scheduler; `tetune tune`). compile_model gives every task
a schedule: the best record of the tuning logs read (the db given, then the
shipped log) when there is one, else an analytical default; it compiles each
kernel ahead of time into OUT/libmodel.so with graph.bin, weights.bin and
manifest.json (`tetune compile`). model.load runs the export with the
compiler-free runtime (`tetune run`).

This lesson spends 8 trials on the model's first task, in a temporary log,
exports the model with that log, runs it, and checks it against the same
model exported without any log (default schedules: the C++ lesson checks
against the JIT executor, `tetune run-model`). It takes the PaddleOCR
text-direction classifier (models/ppocr/, fetched by tools/setup.sh) and says
so and exits 0 when the model is absent. Compiling its 60 kernels twice takes
most of its time (about 20 s on 2 cores).

    bazel build //python:tetune && eval "$(tools/python_env.sh)"
    /usr/bin/python3 examples/tutorial/lesson_05_onnx_model.py
"""
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

from tetune import model


def fail(what):
    print(f"FAILED: {what}", file=sys.stderr)
    sys.exit(1)


def models_dir():
    """$TETUNE_MODELS (set by the lesson's test), else the models/ of the repository holding this file."""
    return Path(os.environ.get("TETUNE_MODELS") or Path(__file__).resolve().parents[2] / "models")


def main():
    onnx_path = models_dir() / "ppocr" / "ch_ppocr_mobile_v2.0_cls_infer.onnx"
    if not onnx_path.exists():
        print(f"skipped: {onnx_path} is missing (tools/setup.sh fetches the PaddleOCR models into models/ppocr/)")
        return 0
    threads = 1                            # tuned, compiled and run with one thread
    shapes = {"x": (1, 3, 48, 192)}        # x is [?, 3, 48, ?] in the file
    tmp = Path(tempfile.mkdtemp(prefix="tetune-lesson5-"))
    log = str(tmp / "lesson5.db")

    # 1. Tune: 8 trials; small elementwise tasks are skipped, no baseline is measured.
    r = model.tune_model(onnx_path, input_shapes=shapes, trials=8, batch=8, db=log, threads=threads,
                         shipped_log=False, measure_baseline=False, small_task_trials=0)
    tuned = [t for t in r.tasks if t.trials > 0]
    print(f"{onnx_path}: {len(r.tasks)} tasks; {r.trials_used} trials in {r.elapsed_s:.1f} s")
    for t in tuned:
        print(f"  tuned {t.name}: {t.trials} records, best {t.best_ms:.4f} ms ({t.gflops:.1f} GFLOP/s)")
    if not tuned:
        fail("no task was tuned")

    # 2. Export with that log (and not the shipped one): the tuned task's schedule is its record.
    exported = model.compile_model(onnx_path, tmp / "tuned", input_shapes=shapes, db=log, threads=threads,
                                   shipped_log=False)
    print(f"exported {exported.tasks} kernels to {exported.dir}; schedules: {exported.task_sources}")
    if exported.task_sources["record"] != len(tuned):
        fail("each tuned task should take its schedule from the log")

    # 3. The same model without any log: every task gets its default schedule.
    plain = model.compile_model(onnx_path, tmp / "plain", input_shapes=shapes, threads=threads, tuned=False)
    print(f"exported {plain.tasks} kernels to {plain.dir}; schedules: {plain.task_sources}")

    # 4. Run both with the compiler-free runtime on the same input and compare.
    x = np.random.default_rng(7).uniform(-1, 1, shapes["x"]).astype(np.float32)
    y = model.load(exported.dir, threads=threads).run(x=x)
    expected = model.load(plain.dir, threads=threads).run(x=x)
    for name, value in y.items():
        error = float(np.abs(value - expected[name]).max() / max(np.abs(expected[name]).max(), 1e-30))
        print(f"output {name} {list(value.shape)}: tuned {value.ravel()[:2]}, default {expected[name].ravel()[:2]}, "
              f"scaled error {error:.1e}")
        if not error < 1e-4:
            fail("the tuned export differs from the default one")

    shutil.rmtree(tmp)  # the lesson's own log and exports
    print("\nlesson 5 OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
