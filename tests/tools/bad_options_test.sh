#!/usr/bin/env bash
# Issue 21, items 6-8 and the progress line: every option value that makes no
# sense is refused before any work, with a non-zero exit and an error that
# names the option, and no tuning log is created or changed; a huge shape is
# one sentence naming it; tune-op's progress written to a file is plain lines
# (no '\r', no line twice).
set -uo pipefail
T="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export XDG_CACHE_HOME="$dir/cache" TETUNE_DB="$dir/env.db"
root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
model="$root/models/ppocr/ch_ppocr_mobile_v2.0_cls_infer.onnx"
fails=0

files() { (cd "$dir" && find . -path ./err.txt -prune -o ! -name "*-wal" ! -name "*-shm" -print | sort); }  # SQLite's WAL files come and go with readers

# refuse TEXT ARGS...: the command fails, its output holds TEXT, and it wrote no file into $dir.
refuse() {
  local text="$1"; shift
  local before; before=$(files)
  if "$T" "$@" >"$dir/err.txt" 2>&1; then
    echo "FAIL: accepted: tetune $*"; fails=$((fails + 1)); return
  fi
  if ! grep -qF -- "$text" "$dir/err.txt"; then
    echo "FAIL: tetune $*: error does not say '$text':"; cat "$dir/err.txt"; fails=$((fails + 1)); return
  fi
  if [[ "$(files)" != "$before" ]]; then
    echo "FAIL: tetune $*: wrote files:"; diff <(echo "$before") <(files); fails=$((fails + 1)); return
  fi
  echo "ok: tetune $* -> $(head -1 "$dir/err.txt")"
}

op=(--op matmul --shape 8,8,8)
db=(--db "$dir/log.db")
# --threads: 0, negative and more than the thread pool runs, in every command that has it.
for n in 0 -1 65; do
  refuse "--threads" tune-op "${op[@]}" --trials 2 "${db[@]}" --threads "$n"
  refuse "--threads" run-op "${op[@]}" --threads "$n"
  refuse "--threads" tune --model "$model" --trials 2 "${db[@]}" --threads "$n"
  refuse "--threads" compile --model "$model" -o "$dir/out" "${db[@]}" --threads "$n"
  refuse "--threads" run "$dir/out" --threads "$n"
  refuse "--threads" log "${db[@]}" best --workload w --threads "$n"
done
# --timeout, --trials, --batch, --repeat, --rounds, ...
for v in 0 -1 nan inf; do
  refuse "--timeout" tune-op "${op[@]}" --trials 2 "${db[@]}" --timeout "$v"
  refuse "--timeout" tune --model "$model" --trials 2 "${db[@]}" --timeout "$v"
done
refuse "--trials" tune-op "${op[@]}" --trials -1 "${db[@]}"
refuse "--trials" tune --model "$model" --trials -5 "${db[@]}"
refuse "--batch" tune-op "${op[@]}" --batch 0 "${db[@]}"
refuse "--batch" tune --model "$model" --trials 2 --batch 0 "${db[@]}"
refuse "--small-task-trials" tune --model "$model" --trials 2 --small-task-trials -1 "${db[@]}"
# --cache auto decides per task of a model: tune only.
refuse "--cache" tune-op "${op[@]}" --trials 2 --cache auto "${db[@]}"
refuse "--cache" run-op "${op[@]}" --cache auto
refuse "--cache" tune --model "$model" --trials 2 --cache hot "${db[@]}"
refuse "--repeat" run-op "${op[@]}" --repeat -1
refuse "--repeat" run-op "${op[@]}" --repeat 0
refuse "--rounds" run-op "${op[@]}" --rounds 0
refuse "--repeat" run "$dir/out" --repeat -1
refuse "--warmup" run "$dir/out" --warmup -1
refuse "--profile" run "$dir/out" --profile -3
refuse "--repeat" run-model --model "$model" --input "x=$dir/x.npy" --repeat -1
refuse "-k" log "${db[@]}" best --workload w --target t -k 0
refuse "--top" log "${db[@]}" export --top 0
# --shape with too many or too few numbers for the op: names --shape, the op and its form.
refuse "--shape 8,8,8,9: op 'matmul' expects --shape M,N,K, got 4 numbers" tune-op --op matmul --shape 8,8,8,9 --trials 2 "${db[@]}"
refuse "--shape 8,8: op 'matmul' expects --shape M,N,K, got 2 numbers" run-op --op matmul --shape 8,8
refuse "op 'conv2d' expects --shape N,C,H,W,K,R,S[,stride[,pad]], got 10 numbers" \
  run-op --op conv2d --shape 1,1,8,8,1,3,3,1,1,7
# A GPU target on a machine without one: refused before tuning (today: 16 error records and exit 0).
if "$T" tune-op "${op[@]}" --target cuda --trials 2 --db "$dir/probe.db" --no-library >/dev/null 2>&1 && [[ -e "$dir/probe.db" ]]; then
  echo "skip: --target cuda on this machine tunes (a CUDA device is present)"
  rm -f "$dir"/probe.db*
