#!/usr/bin/env bash
# `tetune tune-op` and `tetune run-op` build the same computes (the operator
# registry), so the best schedule tune-op prints replays in run-op, which checks
# it against the interpreter; an unknown operator and a malformed shape are
# errors that name them.
set -euo pipefail
T="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

check() {  # op shape
  "$T" tune-op --op "$1" --shape "$2" --trials 6 --threads 1 --db "$dir/log.db" --no-library >"$dir/tune.txt" 2>/dev/null
  grep -q "^task: $1_" "$dir/tune.txt" || { echo "FAIL: no task line for $1"; cat "$dir/tune.txt"; exit 1; }
  sed -n 's/^schedule: //p' "$dir/tune.txt" >"$dir/best.json"
  [[ -s "$dir/best.json" ]] || { echo "FAIL: tune-op printed no schedule for $1"; cat "$dir/tune.txt"; exit 1; }
  "$T" run-op --op "$1" --shape "$2" --schedule "$dir/best.json" --threads 1 --repeat 2 >"$dir/run.txt" 2>&1 \
    || { echo "FAIL: run-op could not run tune-op's schedule for $1"; cat "$dir/run.txt"; exit 1; }
  grep -q "OK" "$dir/run.txt" || { echo "FAIL: run-op's check of $1"; cat "$dir/run.txt"; exit 1; }
  echo "ok: $1 $2"
}
check matmul 64,48,40
check conv2d 1,8,12,12,16,3,3,1,1

if "$T" tune-op --op no_such_op --shape 4 --trials 1 --db "$dir/log.db" >"$dir/err.txt" 2>&1; then
  echo "FAIL: an unknown op was accepted"; exit 1
fi
grep -q "no_such_op" "$dir/err.txt" || { echo "FAIL: error does not name the op"; cat "$dir/err.txt"; exit 1; }
if "$T" tune-op --op matmul --shape 64,x,40 --trials 1 --db "$dir/log.db" >"$dir/err.txt" 2>&1; then
  echo "FAIL: a malformed shape was accepted"; exit 1
fi
grep -q "'x' in '64,x,40'" "$dir/err.txt" || { echo "FAIL: error does not name the bad shape item"; cat "$dir/err.txt"; exit 1; }
echo "all ok"
