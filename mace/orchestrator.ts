/**
 * runMaceLoop: the MACE loop. It records the run, checks the gate programs' checksums and the core,
 * then repeats plan → plan check → fast path → parallel execution → verification → failure analysis
 * until a design passes or a budget runs out, recording every step in the store as it happens.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { Deadline } from './budget.ts';
import type { Checkout } from './checkouts.ts';
import { recordingCheckout } from './checkouts.ts';
import { configForTask, designKey } from './design.ts';
import { analyseFailure, failureTools, type FailureAnalysis, type RunMemory } from './failure-analysis.ts';
import { collapseSingleDesign } from './fast-path.ts';
import { integrateParallel, type ExecutionContext, type TaskResult } from './integrator.ts';
import { LLMCallFailed } from './llm/types.ts';
import { requiredDefines } from './objective.ts';
import { defineIndex, modulePathProblem } from './openpiton/source-index.ts';
import { skeletonWrapper } from './generic-core.ts';
import { recordRunStart, requirementProblem, type RunLabels } from './run-start.ts';
import { planIteration } from './planning.ts';
import { postMortem } from './post-mortem.ts';
import { checkoutProvenance } from './provenance.ts';
import { taskRecord } from './records.ts';
import { NO_EDITS, type EditSet } from './rtl-edits.ts';
import type { RunLlm } from './llm/recorder.ts';
import { LoopOptionsSchema, type LoopOptions, type MaceSpec, type RunStatus, type Task } from './spec.ts';
import { runSummary, type RunSummary } from './store/readers.ts';
import type { Store } from './store/store.ts';
import {
  addRunMeta,
  finishRun,
  markAllRecovered,
  recordFastPath,
  recordIteration,
  recordPlanCheck,
  recordPostMortem,
} from './store/writers.ts';

export type { RunLabels } from './run-start.ts';

export interface IterationOutcome {
  readonly iteration: number;
  readonly tasks: readonly Task[];
  readonly results: readonly TaskResult[];
  readonly failure: FailureAnalysis | undefined;
}

/** Progress callbacks for displays; none of them changes what the loop does. */
export interface LoopEvents {
  onStart?(runId: string): void;
  onIterationStart?(iteration: number): void;
  onPlan?(iteration: number, tasks: readonly Task[]): void;
  onTask?(iteration: number, result: TaskResult): void;
  onIteration?(outcome: IterationOutcome): void;
  onFinish?(status: RunStatus): void;
}

export interface LoopInput {
  readonly spec: MaceSpec;
  readonly checkouts: readonly Checkout[];
  readonly store: Store;
  /** The run's LLM recorder, made once the run id is known. */
  readonly llm: (runId: string) => RunLlm;
  readonly options?: Partial<LoopOptions>;
  /** The project's gate programs (with CHECKSUMS), passed to sims as an extra diag directory. */
  readonly workloadsDir: string;
  readonly labels?: RunLabels;
  /** Replaces each iteration's planned tasks after the plan check (seeded faults break the first plan). */
  readonly planHook?: (iteration: number, tasks: Task[]) => Task[];
  readonly runId?: string;
  readonly signal?: AbortSignal;
  readonly events?: LoopEvents;
  /** Record each step's result for deterministic replay (default true). */
  readonly recordSteps?: boolean;
}

export interface LoopOutcome {
  readonly runId: string;
  readonly status: Exclude<RunStatus, 'running'>;
  readonly summary: RunSummary;
  readonly iterations: readonly IterationOutcome[];
  /** Why the run ended as error, planning_failed, checksum_mismatch or unsupported_core. */
  readonly reason?: string;
}

class RunEnded extends Error {
  constructor(
    readonly status: Exclude<RunStatus, 'running' | 'passed'>,
    message: string,
  ) {
    super(message);
  }
}

export function newRunId(): string {
  return randomBytes(6).toString('hex');
}

