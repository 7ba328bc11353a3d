/**
 * Writers: one function per fact the loop and the harness record. Each is one transaction (or
 * joins the next one, see When) and idempotent: a fact is recorded once, and recording it again
 * changes nothing, so a step retried after a crash cannot double-count.
 */
import type { CacheGeometry } from '../openpiton/geometry.ts';
import type { RunStatus } from '../spec.ts';
import type { Row, Store, Tx } from './store.ts';

/** Commit a record now, or queue it for the next write's transaction (Store.later). */
export type When = 'now' | 'later';

function persist(store: Store, when: When, record: (tx: Tx) => Promise<void>): Promise<void> {
  if (when === 'now') return store.write(record);
  store.later(record);
  return Promise.resolve();
}

export interface NewRun {
  readonly runId: string;
  readonly objective: string;
  readonly core: string;
  readonly mesh: readonly [number, number];
  readonly workloads: readonly string[];
  readonly startedAt?: Date;
  readonly method?: string;
  readonly task?: string | null;
  readonly repeat?: number | null;
  readonly seed?: number | null;
  readonly spec?: object;
  readonly options?: object;
  readonly backend?: string | null;
  readonly model?: string | null;
  readonly suiteHash?: string | null;
  readonly jobKey?: string | null;
  readonly fault?: string | null;
  /** Provenance and labels: commit, checkouts, host, MAKEFLAGS and whatever the caller adds. */
  readonly meta?: object;
}

export async function startRun(store: Store, run: NewRun): Promise<void> {
  await store.write((tx) =>
    tx.insert('runs', {
      run_id: run.runId,
      objective: run.objective,
      core: run.core,
      x_tiles: run.mesh[0],
      y_tiles: run.mesh[1],
      workloads: run.workloads,
      started_at: run.startedAt ?? new Date(),
      status: 'running',
      method: run.method ?? 'mace',
      task: run.task ?? null,
      repeat: run.repeat ?? null,
      seed: run.seed ?? null,
      spec: run.spec ?? null,
      options: run.options ?? null,
      backend: run.backend ?? null,
      model: run.model ?? null,
      suite_hash: run.suiteHash ?? null,
      job_key: run.jobKey ?? null,
      fault: run.fault ?? null,
      meta: run.meta ?? {},
    }),
  );
}

export async function finishRun(
  store: Store,
  runId: string,
  status: Exclude<RunStatus, 'running'>,
  details: { readonly error?: string; readonly finishedAt?: Date } = {},
): Promise<void> {
  await store.write((tx) =>
    tx.update(
      'runs',
      { run_id: runId },
      { status, finished_at: details.finishedAt ?? new Date(), error: details.error ?? null },
    ),
  );
}

/** Merge keys into a run's meta JSON (provenance found after the run started, such as checkout fingerprints). */
export async function addRunMeta(store: Store, runId: string, meta: object, when: When = 'now'): Promise<void> {
  await persist(store, when, (tx) =>
    tx.run(`UPDATE runs SET meta = json_merge_patch(coalesce(meta, '{}'::JSON), $1::JSON) WHERE run_id = $2`, [
      JSON.stringify(meta),
      runId,
    ]),
  );
}

/** One simulated gate program of a task: its name, verdict and simulated finish time. */
export interface ProgramRecord {
  readonly test: string;
  readonly verdict: string | null;
  readonly simTime?: number | null;
  readonly wallS?: number;
}

export interface TaskRecord {
  readonly taskId: string;
  readonly kind: string;
  readonly instruction: string;
  readonly deps?: readonly string[];
  readonly passed: boolean;
  readonly buildSuccess: boolean;
  readonly runVerdict: string | null;
  readonly buildS: number;
  readonly runS: number;
  readonly caches?: Readonly<Record<string, CacheGeometry>> | null;
  readonly configRtl?: readonly string[] | null;
  readonly network?: string | null;
  readonly module?: string | null;
  readonly programs?: readonly ProgramRecord[];
  readonly evidence?: string | null;
  readonly simsFlags?: readonly string[];
  readonly buildId?: string | null;
  readonly buildReused?: boolean | null;
  readonly failureReason?: string | null;
  readonly buildErrors?: readonly string[];
  readonly simTime?: number | null;
  readonly checkout?: string | null;
  readonly startedAt?: Date | null;
  readonly finishedAt?: Date | null;
  readonly rtlDiff?: string | null;
}

