/**
 * Plan replay on a database written by real loops on offline checkouts with the scripted agent and
 * its mistakes; every expected number is recomputed here from the database with SQL and from what
 * each scenario makes the loop do.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { replayPlans, type PlanReplay, type ReplayOverrides } from '../../harness/analysis/plan-replay.ts';
import { startRun } from '../../mace/store/writers.ts';
import { query } from '../../mace/store/readers.ts';
import { closeAllStores, type Store } from '../../mace/store/store.ts';
import type { Task } from '../../mace/spec.ts';
import { runCli } from '../helpers.ts';
import { OfflineLab, arianeSpec, picoSpec } from '../loop/support.ts';

after(closeAllStores);
const lab = new OfflineLab();
const db = join(lab.dir, 'runs.duckdb');
let root: string;
let store: Store;
/** Run ids by scenario. */
const ids: Record<'checked' | 'unchecked' | 'slow' | 'wayRule' | 'faulted', string> = {
  checked: '',
  unchecked: '',
  slow: '',
  wayRule: '',
  faulted: '',
};

// An invented define on every task, and a speculative FPGA-synthesis task that fails its build; the
// run goes on past a gate pass, so the planner repeats the failed task in the next iteration.
const MISTAKES = { unknown_define: 1, speculative_task: 1 } as const;
const twoIterations = picoSpec({ budget: { max_iterations: 2 } });

before(async () => {
  root = (await lab.checkoutRoots(1))[0]!;
  store = await lab.db();
  const run = async (...args: Parameters<OfflineLab['run']>) => (await lab.run(...args)).outcome;
  const checked = await run(twoIterations, { mistakes: MISTAKES, options: { gate_pass_ends_run: false } });
  const unchecked = await run(twoIterations, {
    mistakes: MISTAKES,
    options: { gate_pass_ends_run: false, plan_check: false },
  });
  const slow = await run(picoSpec(), { options: { fast_path: false } });
  const wayRule = await run(
    arianeSpec({ objective: 'Verify the barrier passes on a 2x2 ariane mesh with l1d=8192,8.' }),
    {
      options: { plan_check: false },
    },
  );
  // A seeded fault: a plan hook breaks the first plan after the check.
  const faulted = await run(picoSpec(), {
    planHook: (iteration: number, tasks: Task[]) =>
      iteration === 0 ? tasks.map((t) => ({ ...t, config_rtl: [...(t.config_rtl ?? []), 'PITON_FPGA_SYNTH'] })) : tasks,
  });
  assert.deepEqual(
    [checked, unchecked, slow, wayRule, faulted].map((o) => o.status),
    ['passed', 'budget_exceeded', 'passed', 'passed', 'passed'],
  );
  Object.assign(ids, {
    checked: checked.runId,
    unchecked: unchecked.runId,
    slow: slow.runId,
    wayRule: wayRule.runId,
    faulted: faulted.runId,
  });
  // A run whose spec cannot be read (as an imported or hand-written row might be).
  await startRun(store, {
    runId: 'no-spec',
    objective: 'x',
    core: 'pico',
    mesh: [2, 2],
    workloads: [],
    spec: { objective: 'x' },
    options: {},
  });
});

const replays = new Map<string, PlanReplay>();
async function replay(overrides?: ReplayOverrides): Promise<PlanReplay> {
  const key = JSON.stringify(overrides ?? null);
  if (!replays.has(key)) {
    await closeAllStores();
    replays.set(key, await replayPlans(db, { checkout: { root, chosen: 'test' }, overrides }));
  }
  return replays.get(key)!;
}
const runOf = (r: PlanReplay, id: string) => r.runs.find((x) => x.run_id === id)!;

/** One number from the database, recomputed with SQL. */
async function sql(text: string, params: unknown[]): Promise<number> {
  const [row] = await query<{ v: number | null }>(store, text, params);
  return row?.v ?? 0;
}
const machineOf = (runId: string, iteration: number, taskIds: string[]) =>
  sql('SELECT sum(wall_s) AS v FROM tasks WHERE run_id = $1 AND iteration = $2 AND list_contains($3, task_id)', [
    runId,
    iteration,
    taskIds,
  ]);
