import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { join } from 'node:path';
import { Store, closeAllStores } from '../../mace/store/store.ts';
import { MIGRATIONS, SCHEMA_VERSION, TABLES, TABLE_NAMES } from '../../mace/store/schema.ts';
import * as w from '../../mace/store/writers.ts';
import { failureTaxonomy, getRun, listRuns, query, runSummary, runTrace } from '../../mace/store/readers.ts';
import { tempDir } from '../helpers.ts';

after(closeAllStores);
const dir = tempDir();
const t0 = new Date('2026-11-29T10:00:00Z');

async function freshStore(name: string): Promise<Store> {
  return Store.open(join(dir, `${name}.duckdb`));
}

async function seedRun(store: Store, runId = 'run1'): Promise<void> {
  await w.startRun(store, {
    runId,
    objective: 'Pass addi.S on 2x2',
    core: 'pico',
    mesh: [2, 2],
    workloads: ['addi.S'],
    startedAt: t0,
    method: 'mace',
    task: 'pico-2x2-addi',
    repeat: 1,
    seed: 42,
    spec: { core: 'pico' },
    options: { triage: 'llm' },
    backend: 'scripted',
    model: 'scripted-1',
    suiteHash: 'abc',
    jobKey: 'k1',
    fault: 'drop_bist',
    meta: { host: 'h', mace_dirty: false },
  });
}

describe('schema', () => {
  it('migrations produce exactly the declared tables and column types', async () => {
    const store = await freshStore('schema');
    const rows = await query<{ table_name: string; column_name: string; data_type: string }>(
      store,
      "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_name <> 'schema_version' ORDER BY table_name, ordinal_position",
    );
    const actual: Record<string, Record<string, string>> = {};
    for (const row of rows) (actual[row.table_name] ??= {})[row.column_name] = row.data_type;
    const expected: Record<string, Record<string, string>> = {};
    for (const name of TABLE_NAMES) expected[name] = { ...TABLES[name].columns };
    assert.deepEqual(actual, expected);
    assert.equal(await store.version(), SCHEMA_VERSION);
  });

  it('declares primary keys that exist in the table', () => {
    for (const name of TABLE_NAMES) {
      for (const key of TABLES[name].primaryKey) assert.ok(key in TABLES[name].columns, `${name}.${key}`);
    }
  });
});

