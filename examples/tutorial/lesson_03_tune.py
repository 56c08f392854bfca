#!/usr/bin/env python3
"""Lesson 3: tune an operator and replay the best record (the Python twin of lesson_03_tune.cc).

Lesson 2 wrote a schedule by hand. The tuner writes them instead, in the
manner of Ansor (Zheng et al., OSDI 2020): sketch rules (multi-level tiling,
caching, inlining, parallel outer loops) give the shapes a schedule may take,
random tile sizes and annotations fill them in, an evolutionary search guided
by an XGBoost cost model proposes the next batch, and every candidate is
compiled, checked against the reference and timed in a child process (a crash
or a hang ends only the child).

Every measurement becomes a record in a tuning log (a SQLite file): the
schedule's trace as JSON, its times, its GFLOP/s or the error it hit. A record
is keyed by the workload (a hash of the compute, so the same matmul in two
models is one task) and the target (this CPU, its extensions, the thread
count). tune() resumes from the records already there; the log ranks them and
best() returns the winner.

Replaying is lesson 1 again: parse the trace, apply it to the compute, build.
The compute may be built afresh (a model compiled tomorrow); equal computes
have equal workload keys and the trace names its stages canonically, so it
applies. This lesson tunes a small matmul for a few seconds into a temporary
log, replays the best record on a freshly built compute, and checks it
against NumPy and the reference interpreter. The command line does the same
with `tetune tune-op --op matmul --shape 128,128,128`.

    bazel build //python:tetune && eval "$(tools/python_env.sh)"
    /usr/bin/python3 examples/tutorial/lesson_03_tune.py
"""
import shutil
import sys
import tempfile

import numpy as np

import tetune
from tetune import autotune, te


def fail(what):
    print(f"FAILED: {what}", file=sys.stderr)
    sys.exit(1)


def main():
    shape = [128, 128, 128]  # matmul M, N, K (te.ops.registry() lists the operators)
    tmp = tempfile.mkdtemp(prefix="tetune-lesson3-")
    log_path = f"{tmp}/lesson3.db"

    # The task: the operator's compute, the target (this CPU) and the thread count.
    task = autotune.Task.from_op("matmul", shape, threads=1)
    print(f"task {task.name}: workload key {task.workload_key}, {task.flops / 1e6:.1f} MFLOP per run")

    # A small budget: 16 candidates in batches of 8 (real tuning takes hundreds).
    def progress(p):
        if p["trials_done"] % 8 == 0:
            print(f"  {p['trials_done']:2d} / {p['trials_total']} trials, best so far {p['best_gflops']:.1f} GFLOP/s, "
                  f"{p['errors']} errors")

    r = autotune.tune(task, trials=16, batch_size=8, db=log_path, shipped_log=False, seed=1, op_name="matmul",
                      progress=progress)
    print(f"tuned: {r.total_records} records in {r.elapsed_s:.1f} s into {log_path}")
    if r.best is None:
        fail("tuning found no valid schedule")

    # The log: its best record of this workload on this target.
    with tetune.log.open(log_path, read_only=True) as log:
        best = log.best(task.workload_key, r.target_key, 1)
    if not best:
        fail("the log holds no valid record of the task")
    record = best[0]
    print(f"best record #{record.id} (trial {record.trial_index}): {record.median_ms:.4f} ms, {record.gflops:.1f} GFLOP/s")

    # Replay it on the compute built again: new tensors, the same workload key.
    inputs, outputs = te.ops.build_op("matmul", shape)
    if te.workload_key(outputs) != task.workload_key:
        fail("equal computes must share a workload key")
    replayed = tetune.Schedule.from_json(outputs, record.schedule_json)
    print("its trace, step by step (lesson 2's ideas, found by the search):")
    for step in replayed.trace():
        print(f"  {step}")
    tuned = tetune.build(replayed)
    plain = tetune.build(tetune.Schedule(outputs))

    rng = np.random.default_rng(7)
    a, b = (rng.uniform(-1, 1, t.shape).astype(np.float32) for t in inputs)
    c = tuned(a, b)
    (reference,) = te.evaluate(outputs, inputs, [a, b])  # the reference interpreter
    error = float(np.abs(c - reference).max() / np.abs(reference).max())
    numpy_error = float(np.abs(c - a.astype(np.float64) @ b).max() / np.abs(reference).max())
    print(f"replayed kernel vs the interpreter: scaled error {error:.1e}; vs NumPy {numpy_error:.1e}")
    if not (error < 1e-5 and numpy_error < 1e-5):
        fail("the replayed schedule differs from the reference")

    plain_ms, tuned_ms = plain.time(a, b, repeat=5), tuned.time(a, b, repeat=20)
    print(f"default schedule {plain_ms:.3f} ms, tuned {tuned_ms:.3f} ms ({plain_ms / tuned_ms:.1f}x)")

    shutil.rmtree(tmp)  # the lesson's own temporary log
    print("\nlesson 3 OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
