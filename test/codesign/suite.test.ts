/**
 * A co-design suite end to end: the four strategies on the offline checkouts through `mace suite
 * run`, then the report's co-design table (checked against the evaluations by direct SQL) and the
 * two co-design figures drawn from the database.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { query } from '../../mace/store/readers.ts';
import { closeAllStores, Store } from '../../mace/store/store.ts';
import { runCli } from '../helpers.ts';
import { labHome, suiteText, writeSuite } from '../suite/support.ts';

after(closeAllStores);

const TASK = `
  - id: pico-2x2-codesign
    core: pico
    mesh: [2, 2]
    workloads: [addi.S]
    objective: Find the caches on which addi.S finishes soonest on a 2x2 pico mesh. Every design needs the CONFIG_DISABLE_BIST_CLEAR RTL define.
    verified: true
    expert: { config_rtl: [CONFIG_DISABLE_BIST_CLEAR] }
    codesign:
      simulations: 4
      batch: 2
      space:
        l15: { sizes: [4096, 8192, 16384], assocs: [4] }
        l2: { sizes: [32768, 65536, 131072], assocs: [4] }
      grid: { l15_size: [4096, 16384], l2_size: [32768] }
  - id: pico-2x2-addi
    core: pico
    mesh: [2, 2]
    workloads: [addi.S]
    objective: Verify addi.S passes on a 2x2 pico mesh. That task needs the CONFIG_DISABLE_BIST_CLEAR RTL define.
    verified: true
    expert: { config_rtl: [CONFIG_DISABLE_BIST_CLEAR] }`;

describe('a co-design suite', () => {
  const dir = labHome();
  const db = join(dir, 'codesign.duckdb');

  it('runs each search on co-design tasks only, and reports and draws them', async () => {
    const file = writeSuite(
      dir,
      suiteText({
        name: 'cd',
        methods: '[codesign_mace, codesign_random, codesign_grid, codesign_bayes, expert]',
        tasks: TASK,
      }),
    );
    const run = await runCli('suite', 'run', file, '--db', db, '--no-report');
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /--- ran 5, skipped 0 already done, 0 errors/);

    const store = await Store.openForRead(db);
    const runs = await query<{ method: string; task: string; status: string; seed: bigint | null }>(
      store,
      'SELECT method, task, status, seed FROM runs ORDER BY method',
    );
    assert.deepEqual(
      runs.map((r) => [r.method, r.task, r.status]),
      [
        ['codesign_bayes', 'pico-2x2-codesign', 'passed'],
        ['codesign_grid', 'pico-2x2-codesign', 'passed'],
        ['codesign_mace', 'pico-2x2-codesign', 'passed'],
        ['codesign_random', 'pico-2x2-codesign', 'passed'],
        ['expert', 'pico-2x2-addi', 'passed'],
      ],
    );
    const best = await query<{ method: string; best: bigint; sims: bigint }>(
      store,
      `SELECT r.method, min(e.sim_time) FILTER (WHERE e.feasible) AS best, count(*) FILTER (WHERE e.simulated) AS sims
       FROM evaluations e JOIN runs r USING (run_id) GROUP BY r.method ORDER BY r.method`,
    );
    const meta = await query<{ budget: number; source: string }>(
      store,
      `SELECT json_extract(meta, '$.codesign.area_budget_um2')::DOUBLE AS budget,
              json_extract_string(meta, '$.codesign.area_source') AS source FROM runs WHERE method = 'codesign_grid'`,
    );
    assert.deepEqual(meta, [{ budget: 3_510_272, source: 'analytical' }]);

    const report = await runCli('report', db, '--json', '--resamples', '200');
    assert.equal(report.code, 0, report.stderr);
    const summary = JSON.parse(report.stdout).codesign.summary as Array<{
      method: string;
      searches: number;
      best_sim_time: number;
      best_known: number;
    }>;
    assert.deepEqual(
      summary.map((s) => [s.method, s.searches, s.best_sim_time]),
      best.map((b) => [b.method, 1, Number(b.best)]),
    );
    const known = Math.min(...best.map((b) => Number(b.best)));
    assert.ok(summary.every((s) => s.best_known === known));
    // The grid holds two designs; the other searches use their four simulations.
    assert.deepEqual(
      best.map((b) => [b.method, Number(b.sims)]),
      [
        ['codesign_bayes', 4],
        ['codesign_grid', 2],
        ['codesign_mace', 4],
        ['codesign_random', 4],
      ],
    );
    const [grid] = await query<{ run_id: string }>(store, "SELECT run_id FROM runs WHERE method = 'codesign_grid'");
    const shown = await runCli('results', '--db', db, '--run-id', grid!.run_id);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(
      shown.stdout,
      /co-design proposals:\n.*\n.*\n +0 +0 +l15=4096,4 l1d=8192,4 l1i=16384,4 l2=32768,4 network=2dmesh_config +feasible +\d+ +\d+\n +1 +0 +l15=16384,4 /,
    );
    const markdown = await runCli('report', db, '--resamples', '200');
    assert.match(markdown.stdout, /## Co-design searches\n\n\| task \| method \| searches \| best_sim_time/);

    const out = join(dir, 'figures');
    const figures = await runCli('figures', db, '--out', out, '--only', 'codesign,codesign_pareto', '--format', 'svg');
    assert.equal(figures.code, 0, figures.stderr);
    for (const name of ['codesign', 'codesign_pareto'])
      for (const ext of ['svg', 'vl.json', 'data.json'])
        assert.ok(existsSync(join(out, `${name}.${ext}`)), `${name}.${ext}`);
  });
});
