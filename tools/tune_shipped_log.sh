#!/usr/bin/env bash
# Tunes the shipped log's records again with the current compiler, on this
# machine: the three PaddleOCR models (rec, cls, det), each from an empty log,
# then the best records of each workload are added to tuning_logs/shipped.db
# beside those already there, and its SQL text tuning_logs/shipped.sql.gz
# (what git tracks; tools/setup.sh builds the database from it) written again. Run it when
# //tests/relay_import:shipped_traces_test says the shipped records no longer
# cover the tasks `tetune tune` builds (a new layout, fusion or stage naming):
# records that match no task warm-start nothing on another CPU.
#
#   tools/tune_shipped_log.sh [--rec 6m] [--cls 2m] [--det 9m] [--keep 4] [--out PATH]
#
# A budget of 0 leaves that model's records as they are (a change that altered
# only rec's tasks: --cls 0 --det 0).
# --keep: records kept per workload and target, the fastest that ran
# (in-model records, kInModelTunerVersion in tuning_logs/records.h, are all
# kept). --out: where the merged log goes (default tuning_logs/shipped.db;
# elsewhere for a trial run). Needs tools/setup.sh (the models, Bazel).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

rec=6m cls=2m det=9m keep=4 out=tuning_logs/shipped.db
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rec) rec="$2"; shift 2 ;;
    --cls) cls="$2"; shift 2 ;;
    --det) det="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "tune_shipped_log.sh: unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
done
[[ "$keep" =~ ^[1-9][0-9]*$ ]] || { echo "tune_shipped_log.sh: --keep must be a positive integer, got '$keep'" >&2; exit 2; }

bazel build //tools:tetune >/dev/null
T=.bazel/bin/tools/tetune
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tune() {  # model input-shape budget (0: not tuned again, its records stay as they are)
  if [[ "$3" == 0 ]]; then echo "[ship] $1: not tuned again"; return; fi
  echo "[ship] tune $1 for $3"
  "$T" tune --model "models/ppocr/$1" --input-shape "$2" --time-budget "$3" --threads 2 \
    --db "$work/new.db" --no-shipped-log | grep -E '^(model latency|in the model|trials:)'
}
tune ch_PP-OCRv4_rec_infer.onnx x=1,3,48,320 "$rec"
tune ch_ppocr_mobile_v2.0_cls_infer.onnx x=1,3,48,192 "$cls"
tune ch_PP-OCRv4_det_infer.onnx x=1,3,640,640 "$det"

# The fastest `keep` records that ran, per workload and target, and every in-model record.
sqlite3 "$work/new.db" "
  DELETE FROM records WHERE id NOT IN (
    SELECT id FROM (
      SELECT id, tuner_version, ROW_NUMBER() OVER (PARTITION BY workload_key, target_key ORDER BY median_ms) AS rank
      FROM records WHERE error_code = 0 AND tuner_version <> 'tetune-in-model/1')
    WHERE rank <= $keep)
  AND tuner_version <> 'tetune-in-model/1';
  VACUUM;"

cp tuning_logs/shipped.db "$work/shipped.db"
"$T" log import --db "$work/shipped.db" --from "$work/new.db"
sqlite3 "$work/shipped.db" "VACUUM;"
mv "$work/shipped.db" "$out"
if [[ "$out" == tuning_logs/shipped.db ]]; then sqlite3 "$out" .dump | gzip -9n >tuning_logs/shipped.sql.gz; fi
echo "[ship] $out: $(sqlite3 "$out" 'SELECT count(*) FROM records') records"
