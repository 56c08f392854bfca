#!/usr/bin/env bash
# Reproduces the shipped cost model autotune/cost_model/shipped/xgb.json (and
# its .train.json record; the .rows sidecar stays local, untracked) from the datasets in
# autotune/cost_model/data/, exporting those first from the tuning logs they
# come from when the logs are at hand:
#
#   ppocr_{rec,cls,det}_xeon.jsonl  tuning_logs/shipped.db: PP-OCR models
#                                  (models/ppocr/, tools/setup.sh), Intel Xeon, 2 threads
#   squeezenet_epyc.jsonl          $ZOO_DB (default /tmp/zoo_tune.db, not shipped):
#                                  models/zoo/squeezenet1_0.onnx (tools/setup.sh --zoo), AMD EPYC, 1 thread
#   {resnet50,mobilenet_v3}_epyc.jsonl  $ZOO2_DB (default /tmp/zoo_epyc2.db, not shipped): `tetune tune
#                                  --time-budget 4m --threads 2` of models/zoo/resnet50.onnx and
#                                  mobilenet_v3_large.onnx, from the analytical seeds, AMD EPYC, 2 threads
#
# A dataset whose log or model is missing is kept as committed (said on
# stderr). Then three trainings, each printing its held-out ranking quality
# beside a random ranking's: without the EPYC records (ranked on them), without
# the Xeon records, and the shipped model, trained without about 1 in 5
# workloads (--holdout-split 5), the ones tests/autotune:cost_model_pick_test
# ranks. Format of the datasets: autotune/cost_model/dataset.h; the commands:
# tools/cost_model_cmd.cc.
#
#   tools/train_cost_model.sh              # ZOO_DB=/path/zoo.db to re-export the squeezenet dataset
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
ZOO_DB="${ZOO_DB:-/tmp/zoo_tune.db}"
ZOO2_DB="${ZOO2_DB:-/tmp/zoo_epyc2.db}"
DATA=autotune/cost_model/data
OUT=autotune/cost_model/shipped
mkdir -p "$DATA" "$OUT"

bazel build //tools:tetune 2>&1 | tail -1
T=.bazel/bin/tools/tetune

export_one() {  # dataset db model input-shape threads
  if [[ -f "$2" && -f "$3" ]]; then
    "$T" cost-model export --model "$3" --input-shape "$4" --db "$2" --threads "$5" --out "$DATA/$1.jsonl"
  else
    echo "train_cost_model: $2 or $3 missing: $DATA/$1.jsonl kept as committed" >&2
  fi
}
export_one ppocr_rec_xeon tuning_logs/shipped.db models/ppocr/ch_PP-OCRv4_rec_infer.onnx x=1,3,48,320 2
export_one ppocr_cls_xeon tuning_logs/shipped.db models/ppocr/ch_ppocr_mobile_v2.0_cls_infer.onnx x=1,3,48,192 2
export_one ppocr_det_xeon tuning_logs/shipped.db models/ppocr/ch_PP-OCRv4_det_infer.onnx x=1,3,640,640 2
export_one squeezenet_epyc "$ZOO_DB" models/zoo/squeezenet1_0.onnx x=1,3,224,224 1
export_one resnet50_epyc "$ZOO2_DB" models/zoo/resnet50.onnx x=1,3,224,224 2
export_one mobilenet_v3_epyc "$ZOO2_DB" models/zoo/mobilenet_v3_large.onnx x=1,3,224,224 2

D=()
for f in "$DATA"/*.jsonl; do D+=(--data "$f"); done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "== held out: the EPYC records =="
"$T" cost-model train "${D[@]}" --out "$tmp/no_epyc.json" --holdout-cpu EPYC
echo "== held out: the Xeon records =="
"$T" cost-model train "${D[@]}" --out "$tmp/no_xeon.json" --holdout-cpu Xeon
echo "== the shipped model (held out: about 1 in 5 workloads) =="
"$T" cost-model train "${D[@]}" --out "$OUT/xgb.json" --holdout-split 5
