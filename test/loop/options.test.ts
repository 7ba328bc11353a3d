/**
 * Every LoopOptions field changes what the loop does (the failure-analysis fields — triage,
 * raw_evidence, narrowing, rtl_edits, carry_edits, post_mortem — are in failure.test.ts), and a
 * recorded run replays with no LLM and no build.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { replayCheckout } from '../../mace/checkouts.ts';
import { makeBackend, parseLlmSpec } from '../../mace/llm/factory.ts';
import { closeAllStores } from '../../mace/store/store.ts';
import { OfflineLab, picoSpec } from './support.ts';

after(closeAllStores);
const lab = new OfflineLab();
const noDefine = (iterations = 2) => picoSpec({ objective: 'Verify addi.S passes on a 2x2 pico mesh.', budget: { max_iterations: iterations } });

describe('LoopOptions', () => {
  it('check=build passes a task on its build: no gate program runs (and a design that would time out is accepted)', async () => {
    const { outcome, trace } = await lab.run(noDefine(), { options: { check: 'build' } });
    assert.equal(outcome.status, 'passed');
    const task = trace.iterations[0]!.tasks[0]!;
    assert.deepEqual([task.passed, task.programs, task.config_rtl], [true, [], ['MINIMAL_MONITORING']]);
    const sim = await lab.run(noDefine(1));
    assert.equal(sim.outcome.status, 'budget_exceeded', 'with check=sim the same design times out');
  });

  for (const reuse of [true, false]) {
    it(`reuse_builds=${reuse}: the second task of one design ${reuse ? 'reuses' : 'rebuilds'} the model`, async () => {
      const { trace } = await lab.run(picoSpec(), { options: { reuse_builds: reuse, fast_path: false } });
      const [first, second] = trace.iterations[0]!.tasks;
      assert.equal(first!.build_id, second!.build_id);
      assert.equal(second!.build_reused, reuse);
    });
  }

  it('task_prompts: each task makes its own call only with the option on and the fast path off', async () => {
    const phases = async (options: object) =>
      (await lab.run(picoSpec(), { options })).trace.iterations[0]!.llmCalls.map((c) => c.phase).filter((p) => p === 'task').length;
    assert.equal(await phases({ task_prompts: true, fast_path: false }), 2);
    assert.equal(await phases({ task_prompts: false, fast_path: false }), 0);
    assert.equal(await phases({ task_prompts: true, fast_path: true }), 0);
  });

  it('plan_check=false: a plan runs as the planner wrote it (an invented define is built)', async () => {
    const on = await lab.run(picoSpec(), { mistakes: { unknown_define: 1 } });
    assert.ok(!on.trace.iterations[0]!.tasks[0]!.config_rtl?.includes('ENABLE_TURBO_PREFETCH'));
    assert.equal(on.trace.iterations[0]!.planChecks.length, 1);
    const off = await lab.run(picoSpec(), { mistakes: { unknown_define: 1 }, options: { plan_check: false } });
    assert.ok(off.trace.iterations[0]!.tasks[0]!.config_rtl?.includes('ENABLE_TURBO_PREFETCH'));
    assert.equal(off.trace.iterations[0]!.planChecks.length, 0);
  });

  it('fast_path=false: every task of a one-design plan runs', async () => {
    const off = await lab.run(picoSpec(), { options: { fast_path: false } });
    assert.deepEqual(off.trace.iterations[0]!.tasks.map((t) => t.task_id), ['build', 'gate']);
    assert.equal(off.trace.iterations[0]!.fastPath, undefined);
    const on = await lab.run(picoSpec());
    assert.deepEqual(on.trace.iterations[0]!.tasks.map((t) => t.task_id), ['gate']);
  });

  it('planner_thinking caps the thinking tokens of planner calls only; null leaves it to the model', async () => {
    const capped = await lab.run(noDefine(), { options: { planner_thinking: 64 } });
    const calls = capped.trace.iterations.flatMap((it) => it.llmCalls);
    assert.ok(calls.filter((c) => c.phase === 'plan').every((c) => c.thinking_tokens <= 64));
    const free = await lab.run(noDefine(), { options: { planner_thinking: null } });
    assert.ok(free.trace.iterations[0]!.llmCalls.find((c) => c.phase === 'plan')!.thinking_tokens > 64);
  });

  it('gate_pass_ends_run=false: a failing speculative task keeps the run going', async () => {
    const on = await lab.run(picoSpec(), { mistakes: { speculative_task: 1 } });
    assert.deepEqual([on.outcome.status, on.trace.iterations.length], ['passed', 1]);
    const off = await lab.run(picoSpec(), { mistakes: { speculative_task: 1 }, options: { gate_pass_ends_run: false } });
    const first = off.trace.iterations[0]!;
    assert.ok(first.tasks.some((t) => t.passed) && first.tasks.some((t) => !t.passed));
    assert.ok(off.trace.iterations.length >= 2, 'a task passing every gate program did not end the run');
    // The next plan's speculative task is now a known bad change, so the check sends it back.
    assert.ok(off.trace.iterations[1]!.planChecks.some((c) => c.rules?.includes('known_bad_change')));
  });
});

describe('deterministic replay', () => {
  it('reproduces a recorded run’s statuses and decisions with the replay backend and recorded steps', async () => {
    const recorded = await lab.run(noDefine(3), { mistakes: { unknown_define: 1 } });
    assert.equal(recorded.outcome.status, 'passed');
    const db = lab.dir + '/runs.duckdb';
    const backend = await makeBackend(parseLlmSpec({ backend: 'replay', replay: { db, run_id: recorded.outcome.runId } }));
    const replayed = await lab.run(noDefine(3), {
      backend,
      // The checkouts' sources give the plan check its define index; nothing is built there.
      checkouts: (await lab.checkoutRoots()).map((root) => replayCheckout(recorded.store, recorded.outcome.runId, root)),
    });
    assert.equal(replayed.outcome.status, recorded.outcome.status, replayed.outcome.reason);
    const decisions = (trace: typeof recorded.trace) =>
      trace.iterations.map((it) => ({
        plan: it.plan,
        checks: it.planChecks.map((c) => [c.action, c.rules, c.stripped, c.added]),
        tasks: it.tasks.map((t) => [t.task_id, t.passed, t.run_verdict, t.build_id, t.failure?.diagnosis, t.failure?.fix]),
        probes: it.probes.map((p) => [p.undone, p.passed, p.verdict]),
      }));
    assert.deepEqual(decisions(replayed.trace), decisions(recorded.trace));
    assert.deepEqual(
      replayed.trace.iterations.flatMap((it) => it.llmCalls.map((c) => c.reply)),
      recorded.trace.iterations.flatMap((it) => it.llmCalls.map((c) => c.reply)),
    );
  });

  it('fails clearly when a step was never recorded', async () => {
    const recorded = await lab.run(picoSpec());
    const backend = await makeBackend(parseLlmSpec({ backend: 'replay', replay: { db: lab.dir + '/runs.duckdb', run_id: recorded.outcome.runId } }));
    const { outcome } = await lab.run(picoSpec(), { backend, options: { fast_path: false }, checkouts: [replayCheckout(recorded.store, recorded.outcome.runId, (await lab.checkoutRoots())[0])] });
    assert.equal(outcome.status, 'error');
    assert.match(outcome.reason!, /recorded no build step under tag \w+\/iter0\/build\/build/);
  });
});
