/**
 * A sweep: every job of a suite that the database does not already hold, run across the checkouts,
 * each job on checkouts of its own. planSweep works out the jobs, their keys and what the database
 * holds (the dry run stops there); runSweep runs the ones left, records the sweep so `mace suite
 * status` can follow it, and stops starting jobs on `stop` or cancels the running ones on `cancel`.
 *
 * @example
 *   const plan = await planSweep(loadSuite('suites/quickstart.yaml'), { db: 'runs/quickstart.duckdb' });
 *   const outcome = await runSweep(plan, { db: 'runs/quickstart.duckdb' });
 */
import { hostname } from 'node:os';
import { makeBackend } from '../../mace/llm/factory.ts';
import { RunLlm } from '../../mace/llm/recorder.ts';
import type { LlmBackend } from '../../mace/llm/types.ts';
import { newRunId } from '../../mace/orchestrator.ts';
import { WORKLOADS_DIR } from '../../mace/paths.ts';
import { Store } from '../../mace/store/store.ts';
import { InputError } from '../../mace/errors.ts';
import { plantSourceFault, sourceFaultProblems } from '../faults/source.ts';
import type { MethodOutcome } from '../methods/index.ts';
import { suiteDir, type Suite } from '../suite/load.ts';
import { claimCheckouts } from './claim.ts';
import { clearBuildCache, openFor, recoverCheckouts, resolveCheckouts, type CheckoutSetup } from './checkouts.ts';
import { noCounts, type SweepCounts } from './counts.ts';
import { poolIdentity } from './identity.ts';
import { expandJobs, jobKey, jobParts, type Job, type JobParts } from './jobs.ts';
import { indexRuns, isTodo, jobState, priorRuns, type JobState } from './resume.ts';
import { finishSweep, jobCost, startSweep } from './sweeps.ts';
import { runOnCheckouts } from './schedule.ts';

export interface PlannedJob extends Job {
  readonly key: string;
  readonly parts: JobParts;
  readonly state: JobState;
  /** Checkouts it takes. */
  readonly checkouts: number;
}

export interface SweepPlan {
  readonly sweepId: string;
  readonly suite: Suite;
  readonly setup: CheckoutSetup;
  /** Every job, in the shuffled order they run in. */
  readonly jobs: readonly PlannedJob[];
  readonly todo: readonly PlannedJob[];
  /** Give the checkouts back (runSweep does it when it ends; a dry run calls it itself). */
  release(): void;
}

export interface SweepSettings {
  readonly db: string;
  /** Keep each checkout's built models between jobs (default: every job starts from an empty build cache). */
  readonly keepCache?: boolean;
  /** --label k=v, on top of the study's labels. */
  readonly labels?: Readonly<Record<string, string>>;
  readonly workloadsDir?: string;
}

export interface JobResult {
  readonly runId: string | null;
  readonly status: MethodOutcome['status'];
  readonly reason?: string;
  readonly wallS: number;
  readonly llmUsd: number;
  readonly machineS: number;
}

export interface SweepEvents {
  start?(plan: SweepPlan, sweepId: string): void;
  jobStart?(job: PlannedJob, runId: string, roots: readonly string[]): void;
  jobIteration?(job: PlannedJob, iteration: number): void;
  jobFinish?(job: PlannedJob, result: JobResult, counts: SweepCounts): void;
}

export interface SweepControl {
  /** Start no more jobs; the running ones finish. */
  readonly stop?: AbortSignal;
  /** Cancel the running jobs through their AbortSignal (their runs end as `error`, run again on resume). */
  readonly cancel?: AbortSignal;
  readonly events?: SweepEvents;
}

export interface SweepOutcome {
  readonly sweepId: string;
  readonly results: readonly { readonly job: PlannedJob; readonly result: JobResult }[];
  /** Jobs the database already held. */
  readonly skipped: number;
  /** Jobs left unstarted because the sweep was stopped. */
  readonly unstarted: number;
  readonly counts: SweepCounts;
  readonly stopped: boolean;
}

