#!/usr/bin/env bash
# //runtime:tetune_run must not link the Halide compiler (libHalide14).
set -euo pipefail
bin=${1:?usage: standalone_runtime_test.sh path/to/tetune_run}
ldd "$bin"
if ldd "$bin" | grep -qi halide; then
  echo "FAIL: $bin links Halide:" >&2
  ldd "$bin" | grep -i halide >&2
  exit 1
fi
"$bin" --help >/dev/null
out=$("$bin" /nonexistent_dir 2>&1 || true)
echo "$out"
# manifest.json is read first: it says what the export needs (runtime/export_check.h)
echo "$out" | grep -q "/nonexistent_dir/manifest.json: file is missing" || { echo "FAIL: error does not name manifest.json" >&2; exit 1; }
echo "OK: no libHalide14, clear error for a missing export"
