#!/usr/bin/env bash
# Runs one lesson as a test: run_lesson.sh LESSON, a C++ lesson binary or a
# lesson_*.py file. A Python lesson runs under Debian's /usr/bin/python3 with
# the tetune package that //python:tetune assembled on PYTHONPATH (as
# tests/python/run_pytest.sh does). Lessons write only under $TMPDIR (the
# test's own directory, so never into the user's tuning log); TETUNE_MODELS
# points lesson 5 at the repository's models/ (git-ignored; tools/setup.sh).
set -euo pipefail
lesson="$1"
export TMPDIR="${TEST_TMPDIR:-${TMPDIR:-/tmp}}"
export TETUNE_DB="$TMPDIR/user_log.db"
root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
export TETUNE_MODELS="${TETUNE_MODELS:-$root/models}"
case "$lesson" in
  *.py)
    runfiles="${RUNFILES_DIR:-${TEST_SRCDIR:?run me with bazel test}}"
    site="$runfiles/tetune/python/site"
    if [[ ! -f "$site/tetune/__init__.py" ]]; then
      echo "run_lesson.sh: no tetune package under $site (a data dependency on //python:tetune is missing)" >&2
      exit 1
    fi
    export PYTHONPATH="$site" PYTHONDONTWRITEBYTECODE=1
    exec /usr/bin/python3 "$lesson"
    ;;
  *) exec "$lesson" ;;
esac