export interface IterationRecord {
  readonly runId: string;
  readonly iteration: number;
  readonly tasks: readonly TaskRecord[];
  readonly wallS: number;
  readonly usd: number;
  readonly startedAt?: Date;
  readonly finishedAt?: Date;
  /** The plan as it ran (after the plan check and the fast path). */
  readonly plan?: object;
  /** The feedback history the planner was given. */
  readonly feedback?: string;
}

/** An iteration and its task rows, in one transaction. */
export async function recordIteration(store: Store, record: IterationRecord): Promise<void> {
  await store.write(async (tx) => {
    await tx.insert('iterations', {
      run_id: record.runId,
      iteration: record.iteration,
      num_tasks: record.tasks.length,
      num_passed: record.tasks.filter((task) => task.passed).length,
      wall_s: record.wallS,
      usd: record.usd,
      started_at: record.startedAt ?? null,
      finished_at: record.finishedAt ?? null,
      plan: record.plan ?? null,
      feedback: record.feedback ?? null,
    });
    for (const task of record.tasks) await upsertTask(tx, record.runId, record.iteration, task);
  });
}

function upsertTask(tx: Tx, runId: string, iteration: number, task: TaskRecord): Promise<void> {
  const row: Row = {
    run_id: runId,
    iteration,
    task_id: task.taskId,
    kind: task.kind,
    spec: task.instruction,
    deps: task.deps ?? [],
    passed: task.passed,
    build_success: task.buildSuccess,
    run_verdict: task.runVerdict,
    wall_s: task.buildS + task.runS,
    build_s: task.buildS,
    run_s: task.runS,
    caches: task.caches ?? null,
    config_rtl: task.configRtl ?? null,
    network: task.network ?? null,
    module: task.module ?? null,
    programs: (task.programs ?? []).map((p) => [p.test, p.verdict, p.simTime ?? null]),
    evidence: task.evidence ?? null,
    sims_flags: task.simsFlags ?? null,
    build_id: task.buildId ?? null,
    build_reused: task.buildReused ?? null,
    failure_reason: task.failureReason ?? null,
    build_errors: task.buildErrors ?? null,
    sim_time: task.simTime ?? null,
    checkout: task.checkout ?? null,
    started_at: task.startedAt ?? null,
    finished_at: task.finishedAt ?? null,
    rtl_diff: task.rtlDiff ?? null,
  };
  return tx.insert('tasks', row);
}

/** Cost found after the iteration was recorded (triage runs after execution). */
export async function addIterationUsd(
  store: Store,
  runId: string,
  iteration: number,
  usd: number,
  when: When = 'now',
): Promise<void> {
  await persist(store, when, (tx) =>
    tx.run('UPDATE iterations SET usd = usd + $1 WHERE run_id = $2 AND iteration = $3', [usd, runId, iteration]),
  );
}

/** How a failure was diagnosed: triage's LLM call, narrowing's probes, the raw evidence, or nothing. */
export const FAILURE_STAGES = ['triage', 'narrowing', 'raw_evidence', 'not_triaged', 'short_circuit'] as const;
export type FailureStage = (typeof FAILURE_STAGES)[number];

export interface FailureRecord {
  readonly runId: string;
  readonly iteration: number;
  readonly taskId: string;
  readonly diagnosis: string;
  readonly fix: string;
  readonly stage?: FailureStage;
  /** The narrowing verdict, when probes ran. */
  readonly narrowing?: string | null;
  /** The note this failure added to the feedback history. */
  readonly feedback?: string | null;
  readonly recovered?: boolean;
}

