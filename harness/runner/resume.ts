/**
 * Resume: which jobs a database already holds. A job is done when a run with its key finished
 * (passed, failed, planning_failed, budget_exceeded, checksum_mismatch, unsupported_core). It runs
 * again when its last run ended in `error`, or was left `running` by a process that is gone; it is
 * left alone while a live process on this host is running it. A job whose task, method, repeat
 * match an earlier run but whose key does not was edited since (or its LLM or checkouts changed):
 * it runs, and the runner says which part changed.
 */
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { z } from 'zod';
import { FINISHED_STATUSES, type RunStatus } from '../../mace/spec.ts';
import { Store } from '../../mace/store/store.ts';
import { processAlive } from './claim.ts';
import { changedParts, type JobParts } from './jobs.ts';

/** Who ran a job: recorded in runs.meta.runner, so a resumed sweep can tell a dead run from a live one. */
export interface RunnerIdentity {
  readonly pid: number;
  readonly host: string;
  readonly sweep_id: string;
}

const jsonText = <T extends z.ZodType>(schema: T) =>
  z
    .string()
    .nullable()
    .transform((text) => (text === null ? null : (JSON.parse(text) as unknown)))
    .pipe(schema.nullable());

const PriorRunSchema = z.object({
  run_id: z.string(),
  task: z.string(),
  method: z.string(),
  repeat: z.number(),
  job_key: z.string(),
  status: z.string(),
  error: z.string().nullable(),
  started_at: z.date(),
  parts: jsonText(z.record(z.string(), z.unknown())),
  runner: jsonText(z.object({ pid: z.number(), host: z.string() }).loose()),
});
export type PriorRun = z.infer<typeof PriorRunSchema>;

/** Every run a sweep recorded (runs with a job key), oldest first; none when the database does not exist yet. */
export async function priorRuns(db: string): Promise<PriorRun[]> {
  if (!existsSync(db)) return [];
  const store = await Store.openForRead(db);
  const rows = await store.read((q) =>
    q.all(
      `SELECT run_id, task, method, repeat, job_key, status, error, started_at,
              CAST(meta->'$.job' AS VARCHAR) AS parts, CAST(meta->'$.runner' AS VARCHAR) AS runner
       FROM runs WHERE job_key IS NOT NULL AND task IS NOT NULL AND repeat IS NOT NULL
       ORDER BY started_at, run_id`,
    ),
  );
  return rows.map((row) => PriorRunSchema.parse(row));
}

export type JobState =
  | { readonly kind: 'done'; readonly runId: string; readonly status: string }
  | { readonly kind: 'live'; readonly runId: string; readonly pid: number }
  | { readonly kind: 'new' }
  | { readonly kind: 'changed'; readonly changed: readonly string[]; readonly runId: string }
  | { readonly kind: 'unfinished'; readonly runId: string }
  | { readonly kind: 'error'; readonly runId: string; readonly error: string | null };

export const isTodo = (state: JobState): boolean => state.kind !== 'done' && state.kind !== 'live';

/** A run another live process on this host is running; from another host, or from this process, it is not. */
function alive(runner: PriorRun['runner']): boolean {
  return !!runner && runner.host === hostname() && runner.pid !== process.pid && processAlive(runner.pid, runner.host);
}

/** Index the prior runs by job key and by (task, method, repeat). */
export function indexRuns(runs: readonly PriorRun[]) {
  const byKey = new Map<string, PriorRun[]>();
  const bySlot = new Map<string, PriorRun[]>();
  for (const run of runs) {
    byKey.set(run.job_key, [...(byKey.get(run.job_key) ?? []), run]);
    const slot = `${run.task}\0${run.method}\0${run.repeat}`;
    bySlot.set(slot, [...(bySlot.get(slot) ?? []), run]);
  }
  return { byKey, bySlot };
}

export function jobState(
  job: {
    readonly key: string;
    readonly parts: JobParts;
    readonly task: string;
    readonly method: string;
    readonly repeat: number;
  },
  index: ReturnType<typeof indexRuns>,
): JobState {
  const runs = index.byKey.get(job.key) ?? [];
  const finished = runs.find((r) => FINISHED_STATUSES.has(r.status as RunStatus));
  if (finished) return { kind: 'done', runId: finished.run_id, status: finished.status };
  const last = runs.at(-1);
  if (last?.status === 'running')
    return alive(last.runner)
      ? { kind: 'live', runId: last.run_id, pid: last.runner!.pid }
      : { kind: 'unfinished', runId: last.run_id };
  if (last) return { kind: 'error', runId: last.run_id, error: last.error };
  const earlier = index.bySlot.get(`${job.task}\0${job.method}\0${job.repeat}`)?.at(-1);
  if (earlier) {
    const changed = changedParts((earlier.parts ?? {}) as Partial<JobParts>, job.parts);
    return { kind: 'changed', changed: changed.length ? changed : ['job key'], runId: earlier.run_id };
  }
  return { kind: 'new' };
}

/** One line on why a job will run (or not). */
export function describeState(state: JobState): string {
  switch (state.kind) {
    case 'done':
      return `done (${state.status}, run ${state.runId})`;
    case 'live':
      return `running now in process ${state.pid} (run ${state.runId})`;
    case 'new':
      return 'todo (new)';
    case 'changed':
      return `todo (changed since run ${state.runId}: ${state.changed.join(', ')})`;
    case 'unfinished':
      return `todo (run ${state.runId} was left running by a process that is gone)`;
    case 'error':
      return `todo (run ${state.runId} ended in error${state.error ? `: ${state.error.slice(0, 120)}` : ''})`;
  }
}