/** Checkouts a job of this method takes. */
const checkoutsFor = (job: Job, setup: CheckoutSetup) => (job.method.method.checkouts === 'one' ? 1 : setup.perJob);

/**
 * Claim the checkouts (refused while another sweep holds them), undo what a killed sweep left in
 * them (a planted source fault, RTL edits), and work out every job and what the database holds of it.
 */
export async function planSweep(suite: Suite, settings: SweepSettings): Promise<SweepPlan> {
  const setup = await resolveCheckouts(suite.study.checkouts, suiteDir(suite));
  const sweepId = newRunId();
  const release = claimCheckouts(setup.roots, sweepId);
  try {
    recoverCheckouts(setup.roots);
    return { ...(await jobsOf(suite, setup, settings)), sweepId, suite, setup, release };
  } catch (error) {
    release();
    throw error;
  }
}

async function jobsOf(suite: Suite, setup: CheckoutSetup, settings: SweepSettings) {
  const pool = await poolIdentity(setup.roots);
  const index = indexRuns(await priorRuns(settings.db));
  const jobs = expandJobs({ ...suite.study, tasks: suite.tasks }).map((job): PlannedJob => {
    const parts = jobParts(job, suite.study.llm, pool);
    const key = jobKey(job, parts);
    const state = jobState({ key, parts, task: job.task.id, method: job.method.name, repeat: job.repeat }, index);
    return { ...job, key, parts, state, checkouts: checkoutsFor(job, setup) };
  });
  const todo = jobs.filter((j) => isTodo(j.state));
  if (!suite.study.llm) {
    const needy = [...new Set(todo.filter((j) => j.method.method.usesLlm).map((j) => j.method.name))];
    if (needy.length)
      throw new InputError(`methods ${needy.join(', ')} use an LLM: give --llm BACKEND or add llm: to the study`);
  }
  checkSourceFaults(suite, todo, setup.roots[0]!);
  return { jobs, todo };
}

/** A source fault that does not apply to the checkouts fails the sweep before any job starts. */
function checkSourceFaults(suite: Suite, todo: readonly PlannedJob[], root: string): void {
  const problems = [...new Set(todo.map((j) => j.task))]
    .filter((task) => task.sourceFault)
    .flatMap((task) =>
      sourceFaultProblems(root, task.sourceFault!).map((message) =>
        suite.describe({ path: ['tasks', task.index, 'source_fault'], message }),
      ),
    );
  if (problems.length) throw new InputError(`source faults that do not apply:\n  ${problems.join('\n  ')}`);
}

export async function runSweep(
  plan: SweepPlan,
  settings: SweepSettings,
  control: SweepControl = {},
): Promise<SweepOutcome> {
  const { suite, setup, todo, sweepId } = plan;
  try {
    const store = await Store.open(settings.db);
    const backend = todo.some((j) => j.method.method.usesLlm) ? await makeBackend(suite.study.llm!) : undefined;
    const labels = { ...suite.study.labels, ...(settings.labels ?? {}) };
    await startSweep(store, {
      sweepId,
      suite,
      jobs: plan.jobs.length,
      todo: todo.length,
      checkouts: setup.roots.length,
      labels,
    });

    const started = Date.now();
    const counts = { ...noCounts(todo.length) };
    const snapshot = (): SweepCounts => ({ ...counts, elapsedS: (Date.now() - started) / 1000 });
    const results: SweepOutcome['results'][number][] = [];
    control.events?.start?.(plan, sweepId);

    const job = async (planned: PlannedJob, roots: readonly string[]) => {
      counts.running++;
      const result = await runJob(planned, roots, {
        store,
        setup,
        suite,
        settings,
        labels,
        backend,
        sweepId,
        signal: control.cancel ?? new AbortController().signal,
        events: control.events,
      });
      counts.running--;
      counts.done++;
      if (result.status === 'passed') counts.passed++;
      if (result.status === 'error') counts.errors++;
      counts.llmUsd += result.llmUsd;
      counts.machineS += result.machineS;
      results.push({ job: planned, result });
      control.events?.jobFinish?.(planned, result, snapshot());
    };
    await runOnCheckouts(
      todo.map((j) => ({ job: j, checkouts: j.checkouts })),
      setup.roots,
      job,
      { stopped: () => Boolean(control.stop?.aborted || control.cancel?.aborted) },
    );
    const stopped = results.length < todo.length;
    await finishSweep(store, sweepId, stopped ? (control.cancel?.aborted ? 'cancelled' : 'stopped') : 'finished');
    return {
      sweepId,
      results,
      skipped: plan.jobs.length - todo.length,
      unstarted: todo.length - results.length,
      counts: snapshot(),
      stopped,
    };
  } finally {
    plan.release();
  }
}