describe('round trips', () => {
  it('runs: start, meta, finish', async () => {
    const store = await freshStore('runs');
    await seedRun(store);
    await w.addRunMeta(store, 'run1', { checkouts: { '/c': { fingerprint: 'f' } } });
    await w.finishRun(store, 'run1', 'failed', { error: 'boom', finishedAt: new Date('2026-11-29T10:05:00Z') });
    const run = await getRun(store, 'run1');
    assert.deepEqual(run, {
      run_id: 'run1',
      objective: 'Pass addi.S on 2x2',
      core: 'pico',
      x_tiles: 2,
      y_tiles: 2,
      started_at: t0,
      finished_at: new Date('2026-11-29T10:05:00Z'),
      status: 'failed',
      method: 'mace',
      task: 'pico-2x2-addi',
      repeat: 1,
      seed: 42,
      meta: { host: 'h', mace_dirty: false, checkouts: { '/c': { fingerprint: 'f' } } },
      workloads: ['addi.S'],
      spec: { core: 'pico' },
      options: { triage: 'llm' },
      backend: 'scripted',
      model: 'scripted-1',
      suite_hash: 'abc',
      job_key: 'k1',
      fault: 'drop_bist',
      error: 'boom',
    });
  });

  it('iterations and tasks, failures, probes, plan checks, fast paths, LLM calls and post-mortems', async () => {
    const store = await freshStore('trace');
    await seedRun(store);
    const task: w.TaskRecord = {
      taskId: 't1',
      kind: 'config',
      instruction: 'drop the define',
      deps: ['base'],
      passed: false,
      buildSuccess: false,
      runVerdict: null,
      buildS: 8.5,
      runS: 0,
      caches: { l15: [8192, 4], l1d: [8192, 8], l1i: [16384, 4], l2: [65536, 4] },
      configRtl: ['MINIMAL_MONITORING', 'PITON_FPGA_SYNTH'],
      network: '2dmesh_config',
      module: null,
      programs: [{ test: 'addi.S', verdict: 'pass', simTime: 5179750 }],
      evidence: 'Build failure reason: verilog_error',
      simsFlags: ['-sys=manycore', '-pico'],
      buildId: 'mace_ced9398212fd',
      buildReused: false,
      failureReason: 'verilog_error',
      buildErrors: ["%Error-PINNOTFOUND: x.v:361:6: Pin not found: 'async_mux'"],
      simTime: 5179750,
      checkout: '/c0',
      startedAt: t0,
      finishedAt: new Date(t0.getTime() + 8500),
      rtlDiff: null,
    };
    await w.recordIteration(store, {
      runId: 'run1',
      iteration: 0,
      tasks: [task],
      wallS: 9,
      usd: 0.002,
      startedAt: t0,
      finishedAt: t0,
      plan: { tasks: ['t1'] },
      feedback: '',
    });
    await w.addIterationUsd(store, 'run1', 0, 0.001);
    await w.recordFailure(store, {
      runId: 'run1',
      iteration: 0,
      taskId: 't1',
      diagnosis: 'config_change',
      fix: 'remove PITON_FPGA_SYNTH',
      stage: 'narrowing',
      narrowing: 'culprit',
      feedback: 'Task t1 ...',
    });
    await w.recordProbes(store, [
      {
        runId: 'run1',
        iteration: 0,
        probe: 0,
        taskId: 't1',
        undone: [{ kind: 'added_define', define: 'PITON_FPGA_SYNTH' }],
        passed: true,
        buildSuccess: true,
        runVerdict: 'pass',
        wallS: 3,
        simsFlags: ['-pico'],
        buildId: 'mace_x',
        checkout: '/c1',
        startedAt: t0,
        finishedAt: t0,
        verdict: 'culprit',
      },
    ]);
    await w.recordPlanCheck(store, {
      runId: 'run1',
      iteration: 0,
      attempt: 0,
      action: 'rejected',
      problems: [{ rule: 'way_rule', task: 't1', reason: "l1d has 8 ways, more than the L1.5's 4" }],
      stripped: { t1: ['FOO'] },
      added: { t1: ['CONFIG_DISABLE_BIST_CLEAR'] },
      plan: [{ id: 't1' }],
    });
    await w.recordFastPath(store, {
      runId: 'run1',
      iteration: 0,
      keptTask: 't1',
      replaced: ['t0'],
      simsFlags: ['-pico'],
    });
    await w.recordLlmCall(store, {
      runId: 'run1',
      seq: 0,
      iteration: 0,
      phase: 'plan',
      taskId: null,
      replayTag: 'run1/iter0/plan/plan',
      backend: 'scripted',
      model: 'm',
      inputTokens: 1200,
      outputTokens: 80,
      thinkingTokens: 300,
      usd: 0.0011,
      wallS: 0.2,
      ok: true,
      prompt: 'You are planning',
      reply: 'TASK: t1 | deps= | kind=config | x',
      startedAt: t0,
      toolCalls: [{ name: 'grep' }],
    });
    await w.recordLlmCall(store, {
      runId: 'run1',
      seq: 1,
      iteration: null,
      phase: 'post_mortem',
      backend: 'scripted',
      model: 'm',
      inputTokens: 1,
      outputTokens: 1,
      thinkingTokens: 0,
      usd: 0,
      wallS: 0,
      ok: false,
      prompt: 'p',
      reply: null,
      error: 'LLMCallFailed: connection refused',
    });
    await w.recordPostMortem(store, { runId: 'run1', assessment: 'fixable_config', explanation: 'e', nextSteps: 'n' });
    await w.markAllRecovered(store, 'run1');

    const trace = (await runTrace(store, 'run1'))!;
    const it0 = trace.iterations[0]!;
    assert.equal(it0.usd, 0.003);
    assert.deepEqual(it0.plan, { tasks: ['t1'] });
    const t = it0.tasks[0]!;
    assert.deepEqual(
      {
        caches: t.caches,
        config_rtl: t.config_rtl,
        programs: t.programs,
        build_errors: t.build_errors,
        deps: t.deps,
        wall_s: t.wall_s,
        sim_time: t.sim_time,
        finished_at: t.finished_at,
      },
      {
        caches: task.caches,
        config_rtl: task.configRtl,
        programs: [['addi.S', 'pass', 5179750]],
        build_errors: task.buildErrors,
        deps: ['base'],
        wall_s: 8.5,
        sim_time: 5179750,
        finished_at: task.finishedAt,
      },
    );
    assert.deepEqual(t.failure, {
      run_id: 'run1',
      iteration: 0,
      task_id: 't1',
      diagnosis: 'config_change',
      fix: 'remove PITON_FPGA_SYNTH',
      recovered: true,
      stage: 'narrowing',
      narrowing: 'culprit',
      feedback: 'Task t1 ...',
    });
    assert.deepEqual(it0.probes[0]!.undone, [{ kind: 'added_define', define: 'PITON_FPGA_SYNTH' }]);
    assert.deepEqual(it0.planChecks[0]!.rules, ['way_rule']);
    assert.deepEqual(it0.planChecks[0]!.stripped, { t1: ['FOO'] });
    assert.deepEqual(it0.fastPath?.replaced, ['t0']);
    assert.deepEqual(
      it0.llmCalls.map((c) => [c.phase, c.thinking_tokens, c.tool_calls]),
      [['plan', 300, [{ name: 'grep' }]]],
    );
    assert.deepEqual(
      trace.runLlmCalls.map((c) => [c.phase, c.ok, c.error]),
      [['post_mortem', false, 'LLMCallFailed: connection refused']],
    );
    assert.equal(trace.postMortem?.assessment, 'fixable_config');
    assert.deepEqual(await runSummary(store, 'run1'), {
      successful_tasks: 0,
      iterations: 1,
      failures_recovered: 1,
      execution_time_s: 9,
      compute_usd: 0.0011,
    });
    assert.deepEqual(await failureTaxonomy(store), [{ diagnosis: 'config_change', count: 1, recovered: 1 }]);
  });

  it('resimulations and evaluations', async () => {
    const store = await freshStore('codesign');
    await seedRun(store);
    await w.recordResimulation(store, {
      runId: 'run1',
      taskId: 't1',
      program: 'addi.S',
      verdict: 'fail',
      passed: false,
      wallS: 1.5,
    });
    await w.recordEvaluation(store, {
      runId: 'run1',
      idx: 0,
      round: 0,
      design: { caches: { l1d: [16384, 4] }, network: '2dmesh_config' },
      passed: true,
      feasible: false,
      simTime: 101258750,
      areaUm2: 3831808,
      readEnergyNj: 0.1,
      areaSource: 'analytical',
      wallS: 12,
      simulated: true,
      rejected: 'over the area budget',
    });
    const [resim] = await query(store, 'SELECT * FROM resimulations');
    assert.deepEqual(resim, {
      run_id: 'run1',
      task_id: 't1',
      program: 'addi.S',
      verdict: 'fail',
      passed: false,
      wall_s: 1.5,
    });
    const [ev] = await query<Record<string, unknown>>(store, 'SELECT * FROM evaluations');
    assert.deepEqual(
      { ...ev, design: JSON.parse(ev!.design as string) },
      {
        run_id: 'run1',
        idx: 0,
        round: 0,
        design: { caches: { l1d: [16384, 4] }, network: '2dmesh_config' },
        passed: true,
        feasible: false,
        sim_time: 101258750,
        area_um2: 3831808,
        read_energy_nj: 0.1,
        area_source: 'analytical',
        wall_s: 12,
        simulated: true,
        rejected: 'over the area budget',
      },
    );
  });

  it('re-recording the same rows changes nothing', async () => {
    const store = await freshStore('idempotent');
    for (let i = 0; i < 2; i++) {
      await seedRun(store);
      await w.recordIteration(store, {
        runId: 'run1',
        iteration: 0,
        wallS: 1,
        usd: 0,
        tasks: [
          {
            taskId: 't',
            kind: 'config',
            instruction: 'i',
            passed: true,
            buildSuccess: true,
            runVerdict: 'pass',
            buildS: 1,
            runS: 0,
          },
        ],
      });
      await w.recordLlmCall(store, {
        runId: 'run1',
        seq: 0,
        iteration: 0,
        phase: 'plan',
        backend: 'b',
        model: 'm',
        inputTokens: 1,
        outputTokens: 1,
        thinkingTokens: 0,
        usd: 0.5,
        wallS: 0,
        ok: true,
        prompt: 'p',
        reply: 'r',
      });
    }
    const counts = await query<{ n: number }>(
      store,
      `SELECT (SELECT count(*) FROM runs) + (SELECT count(*) FROM iterations) + (SELECT count(*) FROM tasks) + (SELECT count(*) FROM llm_calls) AS n`,
    );
    assert.equal(counts[0]!.n, 4);
    assert.equal((await runSummary(store, 'run1'))!.compute_usd, 0.5);
  });

  it('a failed step leaves nothing behind (one transaction)', async () => {
    const store = await freshStore('atomic');
    await seedRun(store);
    await assert.rejects(
      store.write(async (tx) => {
        await tx.upsert('iterations', { run_id: 'run1', iteration: 0, num_tasks: 1, num_passed: 0, wall_s: 1, usd: 0 });
        await tx.upsert('tasks', {
          run_id: 'run1',
          iteration: 0,
          task_id: 't',
          kind: null as never,
          spec: 'x',
          passed: false,
          build_success: false,
        });
      }),
    );
    assert.deepEqual(await query(store, 'SELECT * FROM iterations'), []);
  });

  it('lists runs newest first with their summaries', async () => {
    const store = await freshStore('list');
    await seedRun(store, 'old');
    await w.startRun(store, {
      runId: 'new',
      objective: 'o',
      core: 'ariane',
      mesh: [1, 1],
      workloads: ['a.c'],
      startedAt: new Date(t0.getTime() + 1000),
    });
    const runs = await listRuns(store);
    assert.deepEqual(
      runs.map((r) => [r.run_id, r.status, r.iterations]),
      [
        ['new', 'running', 0],
        ['old', 'running', 0],
      ],
    );
    assert.equal((await listRuns(store, { limit: 1 })).length, 1);
  });
});

