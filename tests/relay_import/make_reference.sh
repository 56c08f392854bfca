#!/usr/bin/env bash
# Reference outputs of the PaddleOCR models with onnxruntime-node (tools/reference).
#   tests/relay_import/make_reference.sh OUT_DIR [REPO_ROOT]
# Writes OUT_DIR/<model>/in.npy (make_input.js seed 7) and OUT_DIR/<model>/<output>.npy,
# plus OUT_DIR/det_img/ for det on a structured (text-like stripes) input.
set -euo pipefail
out=${1:?usage: make_reference.sh OUT_DIR [REPO_ROOT]}
root=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
ref="$root/tools/reference"
models="$root/models/ppocr"
mkdir -p "$out"
out=$(cd "$out" && pwd)
run() {  # name model shape
  local d="$out/$1"
  mkdir -p "$d"
  if [ ! -f "$d/done" ]; then
    node "$ref/make_input.js" --shape "$3" --seed 7 --out "$d/in.npy" >/dev/null
    node "$ref/run_reference.js" --model "$models/$2" --input x="$d/in.npy" --output-dir "$d" --threads 1 >"$d/ref.json"
    touch "$d/done"
  fi
}
run cls ch_ppocr_mobile_v2.0_cls_infer.onnx 1,3,48,192
run rec ch_PP-OCRv4_rec_infer.onnx 1,3,48,320
run det ch_PP-OCRv4_det_infer.onnx 1,3,640,640
d="$out/det_img"
mkdir -p "$d"
if [ ! -f "$d/done" ]; then
  node -e '
    const { writeNpy } = require(process.argv[1] + "/npy.js");
    const H = 640, W = 640, n = 3 * H * W, a = new Float32Array(n);
    // white page with dark "text lines": blocks of thin vertical strokes
    for (let c = 0; c < 3; c++) for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) {
      let v = 0.92;
      const line = Math.floor(y / 48), yy = y % 48;
      if (yy >= 12 && yy < 36 && x >= 40 + (line % 3) * 30 && x < 600 - (line % 2) * 80) {
        if ((x % 14) < 3 || (yy % 12) < 2) v = 0.08;
      }
      a[(c * H + y) * W + x] = v;
    }
    writeNpy(process.argv[2], a, [1, 3, H, W], "<f4");
  ' "$ref" "$d/in.npy"
  node "$ref/run_reference.js" --model "$models/ch_PP-OCRv4_det_infer.onnx" --input x="$d/in.npy" --output-dir "$d" --threads 1 >"$d/ref.json"
  touch "$d/done"
fi
echo "$out"