const probeSeconds = (runId: string, iteration: number) =>
  sql('SELECT sum(wall_s) AS v FROM probes WHERE run_id = $1 AND iteration = $2', [runId, iteration]);
const callUsd = (runId: string, iteration: number, phase: string) =>
  sql('SELECT sum(usd) AS v FROM llm_calls WHERE run_id = $1 AND iteration = $2 AND phase = $3', [
    runId,
    iteration,
    phase,
  ]);
const close = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} vs ${expected}`);

describe('plan replay', () => {
  it('finds what the loop found: each look of a run with the check on agrees with its plan_checks row', async () => {
    const r = await replay();
    const looks = r.looks.filter((l) => l.run_id === ids.checked);
    const recorded = await query<{ iteration: number; attempt: number; action: string; rules: string[] }>(
      store,
      'SELECT iteration, attempt, action, rules FROM plan_checks WHERE run_id = $1 ORDER BY iteration, attempt',
      [ids.checked],
    );
    assert.deepEqual(
      looks.map((l) => [l.iteration, l.attempt, l.action, [...l.rules].sort()]),
      recorded.map((c) => [c.iteration, c.attempt, c.action, [...c.rules].sort()]),
    );
    assert.deepEqual(looks[1]!.rules, ['repeated_failure', 'known_bad_change'], 'rebuilt from the first iteration');
    assert.deepEqual(looks[0]!.stripped.build, ['ENABLE_TURBO_PREFETCH']);
    assert.ok(looks.every((l) => l.agrees === true));
    const run = runOf(r, ids.checked);
    assert.equal(run.disagreements, 0);
    assert.deepEqual([run.saved_builds, run.added_builds, run.caught_builds], [0, 0, 0], 'the check was on');
  });

  it('counts the builds and dollars the check would have saved a run without it', async () => {
    const run = runOf(await replay(), ids.unchecked);
    const id = ids.unchecked;
    assert.deepEqual([run.recorded.plan_check, run.replayed.plan_check], [false, true]);
    assert.deepEqual([run.iterations, run.replies, run.rejected, run.stripped], [2, 2, 1, 6]);
    assert.deepEqual([run.rules.repeated_failure, run.rules.known_bad_change], [1, 1]);
    // Iteration 1: explore (a failed repeat) is rejected; build and gate are then one design, and
    // the fast path keeps gate. The iteration's only failure is saved, so its probes and triage are.
    assert.deepEqual([run.saved_builds, run.rejected_builds, run.collapsed_builds], [2, 1, 1]);
    const machine = (await machineOf(id, 1, ['explore', 'build'])) + (await probeSeconds(id, 1));
    close(run.saved_machine_s, machine, 'saved machine seconds');
    close(run.saved_llm_usd, await callUsd(id, 1, 'triage'), 'saved LLM dollars');
    close(run.saved_usd, run.saved_llm_usd + (machine / 3600) * 0.36, 'saved dollars');
    assert.equal(run.builds, await sql('SELECT count(*) AS v FROM tasks WHERE run_id = $1', [id]));
    assert.ok(
      (await replay()).looks.filter((l) => l.run_id === id).every((l) => l.agrees === null),
      'nothing to compare',
    );
  });

  it('prices a way-rule build the check rejects, and the triage of its failure', async () => {
    const run = runOf(await replay(), ids.wayRule);
    assert.deepEqual([run.rejected, run.rules.way_rule, run.saved_builds, run.rejected_builds], [1, 2, 1, 1]);
    close(run.saved_machine_s, await machineOf(ids.wayRule, 0, ['gate']), 'saved machine seconds');
    close(run.saved_llm_usd, await callUsd(ids.wayRule, 0, 'triage'), 'saved LLM dollars');
    assert.ok(run.saved_llm_usd > 0);
  });

  it('with the check turned off, counts what it caught that would have been built', async () => {
    const run = runOf(await replay({ plan_check: false }), ids.checked);
    // Both iterations' first replies carry the invented define on all three tasks, which run unmerged.
    assert.equal(run.caught_builds, 6);
    // Iteration 1 built only gate; build and explore come back, neither of a design it built.
    assert.deepEqual([run.added_builds, run.unpriced_builds, run.added_machine_s], [2, 2, 0]);
    assert.equal(run.saved_builds, 0);
  });

  it('with the fast path turned on, saves the duplicate build and every task call', async () => {
    const run = runOf(await replay({ fast_path: true }), ids.slow);
    assert.deepEqual([run.saved_builds, run.collapsed_builds], [1, 1]);
    close(run.saved_machine_s, await machineOf(ids.slow, 0, ['build']), 'saved machine seconds');
    close(run.saved_llm_usd, await callUsd(ids.slow, 0, 'task'), 'saved LLM dollars');
    assert.ok(run.saved_llm_usd > 0);
  });

  it('with the fast path turned off, adds the builds it collapsed, priced at their twin', async () => {
    const run = runOf(await replay({ fast_path: false }), ids.checked);
    assert.equal(run.added_builds, 1, 'iteration 1 builds build beside gate');
    const gateRun = await sql('SELECT run_s AS v FROM tasks WHERE run_id = $1 AND iteration = 1 AND task_id = $2', [
      ids.checked,
      'gate',
    ]);
    close(run.added_machine_s, gateRun, 'added machine seconds');
    assert.equal(run.added_task_calls, 3 + 2);
  });

  it('leaves a plan a seeded fault changed as recorded, and a run without a spec out', async () => {
    const r = await replay();
    const faulted = runOf(r, ids.faulted);
    assert.deepEqual([faulted.iterations, faulted.unmatched_iterations, faulted.saved_builds], [2, 1, 0]);
    const noSpec = runOf(r, 'no-spec');
    assert.match(noSpec.skipped ?? '', /spec does not parse/);
    assert.equal(r.total.skipped_runs, 1);
  });

  it('totals every run', async () => {
    const r = await replay();
    assert.equal(r.total.runs, 6);
    for (const key of ['replies', 'saved_builds', 'saved_machine_s', 'saved_usd', 'unmatched_iterations'] as const)
      close(
        r.total[key],
        r.runs.reduce((s, x) => s + x[key], 0),
        key,
      );
    assert.equal(r.total.rules.way_rule, 2);
  });
});

describe('mace replay plans', () => {
  it('prints the table with the checkout and the counterfactual, or JSON', async () => {
    await closeAllStores();
    const text = await runCli('replay', 'plans', db, '--piton-root', root, '--options', 'plan_check=off,fast_path=on');
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^# Plan replay/);
    assert.ok(text.stdout.includes(`Checkout (define index, module paths): ${root} (--piton-root)`));
    assert.match(text.stdout, /Counterfactual: plan_check off, fast_path on/);
    assert.match(text.stdout, /\| total \(6 runs\) \|/);
    const json = await runCli('replay', 'plans', db, '--piton-root', root, '--json');
    assert.equal(json.code, 0, json.stderr);
    const parsed = JSON.parse(json.stdout) as PlanReplay;
    assert.equal(parsed.total.saved_builds, (await replay()).total.saved_builds);
    assert.deepEqual(parsed.settings.overrides, { plan_check: true });
  });

  it('exits 2 on an unknown option, a bad value, or a folder that is not a checkout', async () => {
    const unknown = await runCli('replay', 'plans', db, '--piton-root', root, '--options', 'speed=1');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown option "speed".*plan_check, fast_path/);
    const bad = await runCli('replay', 'plans', db, '--piton-root', root, '--options', 'plan_check=maybe');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /plan_check=on or plan_check=off/);
    const notCheckout = await runCli('replay', 'plans', db, '--piton-root', lab.dir);
    assert.equal(notCheckout.code, 2);
    assert.match(notCheckout.stderr, /not an OpenPiton checkout/);
  });
});