interface JobEnvironment {
  readonly store: Store;
  readonly setup: CheckoutSetup;
  readonly suite: Suite;
  readonly settings: SweepSettings;
  readonly labels: Readonly<Record<string, string>>;
  readonly backend: LlmBackend | undefined;
  readonly sweepId: string;
  readonly signal: AbortSignal;
  readonly events: SweepEvents | undefined;
}

/**
 * One job on its leased checkouts: empty their build caches, plant the task's source fault in each
 * (restored afterwards, or by the next sweep after a crash), run the method, and read back its cost.
 * Never throws: a job that breaks outside its method's own recording comes back as an error.
 */
async function runJob(job: PlannedJob, roots: readonly string[], env: JobEnvironment): Promise<JobResult> {
  const runId = newRunId();
  const started = performance.now();
  const { method } = job.method;
  env.events?.jobStart?.(job, runId, roots);
  let outcome: Omit<MethodOutcome, 'runId'> & { runId: string | null };
  const checkouts = openFor(env.setup, roots, job.task.spec.core, job.seed);
  try {
    if (!env.settings.keepCache) for (const root of roots) clearBuildCache(root);
    const restoreFault = job.task.sourceFault ? plantSourceFault(roots, job.task.sourceFault) : () => undefined;
    try {
      outcome = await method.run({
        runId,
        task: job.task,
        checkouts,
        store: env.store,
        llm:
          env.backend && method.usesLlm
            ? (id) => new RunLlm(env.backend!, { runId: id, seed: job.seed, store: env.store })
            : undefined,
        options: job.method.options,
        labels: {
          method: job.method.name,
          task: job.task.id,
          repeat: job.repeat,
          seed: job.seed,
          jobKey: job.key,
          suiteHash: env.suite.hash,
          fault: method.fault?.name ?? null,
          meta: jobMeta(job, roots, env),
        },
        workloadsDir: env.settings.workloadsDir ?? WORKLOADS_DIR,
        signal: env.signal,
        events: { onPlan: (iteration) => env.events?.jobIteration?.(job, iteration) },
      });
    } finally {
      restoreFault();
    }
  } catch (error) {
    outcome = { runId: null, status: 'error', reason: error instanceof Error ? error.message : String(error) };
  } finally {
    await Promise.all(checkouts.map((c) => c.close?.()));
  }
  const cost = outcome.runId ? await jobCost(env.store, outcome.runId) : { llmUsd: 0, machineS: 0 };
  return { ...outcome, wallS: (performance.now() - started) / 1000, ...cost };
}

/** What runs.meta records about a job beyond what the loop records itself (project and checkout provenance). */
function jobMeta(job: PlannedJob, roots: readonly string[], env: JobEnvironment): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    suite: env.suite.name,
    suite_file: env.suite.file,
    labels: env.labels,
    job: job.parts,
    runner: { pid: process.pid, host: hostname(), sweep_id: env.sweepId },
    piton_roots: roots,
    keep_cache: Boolean(env.settings.keepCache),
    login_shell: env.setup.loginShell,
  };
  if (env.setup.env.MAKEFLAGS !== undefined) meta.makeflags = env.setup.env.MAKEFLAGS;
  if (job.method.base) meta.method_definition = { base: job.method.base, options: job.method.overrides };
  if (job.task.sourceFault) meta.source_fault = job.task.sourceFault.map((edit) => edit.path);
  if (job.method.method.usesLlm) meta.llm = env.suite.study.llm;
  return meta;
}
