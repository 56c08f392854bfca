#!/usr/bin/env bash
# `tetune tune-op --remote-command` hands each batch to the command (here the
# runner on this machine, behind a marker file) and stores its measurements;
# a GPU target is measured by the runner too, and without a GPU (and no
# --remote-command) it is refused before tuning, naming --target; an unknown
# --target is an error that names it.
set -euo pipefail
T="$1"
RUNNER="$2"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

"$T" tune-op --op matmul --shape 64,48,40 --trials 6 --threads 1 --db "$dir/log.db" --runner "$RUNNER" \
  --remote-command "touch '$dir/ran' && {runner} {dir}" >"$dir/remote.txt" 2>"$dir/remote.err"
[[ -f "$dir/ran" ]] || { echo "FAIL: the remote command never ran"; cat "$dir/remote.err"; exit 1; }
grep -q "^records: 6 (measured now 6, errors 0)" "$dir/remote.txt" \
  || { echo "FAIL: 6 remote measurements were not all stored"; cat "$dir/remote.txt" "$dir/remote.err"; exit 1; }
grep -q "^best: .* GFLOP/s" "$dir/remote.txt" || { echo "FAIL: no best schedule"; cat "$dir/remote.txt"; exit 1; }

if "$T" tune-op --op matmul --shape 64,48,40 --trials 1 --target no_such_target --db "$dir/log.db" >"$dir/err.txt" 2>&1; then
  echo "FAIL: an unknown target was accepted"; exit 1
fi
grep -q "no_such_target" "$dir/err.txt" || { echo "FAIL: the error does not name the target"; cat "$dir/err.txt"; exit 1; }

# No --remote-command / --runner: tune() itself sends a GPU task to the runner.
# Without a GPU here that is a usage error naming --target, before any trial (issue 21: it stored 16 failures, exit 0).
if ! TETUNE_MEASURE_RUNNER="$RUNNER" "$T" tune-op --op matmul --shape 64,48,40 --trials 3 --target cuda --db "$dir/gpu.db" \
  >"$dir/gpu.txt" 2>"$dir/gpu.err"; then
  echo "no GPU here: tune-op --target cuda must be refused before tuning"
  grep -q "^--target cuda: this machine cannot run CUDA kernels" "$dir/gpu.err" \
    || { echo "FAIL: the refusal does not name --target cuda"; cat "$dir/gpu.txt" "$dir/gpu.err"; exit 1; }
  [[ ! -e "$dir/gpu.db" ]] || { echo "FAIL: a refused GPU tuning created its log"; exit 1; }
else
  grep -q "^target: kind=cuda" "$dir/gpu.txt" || { echo "FAIL: GPU records not under a cuda target"; cat "$dir/gpu.txt"; exit 1; }
  grep -q "^best: .* GFLOP/s" "$dir/gpu.txt" || { echo "FAIL: no GPU kernel was measured"; cat "$dir/gpu.txt" "$dir/gpu.err"; exit 1; }
fi
echo PASS
