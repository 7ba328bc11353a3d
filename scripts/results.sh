#!/usr/bin/env bash
# Regenerates results/: the reference database from the quickstart suite, the figures drawn from it,
# and the committed notebook outputs. Run with `npm run results` (or `bash scripts/results.sh`).
set -euo pipefail
cd "$(dirname "$0")/.."

rm -f results/quickstart.duckdb
node bin/mace.mjs suite run suites/quickstart.yaml --db results/quickstart.duckdb --no-report
rm -rf results/figures
node bin/mace.mjs figures results/quickstart.duckdb --out results/figures --format svg,png,outlined.svg
node bin/mace.mjs notebooks run
