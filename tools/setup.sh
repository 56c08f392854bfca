#!/usr/bin/env bash
# One-shot, idempotent machine setup for tetune (Debian 12 bookworm).
#
#   tools/setup.sh        (from any directory; as root, or with sudo available)
#   tools/setup.sh --zoo  also the PyTorch model zoo (step 4); --zoo=ci all but the
#                         two largest (ViT-B/16, BERT-base); --zoo=a,b only those models
#
# 1. apt packages: installs only what `dpkg-query` reports as not installed;
#    `apt-get update` runs only when something is missing.
#    Node.js: if a `node` >= 18 is already on PATH (e.g. a NodeSource build)
#    Debian's nodejs is NOT installed; Debian's npm only if no `npm` exists.
# 2. tools/fetch_models.sh  -> models/ppocr/ (skips files already present);
#    the shipped log tuning_logs/shipped.db built from its SQL text
#    tuning_logs/shipped.sql.gz (again only when the text is newer)
# 3. tools/reference: `npm ci` (ONNXRUNTIME_NODE_INSTALL=skip: CPU-only, no
#    downloads outside the npm registry) unless onnxruntime-node is installed.
# 4. with --zoo: Debian's python3-torch and python3-torchvision, then
#    bench/zoo/export_zoo.py -> models/zoo/ (seeded random weights, opset 13;
#    skips models already present).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

log() { echo "[setup] $*"; }

ZOO=""   # "" = no zoo, "all", or a comma-separated list of export_zoo.py model names
for arg in "$@"; do
  case "$arg" in
    --zoo) ZOO=all ;;
    --zoo=*) ZOO="${arg#--zoo=}" ;;
    *) echo "[setup] ERROR: unknown argument '$arg' (usage: tools/setup.sh [--zoo[=model,...]])" >&2; exit 1 ;;
  esac
done

