#!/usr/bin/env bash
# The main job: tune PP-OCRv4 rec on this machine for a short budget into the
# user's tuning log, compile it with that log and the shipped one, recognise
# the demo text-line images, and compare tetune with onnxruntime (latency side
# by side, max difference of the outputs).
#
# Records go into the user's log: $TETUNE_DB, else $XDG_CACHE_HOME/tetune/tetune.db
# (~/.cache/tetune/tetune.db). The shipped log tuning_logs/shipped.db is read,
# never written, so the source tree stays clean.
#
#   BUDGET=3m THREADS=$(nproc) [TETUNE_DB=my.db] tools/main_job.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUDGET="${BUDGET:-3m}"
THREADS="${THREADS:-$(nproc)}"
DB="${TETUNE_DB:-${XDG_CACHE_HOME:-$HOME/.cache}/tetune/tetune.db}"  # for the messages; tetune finds it itself
MODEL=models/ppocr/ch_PP-OCRv4_rec_infer.onnx
DICT=models/ppocr/ppocr_keys_v1.txt
SHAPE=x=1,3,48,320
OUT=out/main_job
[[ -f "$MODEL" ]] || { echo "main_job: $MODEL is missing: run tools/setup.sh first" >&2; exit 1; }

step() { echo; echo "== $* =="; }

step "build"
bazel build //tools:tetune //examples/ocr:ocr 2>&1 | tail -1
T=.bazel/bin/tools/tetune
OCR=.bazel/bin/examples/ocr/ocr
mkdir -p "$OUT"

step "tune $MODEL ($SHAPE) for $BUDGET on $THREADS threads into $DB"
"$T" tune --model "$MODEL" --input-shape "$SHAPE" --time-budget "$BUDGET" --threads "$THREADS"

step "compile with the user's log, then the shipped one"
"$T" compile --model "$MODEL" --input-shape "$SHAPE" --threads "$THREADS" -o "$OUT/rec" -q

step "recognise the demo images (compiled model, no compiler at run time)"
for img in examples/ocr/images/*.png; do
  printf '%-40s -> ' "$img"
  "$OCR" --compiled "$OUT/rec" --dict "$DICT" --image "$img" --threads "$THREADS"
done

step "tetune vs onnxruntime on the first image's input ($THREADS threads)"
first=$(ls examples/ocr/images/*.png | head -1)
"$OCR" --compiled "$OUT/rec" --dict "$DICT" --image "$first" --threads "$THREADS" --dump-input "$OUT/x.npy" >/dev/null
"$T" run "$OUT/rec" --input x="$OUT/x.npy" --output "$OUT/tetune_y.npy" --repeat 50 --threads "$THREADS" | tee "$OUT/tetune_run.txt"
node tools/reference/run_reference.js --model "$MODEL" --input x="$OUT/x.npy" --output-dir "$OUT/ort" --threads "$THREADS" >/dev/null
ort_json=$(node tools/reference/time_model.js --model "$MODEL" --input x="$OUT/x.npy" --threads "$THREADS" --repeat 50 --warmup 5)
ort_ms=$(echo "$ort_json" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);console.log(j.median_ms.toFixed(3)+" ms (node per-call overhead "+j.overhead_ms.toFixed(3)+" ms)")})')
tetune_ms=$(grep -oE 'median [0-9.]+ ms' "$OUT/tetune_run.txt" | head -1)
echo "latency: tetune ${tetune_ms#median }, onnxruntime $ort_ms"
ort_out=$(ls "$OUT"/ort/*.npy | head -1)
echo -n "outputs: "
"$T" compare "$OUT/tetune_y.npy" "$ort_out"
