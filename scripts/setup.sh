#!/usr/bin/env bash
# Installs everything MACE-TS needs on a fresh Debian machine with Node 20: the npm packages
# (exact versions from package-lock.json), and where they are missing Debian's Jupyter for the tslab
# notebooks and Debian's Optuna for the codesign_bayes search. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== npm packages"
npm ci --no-audit --no-fund

# The notebooks and the Optuna bridge run under Debian's /usr/bin/python3 with Debian's packages (the
# python3 first on PATH may be another one, such as pyenv's, without them).
# debian_python TITLE MODULES PACKAGE...: apt-get install the packages unless python imports MODULES.
debian_python() {
  local title=$1 modules=$2
  shift 2
  echo "== $title"
  if /usr/bin/python3 -c "import $modules" 2>/dev/null; then
    echo "already installed"
  elif [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
    echo "installed"
  else
    echo "missing: as root, apt-get install --no-install-recommends $*" >&2
  fi
}

# Figures need no system font: they embed DejaVu from npm.
debian_python "Jupyter (for mace notebooks)" "nbconvert, nbclient, ipykernel, jupyter_client" \
  jupyter-notebook python3-notebook jupyter-nbconvert python3-nbclient python3-ipykernel jupyter-client
# codesign_bayes asks Optuna's TPE sampler for designs through mace/codesign/optuna-bridge.py.
debian_python "Optuna (for the codesign_bayes strategy)" optuna python3-optuna
