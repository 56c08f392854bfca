#!/usr/bin/env bash
# Runs every test of the workspace and ends with "N passed, N failed"
# (test targets). Extra arguments go to `bazel test`.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
log=$(mktemp)
bazel test //... --test_output=errors "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$log")
failed=$(grep -cE '^//[^ ]+ +(\(cached\) )?(FAILED|TIMEOUT|NO STATUS|FLAKY|INCOMPLETE)' "$log")
skipped=$(grep -cE '^//[^ ]+ +SKIPPED' "$log")
# A build failure leaves no per-test lines: count it as a failure.
if [[ $status -ne 0 && $failed -eq 0 ]]; then failed=1; fi
rm -f "$log"
echo "$passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 ]]