export async function runMaceLoop(input: LoopInput): Promise<LoopOutcome> {
  const { spec, store } = input;
  const options = LoopOptionsSchema.parse(input.options ?? {});
  const runId = input.runId ?? newRunId();
  const labels = input.labels ?? {};
  const llm = input.llm(runId);

  await recordRunStart(store, { runId, spec, labels, options, backend: llm.backend.name, model: llm.backend.model });
  input.events?.onStart?.(runId);

  const iterations: IterationOutcome[] = [];
  let status: Exclude<RunStatus, 'running'>;
  let reason: string | undefined;
  try {
    status = await loop({ ...input, options, runId, llm, iterations });
  } catch (error) {
    if (error instanceof RunEnded) {
      status = error.status;
      reason = error.message;
    } else {
      status = 'error';
      reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    }
  }
  if (input.signal?.aborted && status !== 'passed') {
    // A cancel can end the last iteration in killed builds, which would read as an ordinary
    // failure; a cancelled run is an error, so a resumed sweep runs it again.
    status = 'error';
    reason = 'cancelled';
  }
  if ((status === 'failed' || status === 'budget_exceeded') && iterations.length && options.post_mortem) {
    await runPostMortem(input, runId, llm, status, iterations);
  }
  await finishRun(store, runId, status, reason ? { error: reason } : {});
  input.events?.onFinish?.(status);
  return { runId, status, summary: (await runSummary(store, runId))!, iterations, reason };
}

/** The edits of the last task whose build succeeded carry into the next iteration; failed builds' edits do not. */
function carriedEdits(results: readonly TaskResult[], current: EditSet): EditSet {
  const last = [...results].reverse().find((r) => r.build.success && r.edits.size);
  return last ? last.edits : current;
}

/** The post-mortem never changes the run's status: a failed call or a reply without ASSESSMENT is dropped. */
async function runPostMortem(
  input: LoopInput,
  runId: string,
  llm: RunLlm,
  status: string,
  iterations: readonly IterationOutcome[],
): Promise<void> {
  try {
    // The post-mortem inspects the last failure triage looked at, with the same tools.
    const failed = [...iterations]
      .reverse()
      .flatMap((it) => it.results.filter((r) => r.task.id === it.failure?.taskId))[0];
    const tools = failed ? failureTools({ llm, failed }) : undefined;
    const pm = await postMortem(input.spec, status, iterations, llm, { tools, signal: input.signal });
    if (pm) await recordPostMortem(input.store, { runId, ...pm });
  } catch (error) {
    if (!(error instanceof LLMCallFailed)) throw error;
  }
}

interface LoopState extends Omit<LoopInput, 'llm' | 'options'> {
  readonly options: LoopOptions;
  readonly runId: string;
  readonly llm: RunLlm;
  readonly iterations: IterationOutcome[];
}

/** The loop, then the last iteration's commit, whichever way the loop ended. */
async function loop(state: LoopState): Promise<Exclude<RunStatus, 'running'>> {
  const commits = { last: Promise.resolve() };
  try {
    return await iterate(state, commits);
  } finally {
    await commits.last;
  }
}

