#!/usr/bin/env bash
# Regenerates results/: the reference databases of the quickstart and co-design suites, the figures
# drawn from them, and the committed notebook outputs. Run with `npm run results` (or
# `bash scripts/results.sh`).
set -euo pipefail
cd "$(dirname "$0")/.."

rm -f results/quickstart.duckdb
node bin/mace.mjs suite run suites/quickstart.yaml --db results/quickstart.duckdb --no-report
rm -rf results/figures
node bin/mace.mjs figures results/quickstart.duckdb --out results/figures --format svg,png,outlined.svg

rm -f results/codesign.duckdb
node bin/mace.mjs suite run suites/codesign.yaml --db results/codesign.duckdb --no-report
rm -rf results/codesign-figures
node bin/mace.mjs figures results/codesign.duckdb --out results/codesign-figures --only codesign,codesign_pareto \
  --format svg,png,outlined.svg
node bin/mace.mjs notebooks run
