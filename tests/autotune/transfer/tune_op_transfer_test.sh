#!/usr/bin/env bash
# `tetune tune-op` warm-starts a matmul from the log's record of another
# matmul shape and says so ("transfer: ..."); --no-transfer measures none.
set -euo pipefail
T="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run() {  # shape, extra flags
  "$T" tune-op --op matmul --shape "$1" --trials 4 --batch 4 --threads 1 --db "$dir/log.db" --no-shipped-log \
    --no-library "${@:2}" >"$dir/out.txt" 2>"$dir/err.txt" || { echo "FAIL: tune-op $1"; cat "$dir/out.txt" "$dir/err.txt"; exit 1; }
}
run 32,32,32
grep -q "^transfer:" "$dir/out.txt" && { echo "FAIL: transfer into an empty log"; cat "$dir/out.txt"; exit 1; }
run 48,48,48
grep -q "^transfer: 1 of 1 transferred schedules measured now: 1 schedule.* from 1 donor group: 1 of matmul_32x32x32" "$dir/out.txt" \
  || { echo "FAIL: no transfer from matmul_32x32x32"; cat "$dir/out.txt" "$dir/err.txt"; exit 1; }
grep -q "transfer: 1 schedule" "$dir/err.txt" || { echo "FAIL: no transfer note on stderr"; cat "$dir/err.txt"; exit 1; }
run 40,40,40 --no-transfer
grep -q "transfer" "$dir/out.txt" "$dir/err.txt" && { echo "FAIL: --no-transfer transferred"; cat "$dir/out.txt" "$dir/err.txt"; exit 1; }
echo "all ok"
