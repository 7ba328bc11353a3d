/**
 * A small synthetic study written through the store's own writers, for the analysis tests: known
 * outcomes, costs, failures and fault stages, so every table has something to show.
 */
import type { Store } from '../../mace/store/store.ts';
import * as w from '../../mace/store/writers.ts';
import type { FailureStage } from '../../mace/store/writers.ts';

export interface FakeRun {
  readonly runId: string;
  readonly task: string;
  readonly method: string;
  readonly repeat: number;
  /** Omit for a run still running. */
  readonly status?: 'passed' | 'failed' | 'budget_exceeded' | 'planning_failed' | 'error';
  readonly startedAt: Date;
  readonly wallS?: number;
  readonly budgetS?: number;
  readonly fault?: string;
  readonly jobKey?: string;
  readonly options?: Record<string, unknown>;
  /** One entry per iteration: its tasks as [passed, build seconds, run seconds, reused]. */
  readonly iterations?: readonly (readonly (readonly [boolean, number, number, boolean])[])[];
  readonly llm?: readonly { readonly usd: number; readonly thinking: number }[];
  readonly failures?: readonly { readonly iteration: number; readonly stage?: FailureStage }[];
  /** An iteration-0 plan check that rejected the plan. */
  readonly planRejected?: boolean;
  readonly probes?: readonly { readonly iteration: number; readonly wallS: number }[];
  readonly resimulations?: readonly boolean[];
  readonly evaluations?: readonly {
    readonly simTime: number | null;
    readonly feasible: boolean;
    readonly simulated: boolean;
  }[];
}

export const LOOP_DEFAULTS = { triage: 'llm', check: 'sim', reuse_builds: true };

export async function writeRun(store: Store, run: FakeRun): Promise<void> {
  await w.startRun(store, {
    runId: run.runId,
    objective: `pass ${run.task}`,
    core: 'pico',
    mesh: [2, 2],
    workloads: ['addi.S'],
    startedAt: run.startedAt,
    method: run.method,
    task: run.task,
    repeat: run.repeat,
    spec: run.budgetS ? { budget: { max_wall_s: run.budgetS, max_iterations: 3, max_usd: 1 } } : undefined,
    options: run.options,
    backend: 'scripted',
    model: 'scripted-1',
    jobKey: run.jobKey ?? `${run.task}/${run.method}/${run.repeat}`,
    fault: run.fault ?? null,
  });
  for (const [iteration, tasks] of (run.iterations ?? []).entries()) {
    await w.recordIteration(store, {
      runId: run.runId,
      iteration,
      wallS: 1,
      usd: 0,
      tasks: tasks.map(([passed, buildS, runS, reused], i) => ({
        taskId: `t${i}`,
        kind: 'config',
        instruction: 'x',
        passed,
        buildSuccess: true,
        runVerdict: passed ? 'pass' : 'timeout',
        buildS,
        runS,
        buildReused: reused,
        programs: [{ test: 'addi.S', verdict: passed ? 'pass' : 'timeout' }],
      })),
    });
  }
  for (const [seq, call] of (run.llm ?? []).entries()) {
    await w.recordLlmCall(store, {
      runId: run.runId,
      seq,
      iteration: 0,
      phase: 'plan',
      backend: 'scripted',
      model: 'scripted-1',
      inputTokens: 100,
      outputTokens: 10,
      thinkingTokens: call.thinking,
      usd: call.usd,
      wallS: 0.1,
      ok: true,
      prompt: 'p',
      reply: 'r',
    });
  }
  for (const failure of run.failures ?? []) {
    await w.recordFailure(store, {
      runId: run.runId,
      iteration: failure.iteration,
      taskId: 't0',
      diagnosis: 'config_error',
      fix: 'f',
      stage: failure.stage,
    });
  }
  if (run.planRejected) {
    await w.recordPlanCheck(store, {
      runId: run.runId,
      iteration: 0,
      attempt: 0,
      action: 'rejected',
      problems: [{ rule: 'way_rule', task: 't0', reason: 'too many ways' }],
      stripped: {},
      added: {},
    });
  }
  if (run.probes?.length) {
    await w.recordProbes(
      store,
      run.probes.map((p, probe) => ({
        runId: run.runId,
        iteration: p.iteration,
        probe,
        taskId: 't0',
        undone: [],
        passed: false,
        buildSuccess: true,
        runVerdict: 'timeout',
        wallS: p.wallS,
      })),
    );
  }
  for (const [i, passed] of (run.resimulations ?? []).entries()) {
    await w.recordResimulation(store, {
      runId: run.runId,
      taskId: `t${i}`,
      program: 'addi.S',
      verdict: passed ? 'pass' : 'fail',
      passed,
      wallS: 1,
    });
  }
  for (const [idx, e] of (run.evaluations ?? []).entries()) {
    await w.recordEvaluation(store, {
      runId: run.runId,
      idx,
      round: idx,
      design: { caches: {} },
      passed: e.feasible,
      feasible: e.feasible,
      simTime: e.simTime,
      areaUm2: 100,
      wallS: 1,
      simulated: e.simulated,
      rejected: e.simulated ? '' : 'over the area budget',
    });
  }
  if (run.status) {
    if (run.status === 'passed') await w.markAllRecovered(store, run.runId);
    await w.finishRun(store, run.runId, run.status, {
      finishedAt: new Date(run.startedAt.getTime() + (run.wallS ?? 0) * 1000),
    });
  }
}

