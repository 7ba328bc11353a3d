/**
 * The MACE loop end to end on the offline checkouts (the embedded default) with the scripted agent:
 * planning, the plan check, the fast path, parallel execution, verification, budgets and statuses.
 */
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { makeBackend, parseLlmSpec } from '../../mace/llm/factory.ts';
import { initOfflineCheckout } from '../../mace/openpiton/offline/index.ts';
import { openCheckouts } from '../../mace/checkouts.ts';
import { query } from '../../mace/store/readers.ts';
import { closeAllStores } from '../../mace/store/store.ts';
import { tempDir } from '../helpers.ts';
import { OfflineLab, WORKLOADS, arianeSpec, picoSpec } from './support.ts';

after(closeAllStores);
const lab = new OfflineLab();

describe('the loop on the offline checkout', () => {
  it('passes a PicoRV32 2x2 objective that names CONFIG_DISABLE_BIST_CLEAR', async () => {
    const { outcome, trace } = await lab.run(picoSpec({ workloads: ['addi.S', 'barrier_atomic_rv32.S'] }));
    assert.equal(outcome.status, 'passed', outcome.reason);
    assert.equal(trace.iterations.length, 1);
    const task = trace.iterations[0]!.tasks.at(-1)!;
    assert.ok(task.config_rtl?.includes('CONFIG_DISABLE_BIST_CLEAR'));
    assert.deepEqual(
      task.programs?.map((p) => [p[0], p[1]]),
      [
        ['addi.S', 'pass'],
        ['barrier_atomic_rv32.S', 'pass'],
      ],
    );
    assert.equal(trace.run.status, 'passed');
    assert.ok(trace.run.meta?.checkouts, 'checkout provenance is recorded');
    assert.equal(typeof trace.run.meta?.mace_commit, 'string');
  });

  it('corrects a planner that leaves the required define out (add_required_defines)', async () => {
    const { outcome, trace } = await lab.run(picoSpec(), { mistakes: { drop_objective_define: 1 } });
    assert.equal(outcome.status, 'passed');
    const plan = trace.iterations[0]!.llmCalls.find((c) => c.phase === 'plan')!.reply!;
    assert.doesNotMatch(plan, /CONFIG_DISABLE_BIST_CLEAR/, 'the planner left it out');
    const check = trace.iterations[0]!.planChecks[0]!;
    assert.equal(check.action, 'accepted');
    assert.deepEqual(Object.values(check.added ?? {})[0], ['CONFIG_DISABLE_BIST_CLEAR']);
  });

  it('sends back a plan that breaks the way rule, and the retry passes', async () => {
    const spec = arianeSpec({ objective: 'Verify the barrier passes on a 2x2 ariane mesh with l1d=8192,8.' });
    const { outcome, trace } = await lab.run(spec);
    assert.equal(outcome.status, 'passed', outcome.reason);
    const [first, retry] = trace.iterations[0]!.planChecks;
    assert.equal(first!.action, 'rejected');
    assert.deepEqual(first!.rules, ['way_rule']);
    assert.equal(retry!.attempt, 1);
    assert.equal(retry!.action, 'accepted');
    assert.deepEqual(
      trace.iterations[0]!.llmCalls.map((c) => c.phase),
      ['plan', 'plan_retry'],
    );
    assert.deepEqual(trace.iterations[0]!.tasks.at(-1)!.caches?.l1d, [8192, 4]);
  });

  it('runs one build for a plan of two names for one design (fast path)', async () => {
    const { outcome, trace } = await lab.run(picoSpec());
    assert.equal(outcome.status, 'passed');
    const it0 = trace.iterations[0]!;
    assert.deepEqual(it0.fastPath?.replaced, ['build']);
    assert.equal(it0.fastPath?.kept_task, 'gate');
    assert.equal(it0.tasks.length, 1);
  });

  it('does not fail the run for a speculative failing task beside a passing one', async () => {
    const { outcome, trace } = await lab.run(picoSpec(), { mistakes: { speculative_task: 1 } });
    assert.equal(outcome.status, 'passed');
    const tasks = trace.iterations[0]!.tasks;
    assert.ok(tasks.some((t) => t.task_id === 'explore' && !t.passed && t.failure_reason === 'verilog_error'));
    assert.ok(tasks.some((t) => t.passed));
  });

  it('spreads a level over the checkouts, one task at a time on each', async () => {
    const { trace } = await lab.run(picoSpec(), { mistakes: { speculative_task: 1 }, options: { fast_path: false } });
    const tasks = trace.iterations[0]!.tasks;
    assert.equal(new Set(tasks.map((t) => t.checkout)).size >= 1, true);
    for (const a of tasks) {
      for (const b of tasks) {
        if (a === b || a.checkout !== b.checkout) continue;
        const overlap = a.started_at! < b.finished_at! && b.started_at! < a.finished_at!;
        assert.equal(overlap, false, `${a.task_id} and ${b.task_id} overlapped on ${a.checkout}`);
      }
    }
  });
});

