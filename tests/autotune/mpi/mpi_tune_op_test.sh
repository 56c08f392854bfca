#!/usr/bin/env bash
# mpirun -np 3 tetune-mpi tune-op: rank 0 tunes, ranks 1 and 2 measure; every trial is a record in the log.
source "$(dirname "$0")/mpi_common.sh"
TRIALS=16
"${MPIRUN[@]}" -np 3 "$TETUNE_MPI" tune-op --op matmul --shape $SHAPE --trials $TRIALS --timeout 10 \
  --db "$WORK/mpi.db" --no-shipped-log >"$WORK/out.txt" 2>"$WORK/err.txt" || { cat "$WORK/err.txt"; fail "mpirun exited $?"; }
grep -q "^records: $TRIALS (measured now $TRIALS" "$WORK/out.txt" || { cat "$WORK/out.txt"; fail "rank 0 did not report $TRIALS records"; }
grep -q "dropped" "$WORK/err.txt" && { cat "$WORK/err.txt"; fail "a worker rank was dropped"; }
check_log "$WORK/mpi.db" $TRIALS
# Worker ranks print nothing on stdout: rank 0's summary appears once.
[[ $(grep -c "^records:" "$WORK/out.txt") -eq 1 ]] || fail "the summary appears more than once"
# The plain tetune binary never links Open MPI.
if ldd "$TETUNE" | grep -q libmpi; then fail "$TETUNE links libmpi"; fi
echo OK
