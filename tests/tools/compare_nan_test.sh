#!/usr/bin/env bash
# `tetune compare` (issue 21, item 2): a NaN against a number is a difference,
# so an all-NaN output fails; NaN against NaN at the same position agrees (as
# onnxruntime's tests compare outputs); equal infinities agree.
set -euo pipefail
T="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# npy FILE HEXWORD...: a 1-D float32 .npy of little-endian words (nan 0000c07f, inf 0000807f, 1 0000803f, 2 00000040, 2.5 00002040).
npy() {
  local f="$1"; shift
  local hdr="{'descr': '<f4', 'fortran_order': False, 'shape': ($#,), }"
  while (( (${#hdr} + 11) % 64 != 0 )); do hdr+=" "; done
  hdr+=$'\n'
  { printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $(( ${#hdr} % 256 )))\\x$(printf %02x $(( ${#hdr} / 256 )))"
    printf '%s' "$hdr"; for w in "$@"; do printf "\\x${w:0:2}\\x${w:2:2}\\x${w:4:2}\\x${w:6:2}"; done; } >"$f"
}
NAN=0000c07f INF=0000807f ONE=0000803f TWO=00000040 TWO5=00002040

expect_fail() {  # a b what
  if "$T" compare "$dir/$1" "$dir/$2" >"$dir/out.txt" 2>&1; then echo "FAIL: $3 passed"; cat "$dir/out.txt"; exit 1; fi
  grep -q "NaN in only one" "$dir/out.txt" || { echo "FAIL: $3: no NaN count"; cat "$dir/out.txt"; exit 1; }
  echo "ok: $3 fails: $(tail -1 "$dir/out.txt")"
}
expect_pass() {  # a b what
  "$T" compare "$dir/$1" "$dir/$2" >"$dir/out.txt" 2>&1 || { echo "FAIL: $3 failed"; cat "$dir/out.txt"; exit 1; }
  echo "ok: $3 passes"
}

npy "$dir/nan2.npy" $NAN $NAN
npy "$dir/ref.npy" $ONE $TWO
npy "$dir/ref_nan.npy" $NAN $TWO
npy "$dir/inf.npy" $INF $TWO
npy "$dir/far.npy" $ONE $TWO5
expect_fail nan2.npy ref.npy "an all-NaN output against numbers"
expect_fail ref.npy ref_nan.npy "a number where the reference holds NaN"
expect_pass ref_nan.npy ref_nan.npy "NaN at the same position in both"
expect_pass inf.npy inf.npy "equal infinities"
expect_pass ref.npy ref.npy "equal arrays"
if "$T" compare "$dir/far.npy" "$dir/ref.npy" >"$dir/out.txt" 2>&1; then echo "FAIL: 2.5 vs 2 passed"; exit 1; fi
grep -q "1 elements differ beyond tolerance, 0 of them NaN" "$dir/out.txt" || { echo "FAIL: far"; cat "$dir/out.txt"; exit 1; }
echo "ok: a number beyond tolerance fails"
