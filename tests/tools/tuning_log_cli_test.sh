#!/usr/bin/env bash
# The shipped log is read-only; records go into the user's log
# ($XDG_CACHE_HOME/tetune/tetune.db); `log list` names the database of each
# record; read-only commands refuse a missing --db and create nothing;
# tune-op refuses a damaged log before writing and leaves it unchanged.
set -euo pipefail
T="$1"
SHIPPED="$2"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
unset TETUNE_DB TETUNE_SHIPPED_DB
export XDG_CACHE_HOME="$dir/cache"
user="$XDG_CACHE_HOME/tetune/tetune.db"
shipped_sum=$(cksum <"$SHIPPED")

# 1. tune-op with no --db: the record lands in the user's log, the shipped log is untouched.
"$T" tune-op --op matmul --shape 16,16,16 --trials 2 --threads 1 --no-library >"$dir/tune.txt" 2>&1 \
  || { cat "$dir/tune.txt"; fail "tune-op into the user's log"; }
[[ -f "$user" ]] || fail "no user log at $user"
grep -q "records go into $user" "$dir/tune.txt" || { cat "$dir/tune.txt"; fail "tune-op does not name the user's log"; }
[[ $(cksum <"$SHIPPED") == "$shipped_sum" ]] || fail "the shipped log $SHIPPED changed"
ls "$(dirname "$SHIPPED")" | grep -q 'shipped.db-' && fail "files created beside the shipped log"

# ... and asked to write into the shipped log, it refuses and names it.
if "$T" tune-op --op matmul --shape 16,16,16 --trials 2 --threads 1 --no-library --db "$SHIPPED" >"$dir/err.txt" 2>&1; then
  fail "tune-op wrote into the shipped log"
fi
grep -q "is the shipped log" "$dir/err.txt" || { cat "$dir/err.txt"; fail "message for --db SHIPPED"; }
[[ $(cksum <"$SHIPPED") == "$shipped_sum" ]] || fail "the shipped log $SHIPPED changed"

# 2. log list: one row per (workload, target) and database, named in the first column.
"$T" log list >"$dir/list.txt" 2>"$dir/list.err" || { cat "$dir/list.err"; fail "log list"; }
grep -q "^# user: $user\$" "$dir/list.txt" || { head -3 "$dir/list.txt"; fail "log list does not name the user's log"; }
grep -q "^# shipped: " "$dir/list.txt" || { head -3 "$dir/list.txt"; fail "log list does not name the shipped log"; }
[[ $(grep -c "^user .* matmul " "$dir/list.txt") == 1 ]] || { cat "$dir/list.txt"; fail "the tuned matmul is not listed as a user record"; }
grep -q "^shipped " "$dir/list.txt" || fail "no shipped record listed"
grep -q "^shipped .* matmul " "$dir/list.txt" && fail "the tuned matmul is listed as shipped"
"$T" log list --no-shipped-log >"$dir/list2.txt" 2>/dev/null
grep -q "^shipped " "$dir/list2.txt" && fail "--no-shipped-log still lists shipped records"
"$T" log best --workload "$(awk '$1 == "user" {print $2}' "$dir/list.txt")" --threads 1 >"$dir/best.txt" 2>/dev/null \
  || fail "log best of the tuned workload"
grep -q "from user log $user" "$dir/best.txt" || { cat "$dir/best.txt"; fail "log best does not name the log"; }

# 3. Read-only commands on a missing --db: an error naming it, and no file created.
for sub in list export "best --workload x"; do
  if "$T" log $sub --db "$dir/typo.db" >"$dir/err.txt" 2>&1; then fail "log $sub accepted a missing --db"; fi
  grep -q "'$dir/typo.db': no such tuning log" "$dir/err.txt" || { cat "$dir/err.txt"; fail "log $sub: message"; }
  [[ -e "$dir/typo.db" ]] && fail "log $sub created $dir/typo.db"
done

# 4. A damaged log: tune-op refuses it before writing, names it, leaves it byte-for-byte unchanged.
"$T" tune-op --op matmul --shape 16,16,16 --trials 2 --threads 1 --no-library --db "$dir/bad.db" >/dev/null 2>&1 \
  || fail "tune-op into $dir/bad.db"
[[ $(stat -c %s "$dir/bad.db") -gt 16384 ]] || fail "bad.db is too small to damage"
head -c 2048 /dev/zero | tr '\0' '\245' | dd of="$dir/bad.db" bs=1 seek=8200 conv=notrunc status=none
cp "$dir/bad.db" "$dir/bad.copy"
if "$T" tune-op --op matmul --shape 16,16,16 --trials 4 --threads 1 --no-library --db "$dir/bad.db" >"$dir/err.txt" 2>&1; then
  fail "tune-op wrote into a damaged log"
fi
grep -q "'$dir/bad.db': the database is damaged (PRAGMA quick_check" "$dir/err.txt" || { cat "$dir/err.txt"; fail "message"; }
cmp -s "$dir/bad.db" "$dir/bad.copy" || fail "the damaged log was modified"
echo "all ok"
