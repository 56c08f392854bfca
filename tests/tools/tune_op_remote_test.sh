#!/usr/bin/env bash
# `tetune tune-op --remote-command` hands each batch to the command (here the
# runner on this machine, behind a marker file) and stores its measurements;
# a GPU target is measured by the runner too, and without a GPU every trial is
# stored as a failure whose target names the missing driver; an unknown
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
TETUNE_MEASURE_RUNNER="$RUNNER" "$T" tune-op --op matmul --shape 64,48,40 --trials 3 --target cuda --db "$dir/gpu.db" \
  >"$dir/gpu.txt" 2>"$dir/gpu.err"
grep -q "^target: kind=cuda" "$dir/gpu.txt" || { echo "FAIL: GPU records not under a cuda target"; cat "$dir/gpu.txt"; exit 1; }
if grep -q "libcuda.so.1 not loadable" "$dir/gpu.txt"; then
  echo "no GPU here: every trial must be a stored failure"
  grep -q "^records: 3 (measured now 3, errors 3)" "$dir/gpu.txt" \
    || { echo "FAIL: trials without a GPU were not stored as failures"; cat "$dir/gpu.txt"; exit 1; }
else
  grep -q "^best: .* GFLOP/s" "$dir/gpu.txt" || { echo "FAIL: no GPU kernel was measured"; cat "$dir/gpu.txt" "$dir/gpu.err"; exit 1; }
fi
echo PASS
