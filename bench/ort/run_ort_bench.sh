#!/usr/bin/env bash
# ONNX Runtime (CPU, onnxruntime-node 1.30.0) baseline latencies for the three
# PaddleOCR models, to compare tetune's compiled models against.
#
#   bench/ort/run_ort_bench.sh [--threads "1 2"] [--repeat 50] [--warmup 5] [--out FILE.jsonl]
#
# Needs tools/setup.sh to have run (models/ppocr + tools/reference/node_modules).
# Inputs are the deterministic make_input.js tensors (seed 7) at the standard
# shapes: det 1x3x640x640, rec 1x3x48x320, cls 1x3x48x192. Prints one JSON
# line per (model, threads) from tools/reference/time_model.js, with "name"
# added; with --out the lines are also written to FILE.jsonl.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
REF="$ROOT/tools/reference"
M="$ROOT/models/ppocr"

THREADS="1 2"; REPEAT=50; WARMUP=5; OUT=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --threads) THREADS="$2"; shift 2 ;;
    --repeat) REPEAT="$2"; shift 2 ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done

[[ -d "$REF/node_modules/onnxruntime-node" && -s "$M/ch_PP-OCRv4_det_infer.onnx" ]] ||
  { echo "run tools/setup.sh first" >&2; exit 1; }

TMP="$(mktemp -d)"; trap 'rm -rf "$TMP"' EXIT
MODELS=(
  "det ch_PP-OCRv4_det_infer.onnx 1,3,640,640"
  "rec ch_PP-OCRv4_rec_infer.onnx 1,3,48,320"
  "cls ch_ppocr_mobile_v2.0_cls_infer.onnx 1,3,48,192"
)
[[ -n "$OUT" ]] && : > "$OUT"
for entry in "${MODELS[@]}"; do
  read -r name file shape <<<"$entry"
  node "$REF/make_input.js" --shape "$shape" --seed 7 --out "$TMP/$name.npy" >/dev/null
done
for t in $THREADS; do
  for entry in "${MODELS[@]}"; do
    read -r name file shape <<<"$entry"
    line="$(node "$REF/time_model.js" --model "$M/$file" --input "x=$TMP/$name.npy" \
            --threads "$t" --repeat "$REPEAT" --warmup "$WARMUP")"
    line="{\"name\":\"$name\",\"shape\":\"$shape\",${line#\{}"
    echo "$line"
    [[ -n "$OUT" ]] && echo "$line" >> "$OUT"
  done
done