describe('migrations', () => {
  it('opens a database written by the previous schema version and keeps its rows', async () => {
    const path = join(dir, 'old.duckdb');
    const previous = SCHEMA_VERSION - 1;
    assert.ok(previous >= 1, 'there must be an earlier schema to migrate from');
    // Write the file as the previous version did: its migrations only, and rows in its columns.
    const writer = await Store.open(path, { schemaVersion: previous });
    await writer.write(async (tx) => {
      await tx.run(`INSERT INTO runs (run_id, objective, core, x_tiles, y_tiles, started_at, status, method, task, repeat, meta)
                    VALUES ('legacy', 'o', 'ariane', 2, 2, TIMESTAMP '2026-01-01 00:00:00', 'passed', 'mace', 'a', 0,
                      '{"host":"old","backend":"vertex","fault":"drop_bist"}')`);
      await tx.run(
        `INSERT INTO iterations (run_id, iteration, num_tasks, num_passed, wall_s, usd) VALUES ('legacy', 0, 1, 1, 33.9, 0.04)`,
      );
    });
    await closeAllStores();
    assert.equal(await writer.version(), previous);

    const reader = await Store.openForRead(path);
    assert.equal(await reader.version(), SCHEMA_VERSION);
    const run = await getRun(reader, 'legacy');
    assert.equal(run?.status, 'passed');
    assert.deepEqual(run?.meta, { host: 'old', backend: 'vertex', fault: 'drop_bist' });
    assert.equal(run?.suite_hash, null);
    // Version 1 kept these in meta; the report reads only their columns.
    assert.deepEqual([run?.backend, run?.model, run?.fault], ['vertex', null, 'drop_bist']);
    assert.deepEqual(await runSummary(reader, 'legacy'), {
      successful_tasks: 0,
      iterations: 1,
      failures_recovered: 0,
      execution_time_s: 33.9,
      compute_usd: 0.04,
    });
    const applied = await query<{ version: number }>(reader, 'SELECT version FROM schema_version ORDER BY version');
    assert.deepEqual(
      applied.map((r) => r.version),
      MIGRATIONS.map((m) => m.version),
    );
  });

  it('refuses a database from a newer version', async () => {
    const store = await freshStore('newer');
    await store.write((tx) =>
      tx.run(`INSERT INTO schema_version VALUES (${SCHEMA_VERSION + 1}, now()::TIMESTAMP, 'future')`),
    );
    await closeAllStores();
    await assert.rejects(
      Store.open(store.path),
      new RegExp(
        `written by a newer MACE-TS \\(schema version ${SCHEMA_VERSION + 1}\\); this one reads up to ${SCHEMA_VERSION}`,
      ),
    );
  });
});
