#!/usr/bin/env python3
"""A search policy written in Python, plugged into the C++ tuner and compared with the built-in random search.

    bazel build //python:tetune && eval "$(tools/python_env.sh)"
    /usr/bin/python3 examples/python/custom_policy.py [--trials 48] [--shape M,N,K] [--seed 0]

ModelGuidedSampling draws many fresh points of the search space, asks the
cost model (retrained by the tuner after every batch) to rank them, and
measures the best-ranked ones plus a few random ones. The tuner calls its
next_batch() and notify() from its C++ loop, exactly as it calls the
built-in policies. Both policies tune the same GEMM with the same budget,
each into its own fresh log; the script prints both bests and exits 1 when
a best kernel differs from NumPy or a record failed its reference check.
"""
import argparse
import os
import random
import sys
import tempfile

import numpy as np

import tetune
from tetune import autotune, log


class ModelGuidedSampling(autotune.SearchPolicy):
    """Random candidates ranked by the cost model: the best-ranked n - n/4, plus n/4 at random."""

    def __init__(self, ctx):
        super().__init__()  # required: pybind11 sets up the C++ side here
        self.ctx, self.rng = ctx, random.Random(ctx.seed)

    def name(self):
        return "model-guided-sampling"

    def next_batch(self, n):
        pool = self.ctx.sample_fresh(8 * n, seed=self.rng.getrandbits(64))  # distinct, unmeasured, valid
        if not self.ctx.model_trained:  # nothing measured yet: the scores would all be 0
            return pool[:n]
        explore = n // 4
        order = np.argsort(-self.ctx.predict(pool))  # higher score = predicted faster
        ranked = [pool[i] for i in order[:n - explore]]
        rest = [pool[i] for i in order[n - explore:]]
        return ranked + self.rng.sample(rest, min(explore, len(rest)))

    def notify(self, outcomes):
        pass  # the tuner retrains the cost model itself; a policy with its own state would learn here


def tune_with(policy, task, trials, seed, directory):
    db = os.path.join(directory, f"{policy if isinstance(policy, str) else 'python'}.db")
    result = autotune.tune(task, trials=trials, policy=policy, db=db, seed=seed, shipped_log=False)
    with log.open_read_only(db) as opened:
        wrong = [r for r in opened.records(task.workload_key, result.target_key) if r.error_code != 0]
    return result, wrong


def check(task, record):
    """Scaled max error of the record's kernel against NumPy's product."""
    kernel = tetune.build(task.schedule(record))
    rng = np.random.default_rng(1)
    a, b = (rng.standard_normal(t.shape, dtype=np.float32) for t in task.inputs)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    return np.abs(kernel(a, b) - ref).max() / np.abs(ref).max()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=48)
    parser.add_argument("--shape", default="256,256,256", help="matmul M,N,K")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    task = autotune.Task.from_op("matmul", [int(v) for v in args.shape.split(",")])
    print(task)
    failed = False
    with tempfile.TemporaryDirectory(prefix="tetune-policies-") as directory:
        for label, policy in (("python model-guided sampling", ModelGuidedSampling), ("built-in random", "random")):
            result, bad = tune_with(policy, task, args.trials, args.seed, directory)
            best = result.best
            if best is None:
                print(f"{label:30s} no successful trial", file=sys.stderr)
                failed = True
                continue
            error = check(task, best)
            print(f"{label:30s} best {best.gflops:8.2f} GFLOP/s ({best.median_ms:.3f} ms) after {result.total_records} "
                  f"trials, {len(bad)} failed, error vs NumPy {error:.1e}")
            for r in bad:
                print(f"  failed trial {r.trial_index}: {r.to_dict()['error_name']}: {r.error_msg[:120]}")
            failed |= not error < 1e-5 or any(r.to_dict()["error_name"] == "wrong_answer" for r in bad)
    if failed:
        print("FAILED: a best kernel differs from NumPy, or a candidate gave a wrong answer", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
