#!/usr/bin/env bash
# `tetune tune-op` and `tetune run-op` build the same computes (the operator
# registry), so the best schedule tune-op prints replays in run-op, which checks
# it against the interpreter, alone or side by side with another; an unknown
# operator, a malformed shape or schedule file and --rounds 0 are errors that
# name them.
set -euo pipefail
T="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

check() {  # op shape
  "$T" tune-op --op "$1" --shape "$2" --trials 6 --threads 1 --db "$dir/log.db" --no-library >"$dir/tune.txt" 2>/dev/null
  grep -q "^task: $1_" "$dir/tune.txt" || { echo "FAIL: no task line for $1"; cat "$dir/tune.txt"; exit 1; }
  # 6 trials leave no budget to re-measure the best schedule: tune-op says so.
  grep -q "^best: .*(trial [0-9]*, measured 1 times)" "$dir/tune.txt" \
    && grep -q "^note: the best schedule was measured 1 time(s)" "$dir/tune.txt" \
    || { echo "FAIL: tune-op did not report that its best was measured once"; cat "$dir/tune.txt"; exit 1; }
  sed -n 's/^schedule: //p' "$dir/tune.txt" >"$dir/best.json"
  [[ -s "$dir/best.json" ]] || { echo "FAIL: tune-op printed no schedule for $1"; cat "$dir/tune.txt"; exit 1; }
  "$T" run-op --op "$1" --shape "$2" --schedule "$dir/best.json" --threads 1 --repeat 2 >"$dir/run.txt" 2>&1 \
    || { echo "FAIL: run-op could not run tune-op's schedule for $1"; cat "$dir/run.txt"; exit 1; }
  grep -q "OK" "$dir/run.txt" || { echo "FAIL: run-op's check of $1"; cat "$dir/run.txt"; exit 1; }
  # Two schedules side by side: each is checked, and each gets a line with its rounds and its ratio to the first.
  "$T" run-op --op "$1" --shape "$2" --schedule "$dir/best.json" --schedule "$dir/best.json" --threads 1 --repeat 2 \
    --rounds 3 >"$dir/run2.txt" 2>&1 || { echo "FAIL: run-op with two schedules for $1"; cat "$dir/run2.txt"; exit 1; }
  [[ $(grep -c "max |diff| .* OK" "$dir/run2.txt") == 2 ]] || { echo "FAIL: two checks expected"; cat "$dir/run2.txt"; exit 1; }
  [[ $(grep -c "x 3 rounds (.*the first's speed" "$dir/run2.txt") == 2 ]] \
    || { echo "FAIL: two side-by-side lines expected"; cat "$dir/run2.txt"; exit 1; }
  echo "ok: $1 $2"
}
check matmul 64,48,40
check conv2d 1,8,12,12,16,3,3,1,1
check conv2d_nchwc 1,8,10,10,16,3,3,4,8,1,1

# `--schedule default`: the analytical default that `compile` uses without a record, checked like a trace,
# beside the unscheduled kernel; --print-stmt shows Halide's lowered statement.
"$T" run-op --op matmul --shape 64,48,40 --schedule default --threads 1 --repeat 2 --print-stmt >"$dir/def.txt" 2>&1 \
  || { echo "FAIL: run-op --schedule default"; cat "$dir/def.txt"; exit 1; }
grep -q "^default (analytical seed .*max |diff| .* OK" "$dir/def.txt" || { echo "FAIL: default not checked"; cat "$dir/def.txt"; exit 1; }
grep -q "for (" "$dir/def.txt" || { echo "FAIL: --print-stmt printed no loop"; cat "$dir/def.txt"; exit 1; }
echo "ok: run-op --schedule default"

# --cache model times each run with the operator's weight flushed, as inside a model: a conv's
# weight is a constant of its task, so tune-op's best replays and checks under it too.
"$T" tune-op --op conv2d_nchwc --shape 1,8,10,10,16,1,1,4,8 --trials 4 --threads 1 --db "$dir/cold.db" --no-library \
  --cache model >"$dir/tune_cold.txt" 2>/dev/null || { echo "FAIL: tune-op --cache model"; cat "$dir/tune_cold.txt"; exit 1; }
sed -n 's/^schedule: //p' "$dir/tune_cold.txt" >"$dir/cold.json"
for c in model cold warm; do
  "$T" run-op --op conv2d_nchwc --shape 1,8,10,10,16,1,1,4,8 --schedule "$dir/cold.json" --schedule default --threads 1 \
    --repeat 2 --cache $c >"$dir/run_cold.txt" 2>&1 || { echo "FAIL: run-op --cache $c"; cat "$dir/run_cold.txt"; exit 1; }
  [[ $(grep -c "max |diff| .* OK" "$dir/run_cold.txt") == 2 ]] && [[ $(grep -c "cache=$c: median" "$dir/run_cold.txt") == 2 ]] \
    || { echo "FAIL: run-op --cache $c did not check and time both schedules"; cat "$dir/run_cold.txt"; exit 1; }
done
if "$T" run-op --op matmul --shape 64,48,40 --cache hot >"$dir/err.txt" 2>&1; then
  echo "FAIL: --cache hot was accepted"; exit 1
fi
grep -q "\-\-cache" "$dir/err.txt" || { echo "FAIL: error does not name --cache"; cat "$dir/err.txt"; exit 1; }
echo "ok: --cache model"

if "$T" tune-op --op no_such_op --shape 4 --trials 1 --db "$dir/log.db" >"$dir/err.txt" 2>&1; then
  echo "FAIL: an unknown op was accepted"; exit 1
fi
grep -q "no_such_op" "$dir/err.txt" || { echo "FAIL: error does not name the op"; cat "$dir/err.txt"; exit 1; }
if "$T" tune-op --op matmul --shape 64,x,40 --trials 1 --db "$dir/log.db" >"$dir/err.txt" 2>&1; then
  echo "FAIL: a malformed shape was accepted"; exit 1
fi
grep -q "'x' in '64,x,40'" "$dir/err.txt" || { echo "FAIL: error does not name the bad shape item"; cat "$dir/err.txt"; exit 1; }
if "$T" tune-op --op conv2d_nchwc --shape 1,6,8,8,16,3,3,4,8 --trials 1 --db "$dir/log.db" >"$dir/err.txt" 2>&1; then
  echo "FAIL: channel blocks that do not divide C were accepted"; exit 1
fi
grep -q "op 'conv2d_nchwc': block cb = 4 must divide C = 6" "$dir/err.txt" || { echo "FAIL: error does not name the blocks"; cat "$dir/err.txt"; exit 1; }
# A schedule file that is not a trace, and a round count below 1: errors that name them.
echo '{"steps": 3}' >"$dir/bad.json"
if "$T" run-op --op matmul --shape 64,48,40 --schedule "$dir/bad.json" >"$dir/err.txt" 2>&1; then
  echo "FAIL: a malformed schedule file was accepted"; exit 1
fi
grep -q "bad.json" "$dir/err.txt" || { echo "FAIL: error does not name the schedule file"; cat "$dir/err.txt"; exit 1; }
if "$T" run-op --op matmul --shape 64,48,40 --rounds 0 >"$dir/err.txt" 2>&1; then
  echo "FAIL: --rounds 0 was accepted"; exit 1
fi
grep -q "rounds" "$dir/err.txt" || { echo "FAIL: error does not name --rounds"; cat "$dir/err.txt"; exit 1; }
echo "all ok"