describe('run statuses', () => {
  it('failed: an iteration that returns no task results', async () => {
    const { outcome } = await lab.run(picoSpec(), { planHook: () => [] });
    assert.equal(outcome.status, 'failed');
    assert.match(outcome.reason!, /returned no task results/);
  });

  it('planning_failed: no plan in the first reply or either retry', async () => {
    const { outcome, trace } = await lab.run(picoSpec(), { mistakes: { no_plan: 1 } });
    assert.equal(outcome.status, 'planning_failed');
    assert.match(outcome.reason!, /holds no plan/);
    assert.deepEqual(trace.runLlmCalls.length, 0);
    const calls = await query<{ phase: string }>(
      await lab.db(),
      'SELECT phase FROM llm_calls WHERE run_id = $1 ORDER BY seq',
      [outcome.runId],
    );
    assert.deepEqual(
      calls.map((c) => c.phase),
      ['plan', 'plan_retry', 'plan_retry'],
    );
  });

  it('budget_exceeded: every iteration spent without a pass', async () => {
    const spec = picoSpec({ objective: 'Verify addi.S passes on a 2x2 pico mesh.', budget: { max_iterations: 1 } });
    const { outcome, trace } = await lab.run(spec);
    assert.equal(outcome.status, 'budget_exceeded');
    assert.match(outcome.reason!, /all 1 iteration\(s\) ended without a pass/);
    assert.equal(trace.postMortem?.assessment, 'fixable_config');
  });

  it('budget_exceeded: the dollar budget is checked before each iteration', async () => {
    const spec = picoSpec({
      objective: 'Verify addi.S passes on a 2x2 pico mesh.',
      budget: { max_iterations: 5, max_usd: 0.0005 },
    });
    const { outcome, trace } = await lab.run(spec);
    assert.equal(outcome.status, 'budget_exceeded');
    assert.match(outcome.reason!, /LLM budget of \$0.0005 was spent before iteration 1/);
    assert.equal(trace.iterations.length, 1);
  });

  it('budget_exceeded: work that would start after the wall budget does not start', async () => {
    const spec = picoSpec({
      objective: 'Verify addi.S passes on a 2x2 pico mesh.',
      budget: { max_iterations: 5, max_wall_s: 5 },
    });
    const slow = (await lab.checkouts('pico')).map((c) => ({
      ...c,
      build: async (...args: Parameters<typeof c.build>) => {
        await new Promise((r) => setTimeout(r, 5500));
        return c.build(...args);
      },
    }));
    const { outcome, trace } = await lab.run(spec, { checkouts: slow });
    assert.equal(outcome.status, 'budget_exceeded');
    assert.match(outcome.reason!, /wall-clock budget of 5 s ran out before iteration 1/);
    const task = trace.iterations[0]!.tasks[0]!;
    assert.deepEqual([task.build_success, task.passed, task.run_verdict], [true, false, null]);
    assert.deepEqual(task.programs, [['addi.S', null, null]], 'the simulation after the late build did not start');
    assert.match(task.evidence ?? '', /budget_exhausted/);
  });

  it('checksum_mismatch: a gate program that no longer matches CHECKSUMS, before any LLM call', async () => {
    const workloads = join(tempDir(), 'workloads');
    cpSync(WORKLOADS, workloads, { recursive: true });
    appendFileSync(join(workloads, 'barrier_atomic_rv32.S'), '\n# edited\n');
    const { outcome, trace } = await lab.run(picoSpec(), { workloadsDir: workloads });
    assert.equal(outcome.status, 'checksum_mismatch');
    assert.match(outcome.reason!, /barrier_atomic_rv32\.S changed/);
    assert.equal(trace.iterations.length, 0);
    const calls = await query(await lab.db(), 'SELECT * FROM llm_calls WHERE run_id = $1', [outcome.runId]);
    assert.equal(calls.length, 0);
  });

  it('unsupported_core: a checkout that cannot build the core', async () => {
    const root = join(tempDir(), 'no-ariane');
    await initOfflineCheckout(root, { speed: 0 });
    rmSync(join(root, 'piton/design/chip/tile/ariane'), { recursive: true, force: true });
    const { outcome } = await lab.run(arianeSpec(), { checkouts: openCheckouts([root], 'ariane') });
    assert.equal(outcome.status, 'unsupported_core');
    assert.match(outcome.reason!, /cannot build core ariane/);
  });

  it('error: an LLM that never answers (connection refused) ends the run as error', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const backend = await makeBackend(
      parseLlmSpec({
        backend: 'openai',
        model: 'local',
        price: { input: 0, output: 0 },
        base_url: `http://127.0.0.1:${port}/v1`,
        retry: { retries: 0 },
      }),
    );
    const { outcome, trace } = await lab.run(picoSpec(), { backend });
    assert.equal(outcome.status, 'error');
    assert.match(outcome.reason!, /LLMCallFailed/);
    assert.equal(trace.run.status, 'error');
  });
});
