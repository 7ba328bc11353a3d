/**
 * Sweeps end to end on offline checkouts (speed 0, no login shell) with the scripted agent: leasing
 * measured from the recorded start and finish times, source faults planted and restored, resume and
 * edit detection, and what each method records.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { planSweep, runSweep, type SweepOutcome } from '../../harness/runner/sweep.ts';
import { loadSuite } from '../../harness/suite/load.ts';
import { Store, closeAllStores } from '../../mace/store/store.ts';
import {
  ARIANE_TASK,
  FAULTED_FILE,
  FAULTED_LINE,
  PICO_RTL_FAULT_TASK,
  PICO_TASK,
  labHome,
  recordedRuns,
  suiteText,
  writeSuite,
  type RecordedRun,
} from './support.ts';

after(closeAllStores);

const dir = labHome();

async function sweep(text: string, db: string, labels: Record<string, string> = {}): Promise<SweepOutcome> {
  const suite = loadSuite(writeSuite(dir, text));
  const plan = await planSweep(suite, { db, labels });
  return runSweep(plan, { db, labels });
}

const spans = (runs: readonly RecordedRun[]) =>
  runs.map((r) => ({ ...r, roots: JSON.parse(r.meta).piton_roots as string[], end: Number(r.finished) }));

describe('a sweep on three checkouts', () => {
  const db = join(dir, 'lease.duckdb');
  const text = suiteText({
    methods: '[expert, retry_agent]',
    tasks: PICO_TASK + ARIANE_TASK + PICO_RTL_FAULT_TASK,
    offline: 3,
  });
  let first: SweepOutcome;

  it('runs one-checkout jobs three at once, never two on one checkout', async () => {
    first = await sweep(text, db);
    assert.equal(first.results.length, 6);
    assert.equal(first.skipped, 0);
    const runs = spans(await recordedRuns(db));
    assert.equal(runs.length, 6);
    for (const a of runs)
      for (const b of runs)
        if (a !== b && a.started < b.end && b.started < a.end)
          assert.ok(!a.roots.some((root) => b.roots.includes(root)), `${a.run_id} and ${b.run_id} shared a checkout`);
    const concurrent = Math.max(
      ...runs.map((s) => runs.filter((o) => o.started <= s.started && s.started < o.end).length),
    );
    assert.equal(concurrent, 3, 'three jobs ran at once');
    assert.equal(new Set(runs.flatMap((r) => r.roots)).size, 3);
  });

  it('plants a source fault in the job’s checkouts and restores it afterwards', async () => {
    const store = await Store.openForRead(db);
    const evidence = await store.read((q) =>
      q.all<{ status: string; evidence: string }>(
        `SELECT r.status, t.evidence FROM runs r JOIN tasks t USING (run_id) WHERE r.task = 'pico-2x2-rtlfault' AND r.method = 'expert'`,
      ),
    );
    assert.equal(evidence.length, 1);
    assert.equal(evidence[0]!.status, 'budget_exceeded');
    assert.match(evidence[0]!.evidence, /mem_readyx/);
    const roots = spans(await recordedRuns(db)).flatMap((r) => r.roots);
    for (const root of new Set(roots))
      assert.match(readFileSync(join(root, FAULTED_FILE), 'utf8'), new RegExp(FAULTED_LINE.replace(/[()|&]/g, '\\$&')));
  });

  it('starts every job from an empty build cache', async () => {
    const store = await Store.openForRead(db);
    const first = await store.read((q) =>
      q.all<{ build_reused: boolean | null }>('SELECT build_reused FROM tasks WHERE iteration = 0'),
    );
    assert.equal(first.length, 6);
    assert.ok(first.every((t) => t.build_reused === false));
  });

  it('runs no job the second time', async () => {
    const again = await sweep(text, db);
    assert.equal(again.results.length, 0);
    assert.equal(again.skipped, 6);
    assert.equal((await recordedRuns(db)).length, 6);
  });

  it('after an edit, runs exactly the jobs it changed, and says why', async () => {
    const edited = text.replace('on a 2x2 ariane mesh.', 'on a 2x2 ariane mesh, again.');
    const plan = await planSweep(loadSuite(writeSuite(dir, edited)), { db });
    plan.release();
    assert.deepEqual(plan.todo.map((j) => j.name).sort(), [
      'ariane-2x2-barrier expert r0',
      'ariane-2x2-barrier retry_agent r0',
    ]);
    assert.ok(plan.todo.every((j) => j.state.kind === 'changed' && j.state.changed.join() === 'task entry'));
    const outcome = await sweep(edited, db);
    assert.equal(outcome.results.length, 2);
    assert.equal((await recordedRuns(db)).length, 8);
  });
});

describe('what each method records', () => {
  const db = join(dir, 'methods.duckdb');
  let runs: RecordedRun[];
  const byMethod = (method: string) => runs.find((r) => r.method === method)!;

  it('runs every kind of method on one task', async () => {
    const outcome = await sweep(
      suiteText({
        methods: `[mace, one_shot, build_check, seeded_drop_bist, faultcheck_drop_bist, one_checkout,
            { name: quick, base: mace, options: { narrowing: false } }]`,
        tasks: PICO_TASK,
        offline: 3,
        perJob: 2,
        seed: 4,
        extra: '\n  labels: { study: test }',
      }),
      db,
      { machine: 'vm9' },
    );
    assert.equal(outcome.results.length, 7);
    runs = await recordedRuns(db);
    const status = Object.fromEntries(runs.map((r) => [r.method, r.status]));
    assert.equal(status.faultcheck_drop_bist, 'budget_exceeded');
    for (const method of ['mace', 'one_shot', 'build_check', 'seeded_drop_bist', 'one_checkout', 'quick'])
      assert.equal(status[method], 'passed', method);
  });

  it('records loop options for loop methods only, with a study method’s overrides', () => {
    assert.equal(byMethod('faultcheck_drop_bist').options, null);
    assert.deepEqual(JSON.parse(byMethod('one_shot').options!).triage, 'off');
    assert.equal(JSON.parse(byMethod('quick').options!).narrowing, false);
    assert.equal(JSON.parse(byMethod('build_check').options!).check, 'build');
    const meta = JSON.parse(byMethod('quick').meta);
    assert.deepEqual(meta.method_definition, { base: 'mace', options: { narrowing: false } });
  });

  it('records the fault, the seed, the job, the runner, labels and provenance', () => {
    assert.equal(byMethod('seeded_drop_bist').fault, 'drop_bist');
    assert.equal(byMethod('faultcheck_drop_bist').fault, 'drop_bist');
    assert.equal(byMethod('mace').fault, null);
    assert.equal(byMethod('faultcheck_drop_bist').backend, null);
    assert.equal(byMethod('mace').backend, 'scripted');
    assert.equal(new Set(runs.map((r) => r.seed)).size, 1, 'one repeat, one seed');
    for (const run of runs) {
      const meta = JSON.parse(run.meta);
      assert.match(run.job_key, new RegExp(`^pico-2x2-addi/${run.method}/r0/[0-9a-f]{12}$`));
      assert.deepEqual(meta.labels, { study: 'test', machine: 'vm9' });
      assert.equal(meta.suite, 'test');
      assert.equal(meta.runner.pid, process.pid);
      assert.ok(meta.mace_commit && meta.host && 'makeflags' in meta, 'project provenance');
      const checkouts = Object.values(meta.checkouts as Record<string, { fingerprint: string; verilator: string }>);
      assert.ok(
        checkouts.length >= 1 &&
          checkouts.every((c) => /^[0-9a-f]{64}$/.test(c.fingerprint) && /Verilator/.test(c.verilator)),
      );
      assert.equal(
        meta.piton_roots.length,
        run.method === 'one_checkout' || run.method.startsWith('faultcheck') ? 1 : 2,
      );
    }
  });

  it('re-simulates build_check’s accepted designs, and breaks the first plan of a seeded fault', async () => {
    const store = await Store.openForRead(db);
    const resims = await store.read((q) =>
      q.all<{ program: string; passed: boolean }>('SELECT program, passed FROM resimulations WHERE run_id = $1', [
        byMethod('build_check').run_id,
      ]),
    );
    assert.deepEqual(resims, [{ program: 'addi.S', passed: true }]);
    const plan = await store.read((q) =>
      q.one<{ plan: string }>(
        'SELECT CAST(plan AS VARCHAR) AS plan FROM iterations WHERE run_id = $1 AND iteration = 0',
        [byMethod('seeded_drop_bist').run_id],
      ),
    );
    const tasks = JSON.parse(plan!.plan) as { config_rtl: string[] | null }[];
    assert.ok(tasks.every((t) => !(t.config_rtl ?? []).includes('CONFIG_DISABLE_BIST_CLEAR')));
  });
});
