# Shared by the tetune-mpi tests: sourced with $1 = tetune_mpi, $2 = tetune.
# Skips (exit 0 with a reason) where Open MPI's mpirun is missing.
set -euo pipefail
TETUNE_MPI=$(realpath "${1:?usage: TEST path/to/tetune_mpi path/to/tetune}")
TETUNE=$(realpath "${2:?usage: TEST path/to/tetune_mpi path/to/tetune}")
if ! command -v mpirun >/dev/null; then
  echo "SKIP: mpirun is missing (Debian: apt-get install openmpi-bin libopenmpi-dev, as tools/setup.sh does)"
  exit 0
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # CI runs as root
WORK=$(mktemp -d "${TEST_TMPDIR:-/tmp}/tetune-mpi.XXXXXX")
export TMPDIR=$WORK
# A rank that exits abnormally (the kill test) must not end the job.
MPIRUN=(mpirun --oversubscribe --mca orte_abort_on_non_zero_status 0)
SHAPE=128,128,128

fail() { echo "FAIL: $*" >&2; exit 1; }
# Prints one number: the SQL query's answer on the log $1.
q() { sqlite3 "$1" "$2"; }
# Checks a finished log: $2 records, each valid one with costs, a finite median and GFLOP/s > 0.
check_log() {
  local db=$1 want=$2
  local n ok bad
  n=$(q "$db" "select count(*) from records")
  [[ $n -eq $want ]] || fail "$db holds $n records, want $want"
  ok=$(q "$db" "select count(*) from records where error_code = 0")
  [[ $ok -gt 0 ]] || fail "$db has no valid record"
  bad=$(q "$db" "select count(*) from records where error_code = 0 and (costs_ms_json = '[]' or median_ms <= 0 or gflops <= 0)")
  [[ $bad -eq 0 ]] || fail "$db: $bad valid records without costs, median or GFLOP/s"
  echo "$db: $n records, $ok valid"
}
# Checks the records of one target in a finished log: $3 records under the target whose key is in row $2 of
# the targets table, each valid one with costs, a finite median and GFLOP/s > 0.
check_target() {
  local db=$1 row=$2 want=$3
  local of="target_key = (select key from targets where rowid = $row)"
  local n ok bad
  n=$(q "$db" "select count(*) from records where $of")
  [[ $n -eq $want ]] || fail "$db: target row $row holds $n records, want $want"
  ok=$(q "$db" "select count(*) from records where $of and error_code = 0")
  [[ $ok -gt 0 ]] || fail "$db: target row $row has no valid record"
  bad=$(q "$db" "select count(*) from records where $of and error_code = 0 and (costs_ms_json = '[]' or median_ms <= 0 or gflops <= 0)")
  [[ $bad -eq 0 ]] || fail "$db: target row $row: $bad valid records without costs, median or GFLOP/s"
  echo "$db: target row $row: $n records, $ok valid"
}

# Picks a second target this CPU can run, for a worker rank's TETUNE_MPI_TARGET: OTHER (the target), HAS (a
# feature it has) and LACKS (one it lacks, which the host target has). AVX2 on an AVX-512 CPU, else SSE4.1.
# Skips (exit 0 with a reason) off x86-64 or without SSE4.1.
has() { grep -qw "$1" /proc/cpuinfo; }
pick_other_target() {
  if [[ $(uname -m) != x86_64 ]] || ! has sse4_1; then
    echo "SKIP: TETUNE_MPI_TARGET takes another target on x86-64 only, and the smallest used here needs SSE4.1"
    exit 0
  fi
  if has avx512f && has avx2 && has fma; then
    OTHER=x86-64-linux-avx2-fma; HAS=avx2; LACKS=avx512
  else
    OTHER=x86-64-linux-sse41; HAS=sse4_1; LACKS=avx
  fi
}
