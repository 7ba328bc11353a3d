#!/usr/bin/env bash
# Installs everything MACE-TS needs on a fresh Debian machine with Node 20: the npm packages
# (exact versions from package-lock.json), and Debian's Jupyter for the tslab notebooks where it is
# missing. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== npm packages"
npm ci --no-audit --no-fund

# The notebooks run on Debian's Jupyter under /usr/bin/python3 (the python3 first on PATH may be
# another one, such as pyenv's, without it). Figures need no system font: they embed DejaVu from npm.
echo "== Jupyter (for mace notebooks)"
if /usr/bin/python3 -c 'import nbconvert, nbclient, ipykernel, jupyter_client' 2>/dev/null; then
  echo "already installed"
elif [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    jupyter-notebook python3-notebook jupyter-nbconvert python3-nbclient python3-ipykernel jupyter-client >/dev/null
  echo "installed"
else
  echo "missing: as root, apt-get install jupyter-notebook jupyter-nbconvert python3-nbclient python3-ipykernel" >&2
fi
