#!/usr/bin/env bash
# Worker ranks of two targets: rank 1 measures for this host, rank 2 for AVX2 (TETUNE_MPI_TARGET, a subset of
# this CPU; SSE4.1 on a CPU without AVX-512, whose AVX2 target would be its own). Rank 0 tunes the task once
# per target, both at once, and the log holds --trials records under each target. A target this CPU cannot
# run is refused, naming the variable and the extension it lacks.
source "$(dirname "$0")/mpi_common.sh"
pick_other_target
TRIALS=8
DB=$WORK/mpi.db
# Batches of 2: each pass commits records four times. (Whether the passes overlap in time is not
# asserted: on a loaded 2-core machine one pass can finish before the other's first commit.)
ARGS=(tune-op --op matmul --shape 64,64,64 --trials $TRIALS --batch 2 --timeout 10 --no-shipped-log --no-library)
"${MPIRUN[@]}" -np 2 "$TETUNE_MPI" "${ARGS[@]}" --db "$DB" : -np 1 -x TETUNE_MPI_TARGET=$OTHER "$TETUNE_MPI" "${ARGS[@]}" --db "$DB" \
  >"$WORK/out.txt" 2>"$WORK/err.txt" || { cat "$WORK/err.txt"; fail "mpirun exited $?"; }
grep -q "dropped" "$WORK/err.txt" && { cat "$WORK/err.txt"; fail "a worker rank was dropped"; }
[[ $(q "$DB" "select count(*) from targets") -eq 2 ]] || fail "the log holds $(q "$DB" "select count(*) from targets") targets, want 2"
OTHER_ROW=$(q "$DB" "select rowid from targets where ',' || features || ',' like '%,$HAS,%' and features not like '%$LACKS%'")
[[ -n $OTHER_ROW ]] || fail "no target with $HAS and without $LACKS for $OTHER: $(q "$DB" "select features from targets")"
HOST_ROW=$(q "$DB" "select rowid from targets where rowid != $OTHER_ROW")
for row in $HOST_ROW $OTHER_ROW; do check_target "$DB" $row $TRIALS; done
# The other target's features are a subset of the host's: the same CPU measured both.
host_features=$(q "$DB" "select features from targets where rowid = $HOST_ROW")
for f in $(q "$DB" "select features from targets where rowid = $OTHER_ROW" | tr , ' '); do
  [[ ,$host_features, == *,$f,* ]] || fail "$OTHER's feature $f is not among the host's: $host_features"
done
# The run names both targets: rank 0 lists the groups on stderr, and each pass's summary its target on stdout.
for row in $HOST_ROW $OTHER_ROW; do
  key=$(q "$DB" "select key from targets where rowid = $row")
  grep -qF "$key" "$WORK/err.txt" || { cat "$WORK/err.txt"; fail "stderr does not name target $key"; }
  grep -qxF "target: $key" "$WORK/out.txt" || { cat "$WORK/out.txt"; fail "stdout has no summary for target $key"; }
done
[[ $(grep -c "^records: $TRIALS (measured now $TRIALS" "$WORK/out.txt") -eq 2 ]] || { cat "$WORK/out.txt"; fail "want two summaries of $TRIALS records"; }

# A target using extensions this CPU lacks: rank 1 is refused, and rank 0, left without a worker, names why.
if has avx512_fp16; then
  echo "note: this CPU has AVX512-FP16; the refusal of a target it cannot run is not checked"
else
  SPR=x86-64-linux-avx512_sapphirerapids
  "${MPIRUN[@]}" -np 1 "$TETUNE_MPI" "${ARGS[@]}" --db "$WORK/refused.db" : -np 1 -x TETUNE_MPI_TARGET=$SPR \
    "$TETUNE_MPI" "${ARGS[@]}" --db "$WORK/refused.db" >"$WORK/out2.txt" 2>"$WORK/err2.txt" || true
  grep -q "tetune: error: no MPI worker rank can measure .*TETUNE_MPI_TARGET=$SPR: this CPU lacks .*avx512fp16" \
    "$WORK/err2.txt" || { cat "$WORK/err2.txt"; fail "rank 0 did not report the refused TETUNE_MPI_TARGET"; }
fi
echo OK