SUDO=""
if [[ "$(id -u)" -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo -n"   # non-interactive: fail instead of prompting
  else
    echo "[setup] ERROR: not root and sudo is not available" >&2
    exit 1
  fi
fi

APT_PACKAGES=(
  bazel-bootstrap
  libhalide14-0-dev llvm-14
  libxgboost-dev
  libsqlite3-dev sqlite3
  libpq-dev postgresql-15
  libcli11-dev
  libgtest-dev googletest
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  libdnnl-dev libopenblas-dev
  libstb-dev nlohmann-json3-dev
  libssl-dev
  libopenmpi-dev openmpi-bin
  fonts-dejavu-core
  python3-dev pybind11-dev python3-numpy python3-pytest
  python3-matplotlib
)
if [[ -n "$ZOO" ]]; then
  APT_PACKAGES+=(python3-torch python3-torchvision)
fi

is_installed() {
  [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]
}

node_major() {
  command -v node >/dev/null 2>&1 || { echo 0; return; }
  node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0
}

# --- Node.js -----------------------------------------------------------------
NODE_MAJOR="$(node_major)"
if [[ "$NODE_MAJOR" -ge 18 ]]; then
  log "node $(node --version) found at $(command -v node): not installing Debian nodejs"
else
  [[ "$NODE_MAJOR" -gt 0 ]] && log "node $(node --version) is older than 18: adding Debian nodejs"
  APT_PACKAGES+=(nodejs)
fi
if command -v npm >/dev/null 2>&1 && [[ "$NODE_MAJOR" -ge 18 ]]; then
  log "npm $(npm --version 2>/dev/null) found at $(command -v npm)"
elif [[ "$NODE_MAJOR" -ge 18 ]] && ! dpkg-query -W -f="\${Version}" nodejs 2>/dev/null | grep -q "^18\.[0-9.]*+dfsg"; then
  # a non-Debian node (NodeSource, tarball): Debian's npm would pull in and
  # clash with Debian's nodejs, so do not try to mix them
  echo "[setup] ERROR: node $(node --version) has no npm; install the npm that belongs to it" >&2
  exit 1
else
  APT_PACKAGES+=(npm)
fi

# --- apt packages --------------------------------------------------------------
MISSING=()
for p in "${APT_PACKAGES[@]}"; do
  is_installed "$p" || MISSING+=("$p")
done
if [[ ${#MISSING[@]} -eq 0 ]]; then
  log "apt: all ${#APT_PACKAGES[@]} packages already installed"
else
  log "apt: installing ${MISSING[*]}"
  APT_LOG="$(mktemp)"
  if ! { $SUDO apt-get update -qq &&
         $SUDO apt-get install -y -qq --no-install-recommends "${MISSING[@]}"; } >"$APT_LOG" 2>&1; then
    cat "$APT_LOG" >&2
    rm -f "$APT_LOG"
    echo "[setup] ERROR: apt-get failed" >&2
    exit 1
  fi
  rm -f "$APT_LOG"
  for p in "${MISSING[@]}"; do
    is_installed "$p" || { echo "[setup] ERROR: $p still not installed" >&2; exit 1; }
  done
  log "apt: done"
fi

command -v node >/dev/null 2>&1 || { echo "[setup] ERROR: node not on PATH" >&2; exit 1; }
command -v npm  >/dev/null 2>&1 || { echo "[setup] ERROR: npm not on PATH" >&2; exit 1; }

# --- models ------------------------------------------------------------------------
log "models: tools/fetch_models.sh"
bash "$ROOT/tools/fetch_models.sh"

# --- the shipped log --------------------------------------------------------------
# Tracked as SQL text (tools/tune_shipped_log.sh writes it); the database is built here.
SHIPPED="$ROOT/tuning_logs/shipped.db"
if [[ ! -f "$SHIPPED" || "$ROOT/tuning_logs/shipped.sql.gz" -nt "$SHIPPED" ]]; then
  log "shipped log: tuning_logs/shipped.sql.gz -> tuning_logs/shipped.db"
  rm -f "$SHIPPED.tmp"
  gzip -dc "$ROOT/tuning_logs/shipped.sql.gz" | sqlite3 "$SHIPPED.tmp"
  mv "$SHIPPED.tmp" "$SHIPPED"
fi

# --- tools/reference npm deps ----------------------------------------------------
REF="$ROOT/tools/reference"
want_ver="$(node -p 'require(process.argv[1]).dependencies["onnxruntime-node"]' "$REF/package.json")"
have_ver="$(node -p 'try { require(process.argv[1]).version } catch (e) { "" }' \
  "$REF/node_modules/onnxruntime-node/package.json" 2>/dev/null || true)"
if [[ -n "$have_ver" && "$have_ver" == "$want_ver" ]]; then
  log "reference: onnxruntime-node@$have_ver already installed"
else
  log "reference: installing onnxruntime-node@$want_ver (CPU only) into tools/reference/node_modules"
  NPM_LOG="$(mktemp)"
  if [[ -f "$REF/package-lock.json" ]]; then NPM_CMD=(npm ci); else NPM_CMD=(npm install); fi
  if ! ( cd "$REF" && ONNXRUNTIME_NODE_INSTALL=skip "${NPM_CMD[@]}" --no-audit --no-fund --loglevel=error ) >"$NPM_LOG" 2>&1; then
    cat "$NPM_LOG" >&2
    rm -f "$NPM_LOG"
    echo "[setup] ERROR: npm install in tools/reference failed" >&2
    exit 1
  fi
  rm -f "$NPM_LOG"
fi
# smoke test: the bundled CPU binding must load (no network needed)
( cd "$REF" && node -e 'const o=require("onnxruntime-node"); if(!o.listSupportedBackends().some(b=>b.name==="cpu")) throw new Error("no cpu backend")' ) \
  || { echo "[setup] ERROR: onnxruntime-node CPU binding does not load" >&2; exit 1; }
log "reference: onnxruntime-node CPU binding OK"

# --- PyTorch model zoo (--zoo) ---------------------------------------------------------
if [[ -n "$ZOO" ]]; then
  ONLY=()
  [[ "$ZOO" != all ]] && ONLY=(--only "$ZOO")
  log "zoo: bench/zoo/export_zoo.py ${ONLY[*]} -> models/zoo/"
  # Debian's torch lives in /usr/lib/python3/dist-packages: the system python, not
  # whichever python3 is first on PATH
  ZOO_LOG="$(mktemp)"
  if ! /usr/bin/python3 "$ROOT/bench/zoo/export_zoo.py" "${ONLY[@]}" >"$ZOO_LOG" 2>&1; then
    cat "$ZOO_LOG" >&2
    rm -f "$ZOO_LOG"
    echo "[setup] ERROR: bench/zoo/export_zoo.py failed" >&2
    exit 1
  fi
  grep '^\[zoo\]' "$ZOO_LOG" || true   # the rest is torch.onnx's tracer warnings
  rm -f "$ZOO_LOG"
fi
log "done"
