#!/usr/bin/env bash
# `tetune cost-model export` then `train` on a tiny log made here (tune-op,
# a handful of trials): every successful record becomes one JSON line with the
# header's feature count, a log of another shape exports nothing and says so,
# train saves the model with its sidecars, and a hold-out by CPU ranks the
# held-out records; an unknown --holdout-cpu is an error naming it.
set -euo pipefail
T="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$T" tune-op --op matmul --shape 32,24,16 --trials 8 --threads 1 --db "$dir/log.db" --no-library --no-shipped-log \
  >"$dir/tune.txt" 2>&1 || { cat "$dir/tune.txt"; fail "tune-op"; }
"$T" cost-model export --op matmul --shape 32,24,16 --db "$dir/log.db" --threads 1 --out "$dir/a.jsonl" >"$dir/export.txt" \
  || { cat "$dir/export.txt"; fail "export"; }
cat "$dir/export.txt"
n=$(sed -n 's/^export: \([0-9]*\) records of 1 of 1 tasks.*/\1/p' "$dir/export.txt")
[[ -n "$n" && "$n" -ge 4 ]] || fail "expected at least 4 exported records"
[[ $(wc -l <"$dir/a.jsonl") == $((n + 1)) ]] || fail "expected a header line and $n records"
/usr/bin/python3 - "$dir/a.jsonl" <<'PY' || fail "dataset content"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
h = lines[0]
assert h["format"] == "tetune-cost-model-dataset" and h["version"] == 1, h
nf = len(h["feature_names"])
assert nf > 100 and "g.n_loops" in h["feature_names"], nf
for r in lines[1:]:
    assert len(r["features"]) == nf
    assert r["median_ms"] > 0 and r["threads"] == 1 and r["cpu_model"] and r["task"] == "matmul_32x24x16", r
assert len({tuple(r["features"]) for r in lines[1:]}) > 1, "distinct schedules give distinct features"
PY

# Another shape is another workload: nothing to export, and a note says what to check.
"$T" cost-model export --op matmul --shape 32,24,8 --db "$dir/log.db" --threads 1 --out "$dir/none.jsonl" >"$dir/none.txt"
grep -q "^export: 0 records" "$dir/none.txt" && grep -q "^note: no record exported" "$dir/none.txt" \
  || { cat "$dir/none.txt"; fail "an empty export is not reported"; }

"$T" cost-model train --data "$dir/a.jsonl" --out "$dir/m.json" >"$dir/train.txt" || { cat "$dir/train.txt"; fail "train"; }
cat "$dir/train.txt"
grep -q "^train: $n records in 1 groups" "$dir/train.txt" || fail "train did not use the $n records as one group"
[[ -s "$dir/m.json" && -s "$dir/m.json.rows" && -s "$dir/m.json.train.json" ]] || fail "model files missing"

# The same records as if measured on a second CPU: held out by CPU, ranked beside a random order.
sed 's/"cpu_model":"/"cpu_model":"Fake CPU /; s/"target_key":"kind=llvm|cpu=/"target_key":"kind=llvm|cpu=Fake CPU /' \
  "$dir/a.jsonl" >"$dir/b.jsonl"
"$T" cost-model train --data "$dir/a.jsonl" --data "$dir/b.jsonl" --out "$dir/h.json" --holdout-cpu "Fake CPU" \
  >"$dir/hold.txt" || { cat "$dir/hold.txt"; fail "train with --holdout-cpu"; }
cat "$dir/hold.txt"
grep -q "^held out (cpu ~ 'Fake CPU'): $n records, 1 groups with an order" "$dir/hold.txt" || fail "no held-out line"
grep -q "^  model : pairwise accuracy" "$dir/hold.txt" && grep -q "^  random: pairwise accuracy 0.500" "$dir/hold.txt" \
  || fail "held-out quality of the model and of a random order expected"
if "$T" cost-model train --data "$dir/a.jsonl" --out "$dir/x.json" --holdout-cpu "No Such CPU" >"$dir/err.txt" 2>&1; then
  fail "an unknown --holdout-cpu was accepted"
fi
grep -q "No Such CPU" "$dir/err.txt" || { cat "$dir/err.txt"; fail "the error does not name the CPU"; }
echo "all ok"
