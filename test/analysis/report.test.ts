import assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { analyseFiles, analyseSources, type Analysis } from '../../harness/analysis/analyse.ts';
import { duckdbSource } from '../../harness/analysis/source.ts';
import { copyToSqlite, sqliteSource } from '../../harness/analysis/sqlite.ts';
import { TABLES, TABLE_NAMES } from '../../mace/store/schema.ts';
import { Store, closeAllStores } from '../../mace/store/store.ts';
import { runCli, tempDir } from '../helpers.ts';
import { assertReportMatchesSql } from './sql-check.ts';
import { smallStudy, writeRun, writeStudy } from './study.ts';

after(closeAllStores);
const dir = tempDir();
const db = join(dir, 'study.duckdb');
let analysis: Analysis;

before(async () => {
  await writeStudy(await Store.open(db), smallStudy());
  analysis = await analyseFiles([db], { seed: 3, resamples: 500 });
});

describe('report on a synthetic study', () => {
  it('agrees with the numbers recomputed by direct SQL', async () => {
    await assertReportMatchesSql(db, analysis);
  });

  it('leaves out and counts replaced and unfinished runs', () => {
    assert.equal(analysis.counts.runs, 34);
    assert.equal(analysis.counts.replaced, 1);
    assert.equal(analysis.counts.replaced_after_edit, 1);
    assert.equal(analysis.counts.unfinished, 1);
    assert.equal(analysis.counts.counted, 32);
    const replaced = analysis.runs.find((r) => r.run_id === 'mace-1-0-error')!;
    assert.equal(replaced.replaced_by, 'mace-1-0');
    const cell = analysis.cells.find((c) => c.task === 'pico-1' && c.method === 'mace')!;
    assert.equal(cell.runs, 2, 'the error run does not count');
    assert.equal(analysis.cells.find((c) => c.task === 'pico-1' && c.method === 'no_triage')!.runs, 1);
  });

  it('counts a failure at its budget, and flags a median that falls on one', () => {
    const failing = analysis.cells.find((c) => c.task === 'pico-7' && c.method === 'mace')!;
    assert.equal(failing.time_to_pass.median_s, (170 + 600) / 2);
    assert.equal(failing.time_to_pass.censored, true);
    assert.equal(failing.passed_time_s, 170);
    const run = analysis.runs.find((r) => r.run_id === 'mace-7-1')!;
    assert.deepEqual([run.time_to_pass_s, run.censored, run.wall_s], [600, true, 600]);
  });

  it('pairs each method with mace task by task and tests the differences exactly', () => {
    const noTriage = analysis.comparisons.find((c) => c.method === 'no_triage')!;
    assert.equal(noTriage.tasks, 7);
    // Six differences: 29.5 on five tasks, 469.5 on pico-3 (failed at its 600 s budget), −185 on pico-7.
    assert.equal(noTriage.test.wPlus, 5 * 3 + 7);
    assert.equal(noTriage.time_difference_s.median, 29.5);
    assert.deepEqual(noTriage.changes, ['triage="raw"']);
    const expert = analysis.comparisons.find((c) => c.method === 'expert')!;
    assert.equal(expert.test.wPlus, 0);
    assert.ok(Math.abs(expert.test.p - 2 / 2 ** 7) < 1e-15);
    assert.deepEqual(expert.changes, [], 'expert recorded no loop options');
    // Holm over two methods: the smaller p doubles.
    assert.equal(expert.p_holm, 2 * expert.test.p);
    assert.equal(noTriage.builds_difference.median, -2);
  });

  it('costs machine time at the hourly rate next to LLM dollars', () => {
    const run = analysis.runs.find((r) => r.run_id === 'mace-1-0')!;
    assert.equal(run.machine_s, 35 + 5 + 24);
    assert.equal(run.compute_usd, (64 / 3600) * 0.36);
    assert.ok(Math.abs(run.llm_usd - 0.03) < 1e-12);
    assert.equal(run.fresh_builds, 2);
    assert.equal(run.builds, 3);
    assert.equal(run.thinking_tokens, 120);
  });

  it('tables seeded-fault recovery with the stage that caught it, and fault checks', () => {
    assert.equal(analysis.recovery.length, 1);
    const row = analysis.recovery[0]!;
    assert.deepEqual(
      [row.fault, row.method, row.runs, row.recovered!.successes],
      ['drop_bist', 'seeded_drop_bist', 2, 1],
    );
    assert.equal(row.iterations_to_recover, 2);
    assert.equal(row.caught_by.narrowing, 1);
    assert.equal(row.caught_by.triage, 1);
    assert.deepEqual(
      analysis.fault_checks.map((f) => [f.fault, f.runs, f.failed, f.verified]),
      [['drop_bist', 1, 1, true]],
    );
  });

  it('summarises co-design searches as the original did', () => {
    const [search] = analysis.codesign.searches;
    assert.deepEqual(search!.curve, [1000, 900, 900]);
    assert.equal(search!.rejected, 1);
    const [summary] = analysis.codesign.summary;
    assert.deepEqual(
      [summary!.best_sim_time, summary!.best_known, summary!.reached, summary!.sims_to_near_best],
      [900, 900, 1, 2],
    );
    assert.ok(!analysis.cells.some((c) => c.method === 'codesign_random'));
  });

  it('records false accepts from re-simulations', () => {
    const cell = analysis.cells.find((c) => c.task === 'pico-1' && c.method === 'expert')!;
    assert.equal(cell.false_accepts, 1);
    assert.equal(analysis.cells.find((c) => c.task === 'pico-2' && c.method === 'expert')!.false_accepts, null);
  });

  it('gives the same intervals for the same seed', async () => {
    const again = await analyseFiles([db], { seed: 3, resamples: 500 });
    assert.deepEqual(again.cells, analysis.cells);
  });
});

