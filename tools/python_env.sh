#!/usr/bin/env bash
# Prints the PYTHONPATH line that makes `import tetune` work, once the
# package is built (`bazel build //python:tetune`):
#
#   bazel build //python:tetune && eval "$(tools/python_env.sh)"
#   /usr/bin/python3 -c "import tetune; print(tetune.host_target())"
#
# Use Debian's /usr/bin/python3: the extension is built against its headers
# (python3-dev) and the package needs its python3-numpy.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
site="$ROOT/.bazel/bin/python/site"
if [[ ! -f "$site/tetune/_core.so" ]]; then
  echo "python_env.sh: $site/tetune/_core.so is missing: run 'bazel build //python:tetune' in $ROOT first" >&2
  exit 1
fi
echo "export PYTHONPATH=\"$site\${PYTHONPATH:+:\$PYTHONPATH}\""
# Package data: the C++ lookup searches beside the running binary, which is python3 here.
echo "export TETUNE_SHIPPED_DB=\"\${TETUNE_SHIPPED_DB-$ROOT/tuning_logs/shipped.db}\""
echo "export TETUNE_COST_MODEL=\"\${TETUNE_COST_MODEL-$ROOT/autotune/cost_model/shipped/xgb.json}\""
