#!/usr/bin/env bash
# kill -9 of worker rank 1 mid-batch: rank 0 drops it after --timeout + 10 s, its candidates go to rank 2,
# and the run ends with every trial recorded (mpirun's own exit status reports the killed rank).
source "$(dirname "$0")/mpi_common.sh"
TRIALS=24
DB=$WORK/mpi.db
"${MPIRUN[@]}" -np 3 "$TETUNE_MPI" tune-op --op matmul --shape $SHAPE --trials $TRIALS --timeout 5 \
  --db "$DB" --no-shipped-log >"$WORK/out.txt" 2>"$WORK/err.txt" &
MPIRUN_PID=$!
# Wait for the first committed records (the first batch is under way), then kill rank 1.
for _ in $(seq 600); do
  n=$(sqlite3 "$DB" "select count(*) from records" 2>/dev/null || echo 0)
  [[ ${n:-0} -ge 4 ]] && break
  sleep 0.05
done
[[ ${n:-0} -ge 4 ]] || fail "no record after 30 s"
killed=
for p in $(pgrep -P $MPIRUN_PID); do  # the ranks are mpirun's children; their environment names their rank
  if tr '\0' '\n' </proc/$p/environ | grep -qx OMPI_COMM_WORLD_RANK=1; then kill -9 $p; killed=$p; fi
done
[[ -n $killed ]] || fail "rank 1 not found among mpirun's children"
before=$(sqlite3 "$DB" "select group_concat(id) from (select id from records order by id)")
wait $MPIRUN_PID || true  # non-zero: mpirun reports the rank killed by a signal
cat "$WORK/err.txt" | grep -v '^\[' || true
grep -q "^records: $TRIALS " "$WORK/out.txt" || { cat "$WORK/out.txt"; fail "rank 0 did not finish with $TRIALS records"; }
grep -q "MPI rank 1 dropped" "$WORK/err.txt" || fail "rank 0 did not report dropping rank 1"
check_log "$DB" $TRIALS
# The records committed before the kill are all still there.
after=$(sqlite3 "$DB" "select group_concat(id) from (select id from records order by id)")
[[ $after == "$before"* ]] || fail "records committed before the kill changed: '$before' -> '$after'"
# A candidate lost by rank 1 is re-sent (valid) or recorded as failed naming the rank.
other=$(sqlite3 "$DB" "select count(*) from records where error_code != 0 and error_msg not like '%rank%'")
echo "failed records not naming a rank: $other"
echo OK