/** A copy of the study database without some runs, as another machine's file would be. */
async function copyWithout(source: string, name: string, runIds: readonly string[]): Promise<string> {
  await closeAllStores();
  const path = join(dir, name);
  copyFileSync(source, path);
  const store = await Store.open(path);
  await store.write(async (tx) => {
    for (const table of TABLE_NAMES.filter((t) => 'run_id' in TABLES[t].columns))
      await tx.run(`DELETE FROM ${table} WHERE list_contains($1, run_id)`, [runIds]);
  });
  return path;
}

describe('several databases', () => {
  it('count a run found in two files once and apply the replaced rule across files', async () => {
    const runs = smallStudy();
    const half = Math.floor(runs.length / 2);
    const ids = runs.map((r) => r.runId);
    const a = await copyWithout(db, 'vm1.duckdb', ids.slice(half + 3));
    const b = await copyWithout(db, 'vm2.duckdb', ids.slice(0, half));
    const merged = await analyseFiles([a, b], { seed: 3, resamples: 500 });
    assert.equal(merged.counts.duplicates, 3);
    assert.deepEqual(
      merged,
      await analyseSources([await duckdbSource(a), await duckdbSource(b)], { seed: 3, resamples: 500 }),
    );
    assert.equal(merged.counts.runs, analysis.counts.runs);
    assert.deepEqual(merged.cells, analysis.cells);
    assert.deepEqual(merged.comparisons, analysis.comparisons);

    // The same job run again on a second machine, later: the first machine's run is replaced.
    const c = join(dir, 'vm3.duckdb');
    const first = runs.find((r) => r.runId === 'mace-2-0')!;
    await writeRun(await Store.open(c), {
      ...first,
      runId: 'mace-2-0-vm3',
      startedAt: new Date('2026-12-01T00:00:00Z'),
      wallS: 99,
    });
    const rerun = await analyseFiles([db, c], { seed: 3, resamples: 500 });
    assert.equal(rerun.counts.replaced, 2);
    assert.deepEqual(
      rerun,
      await analyseSources([await duckdbSource(db), await duckdbSource(c)], { seed: 3, resamples: 500 }),
    );
    assert.equal(rerun.runs.find((r) => r.run_id === 'mace-2-0')!.replaced_by, 'mace-2-0-vm3');
    const cell = rerun.cells.find((x) => x.task === 'pico-2' && x.method === 'mace')!;
    assert.equal(cell.time_to_pass.median_s, (99 + 121) / 2);
  });
});

describe('an SQLite copy', () => {
  it('gives the same analysis as the DuckDB database (runs grouped in JS there, in SQL here)', async () => {
    await closeAllStores();
    const copy = join(dir, 'study.sqlite');
    await copyToSqlite(db, copy);
    const source = await sqliteSource(copy);
    const fromSqlite = await analyseSources([source], { seed: 3, resamples: 500 });
    source.close();
    const withoutSource = (a: Analysis) => a.runs.map(({ source: _, ...rest }) => rest);
    assert.deepEqual(withoutSource(fromSqlite), withoutSource(analysis));
    const tables = ({ runs: _, settings: __, ...rest }: Analysis) => rest;
    assert.deepEqual(tables(fromSqlite), tables(analysis));
  });
});

describe('mace report', () => {
  it('prints Markdown, writes CSV and JSON', async () => {
    const csv = join(dir, 'runs.csv');
    const md = join(dir, 'report.md');
    const { code, stdout } = await runCli('report', db, '--csv', csv, '--out', md, '--resamples', '200');
    assert.equal(code, 0);
    assert.match(stdout, /## Per task and method/);
    assert.match(stdout, /## Against mace, time to pass/);
    assert.match(stdout, /## Ablations against mace/);
    assert.match(stdout, /## Recovery from seeded faults/);
    assert.match(stdout, /replaced them: 1 \(1 after their job's definition changed\)/);
    assert.equal(readFileSync(md, 'utf8'), stdout);
    const lines = readFileSync(csv, 'utf8').trimEnd().split('\n');
    assert.equal(lines.length, 1 + 34);
    assert.match(lines[0]!, /^source,run_id,task,method,repeat,/);

    const json = await runCli('report', db, '--json', '--hourly-usd', '1.5', '--resamples', '200');
    assert.equal(json.code, 0);
    const parsed = JSON.parse(json.stdout) as Analysis;
    assert.equal(parsed.settings.hourly_usd, 1.5);
    assert.equal(parsed.runs.length, 34);
  });

  it('exits 1 when a database has no labelled runs, and 2 on bad input', async () => {
    const empty = join(dir, 'empty.duckdb');
    await Store.open(empty);
    const none = await runCli('report', empty);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /no labelled evaluation runs in .*empty.duckdb/);
    assert.equal((await runCli('report', join(dir, 'missing.duckdb'))).code, 2);
    assert.equal((await runCli('report', db, '--hourly-usd', '-1')).code, 2);
  });
});
