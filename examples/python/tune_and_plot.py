#!/usr/bin/env python3
"""Tune a convolution from Python and plot the best GFLOP/s against trials.

    bazel build //python:tetune && eval "$(tools/python_env.sh)"
    /usr/bin/python3 examples/python/tune_and_plot.py curve.png [--trials 64] [--shape N,C,H,W,K,R,S,stride,pad]
        [--db tune.db] [--threads N]

The convolution is the registry's `conv2d` (the one `tetune tune-op --op
conv2d` tunes). Every trial is compiled and timed in a child process and
checked against the plain-loop reference; its record goes into the tuning
log (--db, default a fresh log in a temporary directory, removed at the end). The curve is
written with matplotlib (Debian python3-matplotlib). Finally the best
schedule is built here and compared with a NumPy convolution: exits 1 when
it differs, 2 when no trial succeeded.
"""
import argparse
import os
import sys
import tempfile

import numpy as np

import tetune
from tetune import autotune


def conv_reference(x, w, stride, pad):
    """NCHW x OIHW convolution in float64, one shifted product per kernel tap."""
    n, _, h, wd = x.shape
    k, _, r, s = w.shape
    oh, ow = (h + 2 * pad - r) // stride + 1, (wd + 2 * pad - s) // stride + 1
    padded = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    out = np.zeros((n, k, oh, ow))
    for i in range(r):
        for j in range(s):
            patch = padded[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
            out += np.einsum("nchw,kc->nkhw", patch, w[:, :, i, j])
    return out


def plot(curve, title, path):
    import matplotlib
    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.4, 4))
    ax.plot(np.arange(1, len(curve) + 1), curve, drawstyle="steps-post")
    ax.set_xlabel("trials")
    ax.set_ylabel("best GFLOP/s")
    ax.set_title(title)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("png", help="where to write the tuning curve (PNG)")
    parser.add_argument("--trials", type=int, default=64)
    parser.add_argument("--shape", default="1,64,28,28,64,3,3,1,1", help="conv2d N,C,H,W,K,R,S,stride,pad")
    parser.add_argument("--db", help="tuning log to write into (default: a new one in a temporary directory)")
    parser.add_argument("--threads", type=int, help="kernel threads (default: this machine's cores)")
    args = parser.parse_args()
    shape = [int(v) for v in args.shape.split(",")]
    if len(shape) != 9:
        parser.error("--shape takes 9 numbers: N,C,H,W,K,R,S,stride,pad")

    task = autotune.Task.from_op("conv2d", shape, threads=args.threads)
    if args.db:
        return tune_plot_check(task, shape, args.db, args)
    with tempfile.TemporaryDirectory(prefix="tetune-example-") as directory:
        return tune_plot_check(task, shape, os.path.join(directory, "tune.db"), args)


def tune_plot_check(task, shape, db, args):
    print(f"{task}\nrecords go into {db}" + ("" if args.db else " (temporary; --db PATH keeps them)"))

    def report(p):
        if p["trials_done"] % 8 == 0 or p["trials_done"] == p["trials_total"]:
            print(f"  {p['trials_done']:4d}/{p['trials_total']} trials  best {p['best_gflops']:7.2f} GFLOP/s  "
                  f"errors {p['errors']}", flush=True)

    result = autotune.tune(task, trials=args.trials, db=db, progress=report)
    print(result)
    if result.best is None:
        print("FAILED: no trial succeeded", file=sys.stderr)
        return 2
    print(f"best: {result.best.median_ms:.3f} ms, {result.best.gflops:.2f} GFLOP/s (trial {result.best.trial_index})")
    plot(result.curve, f"{task.name}, {task.threads} threads", args.png)
    print(f"curve: {args.png}")

    # The tuned kernel, built in this process, against NumPy.
    kernel = tetune.build(task.schedule(result.best))
    rng = np.random.default_rng(0)
    x, w = (rng.standard_normal(t.shape, dtype=np.float32) for t in task.inputs)
    ref = conv_reference(x, w, stride=shape[7], pad=shape[8])
    error = np.abs(kernel(x, w) - ref).max() / np.abs(ref).max()
    print(f"max error / max |y| against NumPy: {error:.2e}")
    if not error < 1e-5:
        print(f"FAILED: the tuned kernel differs from NumPy (scaled error {error:.2e} >= 1e-5)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
