#!/usr/bin/env bash
# `tetune run --profile N`: the per-call table and the per-kernel table add
# up to the same sum of medians, and the per-kernel calls add up to the
# model's kernel calls (the by-kernel view is a regrouping, never an estimate).
# Each run's calls summed take no longer than the run, so their median is at
# most the latency's median.
# With --profile-warm every call is timed a second time, the warm column adds
# up to its summary line, and the outputs are the same bytes as without it
# (a rerun call writes what its first call wrote).
set -euo pipefail
T="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
model="$root/models/ppocr/ch_ppocr_mobile_v2.0_cls_infer.onnx"
"$T" compile --model "$model" --input-shape x=1,3,48,192 -o "$dir/out" --no-measure -q >/dev/null
"$T" run "$dir/out" --threads 1 --repeat 3 --profile 1000 >"$dir/run.txt"
cat "$dir/run.txt"
/usr/bin/python3 - "$dir/run.txt" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
calls, total = re.search(r"profile: (\d+) kernel calls, sum of medians ([\d.]+) ms", text).groups()
per_call = text.split("profile by kernel:")[0].split("profile:")[1]
call_ms = [float(m) for m in re.findall(r"^\s+([\d.]+) ms\s", per_call, re.M)[:]]
rows = re.findall(r"^\s+([\d.]+) ms\s+[\d.]+%\s+(\d+) x\s+([\d.]+) ms\s+(\S+)$", text, re.M)
assert len(call_ms) == int(calls), (len(call_ms), calls)
assert rows, "no 'profile by kernel' rows"
assert sum(int(r[1]) for r in rows) == int(calls), "kernel calls do not add up"
assert abs(sum(float(r[0]) for r in rows) - float(total)) < 1e-3 * len(rows) + 1e-3, "kernel totals do not add up"
for ms, n, per, name in rows:
    assert abs(float(ms) / int(n) - float(per)) < 1e-3, name
run_sum = float(re.search(r"median run of the calls ([\d.]+) ms", text).group(1))
latency = float(re.search(r"latency: median ([\d.]+) ms", text).group(1))
assert 0 < run_sum <= latency + 1e-3, (run_sum, latency)
print(f"OK: {calls} calls in {len(rows)} kernels, {total} ms either way; runs of the calls {run_sum} ms, latency {latency}")
PY

"$T" run "$dir/out" --threads 1 --repeat 3 --output "$dir/plain.npy" >/dev/null
"$T" run "$dir/out" --threads 1 --repeat 3 --profile 1000 --profile-warm --output "$dir/warm.npy" >"$dir/warm.txt"
cat "$dir/warm.txt"
/usr/bin/python3 - "$dir/warm.txt" "$dir/plain.npy" "$dir/warm.npy" <<'PY'
import re, sys
import numpy as np
text = open(sys.argv[1]).read()
calls, total = re.search(r"profile: (\d+) kernel calls, sum of medians ([\d.]+) ms", text).groups()
warm_sum, first_sum = re.search(r"profile warm: each call again at once, sum of medians ([\d.]+) ms against ([\d.]+) first", text).groups()
per_call = text.split("profile by kernel:")[0].split("profile warm:")[1]
warm = [float(w) for w in re.findall(r"^\s+[\d.]+ ms\s+[\d.]+%\s+warm\s+([\d.]+) ms\s+[\d.]+x\s", per_call, re.M)]
assert len(warm) == int(calls), f"{len(warm)} of {calls} calls rerun"
assert abs(float(first_sum) - float(total)) < 1e-3, (first_sum, total)
assert abs(sum(warm) - float(warm_sum)) < 1e-3 * len(warm) + 1e-3, (sum(warm), warm_sum)
assert all(w >= 0 for w in warm), warm
a, b = np.load(sys.argv[2]), np.load(sys.argv[3])
assert a.shape == b.shape and a.tobytes() == b.tobytes(), "--profile-warm changed the output"
print(f"OK: {calls} calls rerun, warm {warm_sum} ms against {first_sum} first, outputs identical")
PY