const T0 = Date.parse('2026-11-29T10:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

/**
 * The study: seven bring-up tasks run by mace (two repeats), no_triage (one repeat; slower by a
 * known amount on every task) and expert; a replaced error run; an unfinished run; a seeded fault
 * with a fault check; and one co-design search.
 */
export function smallStudy(): FakeRun[] {
  const runs: FakeRun[] = [];
  let minute = 0;
  for (let t = 1; t <= 7; t++) {
    const task = `pico-${t}`;
    for (let repeat = 0; repeat < 2; repeat++) {
      const passed = !(t === 7 && repeat === 1);
      runs.push({
        runId: `mace-${t}-${repeat}`,
        task,
        method: 'mace',
        repeat,
        status: passed ? 'passed' : 'budget_exceeded',
        startedAt: at(minute++),
        wallS: passed ? 100 + 10 * t + repeat : 600,
        budgetS: 600,
        options: LOOP_DEFAULTS,
        iterations: passed
          ? [
              [
                [false, 30, 5, false],
                [true, 0, 5, true],
              ],
              [[true, 20, 4, false]],
            ]
          : [[[false, 40, 10, false]], [[false, 0, 10, true]]],
        llm: [
          { usd: 0.01, thinking: 50 },
          { usd: 0.02, thinking: 70 },
        ],
        failures: [{ iteration: 0, stage: 'triage' }],
      });
    }
    runs.push({
      runId: `raw-${t}`,
      task,
      method: 'no_triage',
      repeat: 0,
      status: t === 3 ? 'failed' : 'passed',
      startedAt: at(minute++),
      wallS: t === 3 ? 200 : 130 + 10 * t,
      budgetS: 600,
      options: { ...LOOP_DEFAULTS, triage: 'raw' },
      iterations: [[[true, 50, 5, false]]],
      llm: [{ usd: 0.05, thinking: 0 }],
      failures: t === 3 ? [{ iteration: 0, stage: 'raw_evidence' }] : [],
    });
    runs.push({
      runId: `expert-${t}`,
      task,
      method: 'expert',
      repeat: 0,
      status: 'passed',
      startedAt: at(minute++),
      wallS: 40 + t,
      budgetS: 600,
      iterations: [[[true, 30, 5, false]]],
      resimulations: t === 1 ? [true, false] : undefined,
    });
  }
  // An error run of mace on pico-1 repeat 0, started before its replacement and with an older definition.
  runs.push({
    runId: 'mace-1-0-error',
    task: 'pico-1',
    method: 'mace',
    repeat: 0,
    status: 'error',
    startedAt: at(-10),
    wallS: 5,
    budgetS: 600,
    jobKey: 'old-definition',
  });
  runs.push({ runId: 'raw-unfinished', task: 'pico-1', method: 'no_triage', repeat: 1, startedAt: at(minute++) });
  for (const [i, task] of ['pico-1', 'pico-2'].entries()) {
    runs.push({
      runId: `seeded-${i}`,
      task,
      method: 'seeded_drop_bist',
      repeat: 0,
      status: i === 0 ? 'passed' : 'failed',
      startedAt: at(minute++),
      wallS: 300,
      budgetS: 600,
      fault: 'drop_bist',
      iterations: [
        [[false, 30, 60, false] as const],
        [[i === 0, 0, 60, true] as const],
        ...(i === 0 ? [] : [[[false, 0, 60, true] as const]]),
      ],
      failures: [{ iteration: 0, stage: i === 0 ? 'narrowing' : 'triage' }],
      probes: i === 0 ? [{ iteration: 0, wallS: 12 }] : [],
    });
  }
  runs.push({
    runId: 'faultcheck-1',
    task: 'pico-1',
    method: 'faultcheck_drop_bist',
    repeat: 0,
    status: 'failed',
    startedAt: at(minute++),
    wallS: 90,
    fault: 'drop_bist',
    iterations: [[[false, 30, 60, false]]],
  });
  runs.push({
    runId: 'codesign-1',
    task: 'cd-1',
    method: 'codesign_random',
    repeat: 0,
    status: 'passed',
    startedAt: at(minute++),
    wallS: 500,
    evaluations: [
      { simTime: 1000, feasible: true, simulated: true },
      { simTime: null, feasible: false, simulated: false },
      { simTime: 900, feasible: true, simulated: true },
      { simTime: 800, feasible: false, simulated: true },
    ],
  });
  return runs;
}

export async function writeStudy(store: Store, runs: readonly FakeRun[]): Promise<void> {
  for (const run of runs) await writeRun(store, run);
}