export async function recordFailure(store: Store, failure: FailureRecord, when: When = 'now'): Promise<void> {
  await persist(store, when, (tx) =>
    tx.insert('failures', {
      run_id: failure.runId,
      iteration: failure.iteration,
      task_id: failure.taskId,
      diagnosis: failure.diagnosis,
      fix: failure.fix,
      recovered: failure.recovered ?? false,
      stage: failure.stage ?? null,
      narrowing: failure.narrowing ?? null,
      feedback: failure.feedback ?? null,
    }),
  );
}

/** A run that passes marks every failure it recorded as recovered. */
export async function markAllRecovered(store: Store, runId: string, when: When = 'now'): Promise<void> {
  await persist(store, when, (tx) => tx.run('UPDATE failures SET recovered = true WHERE run_id = $1', [runId]));
}

export interface PostMortemRecord {
  readonly runId: string;
  readonly assessment: string;
  readonly explanation: string;
  readonly nextSteps: string;
}

export async function recordPostMortem(store: Store, pm: PostMortemRecord): Promise<void> {
  await store.write((tx) =>
    tx.insert('post_mortems', {
      run_id: pm.runId,
      assessment: pm.assessment,
      explanation: pm.explanation,
      next_steps: pm.nextSteps,
    }),
  );
}

export interface LlmCallRecord {
  readonly runId: string;
  /** Position of the call in its run; the caller counts, so re-recording a call is idempotent. */
  readonly seq: number;
  readonly iteration: number | null;
  readonly phase: string;
  readonly taskId?: string | null;
  readonly replayTag?: string | null;
  readonly backend: string;
  readonly model: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly thinkingTokens: number;
  readonly usd: number;
  readonly wallS: number;
  readonly ok: boolean;
  readonly prompt: string;
  readonly reply: string | null;
  readonly error?: string | null;
  readonly startedAt?: Date;
  readonly toolCalls?: readonly object[];
}

export async function recordLlmCall(store: Store, call: LlmCallRecord, when: When = 'now'): Promise<void> {
  await persist(store, when, (tx) =>
    tx.insert('llm_calls', {
      run_id: call.runId,
      seq: call.seq,
      iteration: call.iteration,
      phase: call.phase,
      task_id: call.taskId ?? null,
      replay_tag: call.replayTag ?? null,
      backend: call.backend,
      model: call.model,
      input_tokens: call.inputTokens,
      output_tokens: call.outputTokens,
      thinking_tokens: call.thinkingTokens,
      usd: call.usd,
      wall_s: call.wallS,
      ok: call.ok,
      prompt: call.prompt,
      reply: call.reply,
      error: call.error ?? null,
      started_at: call.startedAt ?? null,
      tool_calls: call.toolCalls ?? null,
    }),
  );
}

export const PLAN_CHECK_ACTIONS = ['rejected', 'accepted', 'kept', 'unusable'] as const;
export type PlanCheckAction = (typeof PLAN_CHECK_ACTIONS)[number];

export interface PlanProblemRecord {
  readonly rule: string;
  readonly task: string | null;
  readonly reason: string;
}

export interface PlanCheckRecord {
  readonly runId: string;
  readonly iteration: number;
  /** 0 for the first look at an iteration's plan, then one per retry. */
  readonly attempt: number;
  readonly action: PlanCheckAction;
  readonly problems: readonly PlanProblemRecord[];
  /** Task id to the defines strip_unknown_defines removed. */
  readonly stripped: Readonly<Record<string, readonly string[]>>;
  /** Task id to the defines add_required_defines added. */
  readonly added: Readonly<Record<string, readonly string[]>>;
  readonly plan?: object;
}

export async function recordPlanCheck(store: Store, check: PlanCheckRecord, when: When = 'now'): Promise<void> {
  await persist(store, when, (tx) =>
    tx.insert('plan_checks', {
      run_id: check.runId,
      iteration: check.iteration,
      attempt: check.attempt,
      action: check.action,
      rules: [...new Set(check.problems.map((p) => p.rule))],
      problems: check.problems,
      stripped: check.stripped,
      added: check.added,
      plan: check.plan ?? null,
    }),
  );
}