else
  refuse "--target cuda: this machine cannot run CUDA kernels" tune-op "${op[@]}" --target cuda --trials 2 "${db[@]}"
fi
# Item 7: huge shapes are one sentence naming the input, the tensor and its size.
refuse "--shape 100000,100000,100000: matmul: tensor 'A' (100000x100000 float32) is 40.0 GB" \
  run-op --op matmul --shape 100000,100000,100000
refuse "--shape 100000,100000,100000: matmul: tensor 'A'" tune-op --op matmul --shape 100000,100000,100000 --trials 2 "${db[@]}"
refuse "--shape 3000000000: relu: tensor 'x' (3000000000 float32) is 12.0 GB" run-op --op relu --shape 3000000000
if [[ -f "$model" ]]; then
  big=(--input-shape x=1,3,48000,19200)
  refuse "--input-shape input 'x' of model" graph "$model" "${big[@]}"
  refuse "(1x3x48000x19200 float32) is 11.1 GB" compile --model "$model" "${big[@]}" -o "$dir/out" "${db[@]}"
  refuse "(1x3x48000x19200 float32) is 11.1 GB" tune --model "$model" "${big[@]}" --trials 2 "${db[@]}"
  # An input that fits, whose first convolution's output does not: names the node.
  refuse "Conv node 'p2o.Conv.37' (opset 9): output 0 (1x104x550x10000 float32) is 2.3 GB" \
    graph "$model" --input-shape x=1,3,8800,20000
else
  echo "skip: $model is missing (tools/setup.sh fetches it): model --input-shape checks not run"
fi

# log import: a record with a negative, zero or overflowing time is a ParseError naming its line;
# the log keeps exactly the records it had.
"$T" tune-op --op relu --shape 64 --trials 8 --batch 4 --threads 1 --no-library --db "$dir/ok.db" \
  >"$dir/tune.txt" 2>"$dir/progress.txt" || { echo "FAIL: tune-op relu"; cat "$dir/tune.txt" "$dir/progress.txt"; exit 1; }
"$T" log --db "$dir/ok.db" export -o "$dir/before.jsonl" 2>/dev/null
[[ $(wc -l <"$dir/before.jsonl") == 8 ]] || { echo "FAIL: 8 records expected"; cat "$dir/before.jsonl"; exit 1; }
line=$(head -1 "$dir/before.jsonl" | sed 's/"timestamp_unix_ms":[0-9]*/"timestamp_unix_ms":1/')
for bad in 's/"costs_ms":\[[0-9.e-]*,/"costs_ms":[-0.5,/' 's/"median_ms":[0-9.e-]*/"median_ms":-2/' \
           's/"costs_ms":\[[0-9.e-]*,/"costs_ms":[0,/' 's/"costs_ms":\[[0-9.e-]*,/"costs_ms":[1e999,/'; do
  { echo "$line"; echo "$line" | sed "$bad"; } >"$dir/bad.jsonl"
  grep -q -- '-0.5\|-2\|\[0,\|1e999' "$dir/bad.jsonl" || { echo "FAIL: sed '$bad' changed nothing"; exit 1; }
  refuse "JSONL line 2: " log --db "$dir/ok.db" import "$dir/bad.jsonl"
  "$T" log --db "$dir/ok.db" export -o "$dir/after.jsonl" 2>/dev/null
  cmp -s "$dir/before.jsonl" "$dir/after.jsonl" || { echo "FAIL: a refused import changed the log"; fails=$((fails + 1)); }
done

# Progress to a file: one plain line per event, no '\r', no line twice.
if grep -q $'\r' "$dir/progress.txt"; then echo "FAIL: '\\r' in progress written to a file"; cat -A "$dir/progress.txt"; fails=$((fails + 1)); fi
dups=$(grep '^\[' "$dir/progress.txt" | sort | uniq -d)
[[ -z "$dups" ]] || { echo "FAIL: repeated progress lines: $dups"; fails=$((fails + 1)); }
[[ $(grep -c '^\[.*\] [0-9]*/8 ' "$dir/progress.txt") == 8 ]] \
  || { echo "FAIL: one progress line per trial expected"; cat "$dir/progress.txt"; fails=$((fails + 1)); }

# Item 8: tune-op records, and compile looks up, this machine's core count by default.
cores=${HL_NUM_THREADS:-$(getconf _NPROCESSORS_ONLN)}; ((cores > 64)) && cores=64  # what std::thread::hardware_concurrency() reports
grep -q "^target: .*|threads=$cores|" <("$T" tune-op --op relu --shape 64 --trials 1 --no-library --db "$dir/ok.db" 2>/dev/null) \
  || { echo "FAIL: tune-op's default threads are not the $cores cores"; fails=$((fails + 1)); }
"$T" compile --help | grep -q -- "--threads.*" && "$T" compile --help | grep -q "(default $cores: this machine's cores" \
  || { echo "FAIL: compile --help does not give the $cores cores as the --threads default"; fails=$((fails + 1)); }

[[ $fails == 0 ]] || { echo "$fails failures"; exit 1; }
echo "all ok"
