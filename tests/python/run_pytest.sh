#!/usr/bin/env bash
# Runs pytest on the given test files with the tetune package that
# //python:tetune assembled on PYTHONPATH, under Debian's interpreter (the
# one with python3-numpy and python3-pytest; tools/setup.sh installs both).
set -euo pipefail
runfiles="${RUNFILES_DIR:-${TEST_SRCDIR:?run me with bazel test}}"
site="$runfiles/tetune/python/site"
if [[ ! -f "$site/tetune/__init__.py" ]]; then
  echo "run_pytest.sh: no tetune package under $site (a data dependency on //python:tetune is missing)" >&2
  exit 1
fi
if ! /usr/bin/python3 -c "import numpy, pytest" 2>/dev/null; then
  echo "run_pytest.sh: /usr/bin/python3 lacks numpy or pytest: install python3-numpy python3-pytest (tools/setup.sh)" >&2
  exit 1
fi
export PYTHONPATH="$site"
export PYTHONDONTWRITEBYTECODE=1
# pytest's tmp_path and the tuning logs the tests create stay in the test's own directory.
export TMPDIR="${TEST_TMPDIR:-${TMPDIR:-/tmp}}"
export TETUNE_DB="$TMPDIR/user_log.db"
exec /usr/bin/python3 -m pytest -q -p no:cacheprovider "$@"
