#!/usr/bin/env bash
# Installs everything MACE-TS needs on a fresh Debian machine with Node 20: the npm packages
# (exact versions from package-lock.json). Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== npm packages"
npm ci --no-audit --no-fund
