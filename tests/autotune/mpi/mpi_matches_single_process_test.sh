#!/usr/bin/env bash
# An MPI run's records equal a single-process run's at the same trial budget: count, validity, target.
source "$(dirname "$0")/mpi_common.sh"
TRIALS=16
"${MPIRUN[@]}" -np 2 "$TETUNE_MPI" tune-op --op matmul --shape $SHAPE --trials $TRIALS --timeout 10 \
  --db "$WORK/mpi.db" --no-shipped-log >"$WORK/mpi_out.txt" 2>"$WORK/mpi_err.txt" || { cat "$WORK/mpi_err.txt"; fail "mpirun failed"; }
"$TETUNE" tune-op --op matmul --shape $SHAPE --trials $TRIALS --timeout 10 \
  --db "$WORK/one.db" --no-shipped-log >"$WORK/one_out.txt" 2>"$WORK/one_err.txt" || { cat "$WORK/one_err.txt"; fail "tetune failed"; }
check_log "$WORK/mpi.db" $TRIALS
check_log "$WORK/one.db" $TRIALS
for sql in "select count(*) from records where error_code = 0" "select count(*) from records where error_code != 0" \
           "select group_concat(key) from targets" "select group_concat(key) from workloads"; do
  a=$(sqlite3 "$WORK/mpi.db" "$sql"); b=$(sqlite3 "$WORK/one.db" "$sql")
  [[ $a == "$b" ]] || fail "'$sql': MPI run '$a', single process '$b'"
done
echo OK