async function iterate(state: LoopState, commits: { last: Promise<void> }): Promise<Exclude<RunStatus, 'running'>> {
  const { spec, store, options, runId, llm } = state;
  const startedAt = Date.now();
  const deadline = Deadline.after(spec.budget.max_wall_s);

  const problem = await requirementProblem(spec, state.workloadsDir, state.checkouts);
  if (problem) throw new RunEnded(problem.status, problem.reason);

  const checkouts =
    state.recordSteps === false ? state.checkouts : state.checkouts.map((c) => recordingCheckout(c, store, runId));
  await addRunMeta(store, runId, { checkouts: await checkoutProvenance(state.checkouts) }, 'later');

  const firstRoot = state.checkouts[0]!.root;
  const required = requiredDefines(spec.objective);
  const memory: RunMemory = { feedback: [], failedDesigns: new Set(), badChangeSets: [] };
  let baseEdits: EditSet = NO_EDITS;

  for (let iteration = 0; iteration < spec.budget.max_iterations; iteration++) {
    if (state.signal?.aborted) throw new RunEnded('error', 'cancelled');
    if (Date.now() - startedAt >= spec.budget.max_wall_s * 1000) {
      throw new RunEnded(
        'budget_exceeded',
        `the wall-clock budget of ${spec.budget.max_wall_s} s ran out before iteration ${iteration}`,
      );
    }
    if (llm.totals().usd >= spec.budget.max_usd) {
      throw new RunEnded(
        'budget_exceeded',
        `the LLM budget of $${spec.budget.max_usd} was spent before iteration ${iteration}`,
      );
    }

    const usdBefore = llm.totals().usd;
    const iterationStart = new Date();
    state.events?.onIterationStart?.(iteration);
    const feedback = memory.feedback.join('\n\n');
    const planned = await planIteration({
      spec,
      llm,
      options,
      iteration,
      feedback,
      signal: state.signal,
      check: options.plan_check
        ? {
            defineIndex: existsSync(firstRoot) ? defineIndex(firstRoot) : new Set(),
            requiredDefines: required,
            modulePathProblem: (path) => (existsSync(firstRoot) ? modulePathProblem(firstRoot, path) : undefined),
            failedDesigns: memory.failedDesigns,
            badChangeSets: memory.badChangeSets,
            buildsOnEdits: (task) => task.kind === 'rtl' || baseEdits.size > 0,
            skeletonWrapper: existsSync(firstRoot) && skeletonWrapper(spec, firstRoot, baseEdits),
          }
        : undefined,
      onLook: (look) =>
        recordPlanCheck(
          store,
          {
            runId,
            iteration,
            attempt: look.attempt,
            action: look.action,
            problems: look.problems,
            stripped: look.stripped,
            added: look.added,
            plan: look.plan ?? undefined,
          },
          'later',
        ),
    });
    if (!planned.ok) throw new RunEnded('planning_failed', planned.error.message);

    let tasks = state.planHook ? state.planHook(iteration, planned.tasks) : planned.tasks;
    if (options.fast_path) {
      const collapsed = collapseSingleDesign(spec, tasks);
      if (collapsed) {
        await recordFastPath(
          store,
          {
            runId,
            iteration,
            keptTask: collapsed.kept.id,
            replaced: collapsed.replaced,
            simsFlags: [collapsed.designKey],
          },
          'later',
        );
        tasks = [collapsed.kept];
      }
    }
    state.events?.onPlan?.(iteration, tasks);

    const ctx: ExecutionContext = {
      spec,
      options,
      taskPrompts: options.task_prompts && !options.fast_path,
      runId,
      iteration,
      llm,
      deadline,
      workloadsDir: state.workloadsDir,
      signal: state.signal,
      baseEdits,
      feedback,
      onTask: (result) => state.events?.onTask?.(iteration, result),
    };
    const results = await integrateParallel(tasks, checkouts, ctx);
    // The iteration's row commits with everything recorded since it began (LLM calls, plan checks,
    // the fast path, step results, and the failure analysis below, whose narrowing probes are real
    // builds and count in its time): one commit per iteration. It commits while the next iteration
    // plans and builds (a commit is tens of milliseconds, a build seconds to minutes); each commit
    // first waits for the one before, which surfaces a failed commit one iteration late. A crash
    // loses at most the iteration committing and the one in flight.
    const record = async (usd: number) => {
      const finishedAt = new Date();
      await commits.last;
      commits.last = recordIteration(store, {
        runId,
        iteration,
        tasks: results.map(taskRecord),
        wallS: (finishedAt.getTime() - iterationStart.getTime()) / 1000,
        usd,
        startedAt: iterationStart,
        finishedAt,
        plan: tasks,
        feedback,
      });
      commits.last.catch(() => undefined);
    };

    if (!results.length) {
      await record(llm.totals().usd - usdBefore);
      state.iterations.push({ iteration, tasks, results, failure: undefined });
      throw new RunEnded('failed', `iteration ${iteration} returned no task results`);
    }
    const passed = results.every((r) => r.passed) || (options.gate_pass_ends_run && results.some((r) => r.gatePassed));
    if (passed) {
      await markAllRecovered(store, runId, 'later');
      await record(llm.totals().usd - usdBefore);
      state.iterations.push({ iteration, tasks, results, failure: undefined });
      state.events?.onIteration?.(state.iterations.at(-1)!);
      return 'passed';
    }

    for (const result of results) {
      if (!result.passed && (result.task.kind === 'config' || result.task.kind === 'workload')) {
        memory.failedDesigns.add(designKey(configForTask(spec, result.task)));
      }
    }
    const failed = results.find((r) => !r.passed)!;
    const failure = await analyseFailure({
      checkouts,
      deadline,
      ctx,
      spec,
      options,
      llm,
      store,
      runId,
      iteration,
      failed,
      memory,
      signal: state.signal,
      rtlDiff: failed.rtlDiff || undefined,
    });
    await record(llm.totals().usd - usdBefore);
    baseEdits = options.carry_edits ? carriedEdits(results, baseEdits) : NO_EDITS;
    if (baseEdits.size)
      memory.feedback.push(
        `The next iteration starts from RTL edits already made to: ${[...baseEdits.keys()].join(', ')}. Change them with an rtl task rather than writing them again.`,
      );
    state.iterations.push({ iteration, tasks, results, failure });
    state.events?.onIteration?.(state.iterations.at(-1)!);
  }
  throw new RunEnded('budget_exceeded', `all ${spec.budget.max_iterations} iteration(s) ended without a pass`);
}
