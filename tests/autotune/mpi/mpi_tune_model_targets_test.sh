#!/usr/bin/env bash
# Whole-model `tune` with worker ranks of two targets: rank 1 measures for this host, rank 2 for AVX2
# (TETUNE_MPI_TARGET; SSE4.1 on a CPU without AVX-512). Each target's pass counts and stores the records of
# its own target: every task's default-schedule baseline is measured by the pass's workers and stored under
# their target, and each target holds exactly --trials records, on the first run and on a resumed one.
source "$(dirname "$0")/mpi_common.sh"
# The small CNN of tests/python/model_test.py, written by tests/python/onnx_writer.py. That file is no data
# dependency (//tests/python exports it to no other package): it is found in the repository through the
# runfiles symlink of this script (a "local" test), or under $TETUNE_ROOT.
ROOT=${TETUNE_ROOT:-$(dirname "$(realpath "$0")")/../../..}
ONNX_WRITER=$ROOT/tests/python/onnx_writer.py
if [[ ! -f $ONNX_WRITER ]]; then
  echo "SKIP: $ONNX_WRITER is missing (set TETUNE_ROOT to the repository)"
  exit 0
fi
pick_other_target
if ! /usr/bin/python3 -c "import numpy" 2>/dev/null; then
  echo "SKIP: /usr/bin/python3 lacks numpy, which onnx_writer.py needs (tools/setup.sh installs python3-numpy)"
  exit 0
fi

# Conv 3->8 3x3 + Relu, GlobalAveragePool, Gemm 8->4 on x [1, 3, 32, 32]: three tasks, two of them small.
MODEL=$WORK/small_cnn.onnx
PYTHONPATH=$(dirname "$ONNX_WRITER") /usr/bin/python3 - "$MODEL" <<'EOF'
import sys
import numpy as np
import onnx_writer
rng = np.random.default_rng(11)
w = {"W": rng.standard_normal((8, 3, 3, 3), dtype=np.float32), "B": rng.standard_normal(8, dtype=np.float32),
     "G": rng.standard_normal((4, 8), dtype=np.float32)}
nodes = [
    onnx_writer.node("Conv", ["x", "W", "B"], ["c"], pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
    onnx_writer.node("Relu", ["c"], ["r"]),
    onnx_writer.node("GlobalAveragePool", ["r"], ["p"]),
    onnx_writer.node("Flatten", ["p"], ["f"], axis=1),
    onnx_writer.node("Gemm", ["f", "G"], ["y"], transB=1),
]
open(sys.argv[1], "wb").write(onnx_writer.model(nodes, {"x": (1, 3, 32, 32)}, {"y": (1, 4)}, w))
EOF
TASKS=3

DB=$WORK/mpi.db
# Runs `tune` with --trials $1 on rank 0, a host worker and an $OTHER worker; $2 names the run's output files.
tune_model() {
  local args=(tune --model "$MODEL" --trials "$1" --batch 2 --timeout 10 --no-shipped-log --db "$DB")
  "${MPIRUN[@]}" -np 2 "$TETUNE_MPI" "${args[@]}" : -np 1 -x TETUNE_MPI_TARGET=$OTHER "$TETUNE_MPI" "${args[@]}" \
    >"$WORK/$2.out" 2>"$WORK/$2.err" || { cat "$WORK/$2.err"; fail "mpirun exited $?"; }
  if grep -q "dropped" "$WORK/$2.err"; then cat "$WORK/$2.err"; fail "a worker rank was dropped"; fi
}
# Checks that each target holds $1 records and that the two passes' summaries in run $3 each report $1 trials,
# $2 of them measured now.
check_targets() {
  for row in $HOST_ROW $OTHER_ROW; do check_target "$DB" $row "$1"; done
  [[ $(grep -c "^trials: $1 total ($2 measured now" "$WORK/$3.out") -eq 2 ]] ||
    { cat "$WORK/$3.out"; fail "want two summaries of $1 trials, $2 measured now"; }
}

TRIALS=8
tune_model $TRIALS first
[[ $(q "$DB" "select count(*) from workloads") -eq $TASKS ]] || fail "the log holds $(q "$DB" "select count(*) from workloads") workloads, want $TASKS"
[[ $(q "$DB" "select count(*) from targets") -eq 2 ]] || fail "the log holds $(q "$DB" "select count(*) from targets") targets, want 2"
OTHER_ROW=$(q "$DB" "select rowid from targets where ',' || features || ',' like '%,$HAS,%' and features not like '%$LACKS%'")
[[ -n $OTHER_ROW ]] || fail "no target with $HAS and without $LACKS for $OTHER: $(q "$DB" "select features from targets")"
HOST_ROW=$(q "$DB" "select rowid from targets where rowid != $OTHER_ROW")
check_targets $TRIALS $TRIALS first
# One baseline per task under each target: the $OTHER pass's were measured by rank 2, not by rank 0 under its own.
for row in $HOST_ROW $OTHER_ROW; do
  n=$(q "$DB" "select count(distinct workload_key) from records where tuner_version = 'tetune-default-schedule'
               and target_key = (select key from targets where rowid = $row)")
  [[ $n -eq $TASKS ]] || fail "target row $row holds baselines of $n tasks, want $TASKS"
  n=$(q "$DB" "select count(*) from records where tuner_version = 'tetune-default-schedule'
               and target_key = (select key from targets where rowid = $row)")
  [[ $n -eq $TASKS ]] || fail "target row $row holds $n baseline records, want one per task ($TASKS)"
done

# Resumed with a larger budget: each pass counts its own target's records and measures only the difference.
MORE=12
tune_model $MORE resumed
check_targets $MORE $((MORE - TRIALS)) resumed
echo OK