export interface ProbeRecord {
  readonly runId: string;
  readonly iteration: number;
  readonly probe: number;
  /** The failed task the probe rebuilt. */
  readonly taskId: string;
  /** The changes this probe undid. */
  readonly undone: readonly object[];
  readonly passed: boolean;
  readonly buildSuccess: boolean;
  readonly runVerdict: string | null;
  readonly failureReason?: string | null;
  readonly wallS: number;
  readonly simsFlags?: readonly string[];
  readonly buildId?: string | null;
  readonly checkout?: string | null;
  readonly startedAt?: Date | null;
  readonly finishedAt?: Date | null;
  /** The narrowing verdict the probes reached, on every probe of the set. */
  readonly verdict?: string | null;
}

export async function recordProbes(store: Store, probes: readonly ProbeRecord[], when: When = 'now'): Promise<void> {
  await persist(store, when, async (tx) => {
    for (const probe of probes) {
      await tx.insert('probes', {
        run_id: probe.runId,
        iteration: probe.iteration,
        probe: probe.probe,
        task_id: probe.taskId,
        undone: probe.undone,
        passed: probe.passed,
        build_success: probe.buildSuccess,
        run_verdict: probe.runVerdict,
        failure_reason: probe.failureReason ?? null,
        wall_s: probe.wallS,
        sims_flags: probe.simsFlags ?? null,
        build_id: probe.buildId ?? null,
        checkout: probe.checkout ?? null,
        started_at: probe.startedAt ?? null,
        finished_at: probe.finishedAt ?? null,
        verdict: probe.verdict ?? null,
      });
    }
  });
}

export interface FastPathRecord {
  readonly runId: string;
  readonly iteration: number;
  readonly keptTask: string;
  readonly replaced: readonly string[];
  readonly simsFlags?: readonly string[];
}

export async function recordFastPath(store: Store, record: FastPathRecord, when: When = 'now'): Promise<void> {
  await persist(store, when, (tx) =>
    tx.insert('fast_paths', {
      run_id: record.runId,
      iteration: record.iteration,
      kept_task: record.keptTask,
      replaced: record.replaced,
      sims_flags: record.simsFlags ?? null,
    }),
  );
}

export interface ResimulationRecord {
  readonly runId: string;
  readonly taskId: string;
  readonly program: string;
  readonly verdict: string | null;
  readonly passed: boolean;
  readonly wallS: number;
}

export async function recordResimulation(store: Store, r: ResimulationRecord): Promise<void> {
  await store.write((tx) =>
    tx.insert('resimulations', {
      run_id: r.runId,
      task_id: r.taskId,
      program: r.program,
      verdict: r.verdict,
      passed: r.passed,
      wall_s: r.wallS,
    }),
  );
}

export interface EvaluationRecord {
  readonly runId: string;
  readonly idx: number;
  readonly round: number;
  readonly design: object;
  readonly passed: boolean;
  readonly feasible: boolean;
  readonly simTime: number | null;
  readonly areaUm2: number | null;
  readonly readEnergyNj?: number | null;
  readonly areaSource?: string | null;
  readonly wallS: number;
  readonly simulated: boolean;
  readonly rejected: string;
}

export async function recordEvaluation(store: Store, e: EvaluationRecord, when: When = 'now'): Promise<void> {
  await persist(store, when, (tx) =>
    tx.insert('evaluations', {
      run_id: e.runId,
      idx: e.idx,
      round: e.round,
      design: e.design,
      passed: e.passed,
      feasible: e.feasible,
      sim_time: e.simTime,
      area_um2: e.areaUm2,
      read_energy_nj: e.readEnergyNj ?? null,
      area_source: e.areaSource ?? null,
      wall_s: e.wallS,
      simulated: e.simulated,
      rejected: e.rejected,
    }),
  );
}
