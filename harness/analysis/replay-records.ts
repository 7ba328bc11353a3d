/**
 * What plan replay reads from a results database: per run, its spec and options, the planner's
 * replies, the plan checks and fast paths it recorded, and what each iteration built. Rows are parsed
 * with the store's own row schemas where they leave the database.
 */
import { z } from 'zod';
import type { Change } from '../../mace/design.ts';
import {
  CachesSchema,
  ConfigRtlSchema,
  LoopOptionsSchema,
  MaceSpecSchema,
  NetworkSchema,
  TaskSchema,
  type LoopOptions,
  type MaceSpec,
  type Task,
} from '../../mace/spec.ts';
import {
  FastPathRowSchema,
  IterationRowSchema,
  LlmCallRowSchema,
  PlanCheckRowSchema,
  ProbeRowSchema,
  RunRowSchema,
  TaskRowSchema,
  type PlanCheckRow,
  type ProbeRow,
  type TaskRow,
} from '../../mace/store/readers.ts';
import { Store } from '../../mace/store/store.ts';

/** The planner's calls: the first of an iteration, and each retry after a rejection or a reply with no plan. */
export const PLANNER_PHASES = ['plan', 'plan_retry'] as const;

const RunSchema = RunRowSchema.pick({ run_id: true, task: true, method: true, status: true, fault: true }).extend({
  spec: z.string().nullable(),
  options: z.string().nullable(),
});
const CallSchema = LlmCallRowSchema.pick({
  run_id: true,
  seq: true,
  iteration: true,
  phase: true,
  task_id: true,
  usd: true,
  reply: true,
});
export type CallRow = z.infer<typeof CallSchema>;
const IterationSchema = IterationRowSchema.pick({ run_id: true, iteration: true, plan: true });
const FailureSchema = z.object({ run_id: z.string(), iteration: z.number(), task_id: z.string() });
export type FastPathRow = z.infer<typeof FastPathRowSchema>;

/** A change narrowing undid, as recorded in probes.undone (the loop's Change, serialised). */
const Geometry = z.tuple([z.number(), z.number()]);
const ChangeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('added_define'), define: z.string() }),
  z.object({ kind: z.literal('missing_define'), define: z.string() }),
  z.object({
    kind: z.literal('cache'),
    cache: z.enum(['l1i', 'l1d', 'l15', 'l2']),
    from: Geometry,
    to: Geometry,
  }),
  z.object({
    kind: z.literal('network'),
    network: z.enum(['2dmesh_config', 'xbar_config']),
    from: z.enum(['2dmesh_config', 'xbar_config']),
  }),
]);

/** The part of a task that decides what it builds. */
export type TaskDesign = Pick<Task, 'caches' | 'config_rtl' | 'network'>;

const DesignSchema = z.object({
  caches: CachesSchema.nullable(),
  config_rtl: ConfigRtlSchema.nullable(),
  network: NetworkSchema.nullable(),
});

/** A recorded build (task row) with the design it built; null where the row's configuration does not parse. */
export type BuiltTask = TaskRow & { readonly design: TaskDesign | null };

/** One recorded iteration: its planner calls and plan checks, and the builds it ran (none when planning failed). */
export interface RecordedIteration {
  readonly iteration: number;
  /** Planner calls in call order; a failed call has no reply. */
  readonly replies: readonly CallRow[];
  /** Every other call of the iteration (task, rtl, triage), for the dollars a build caused. */
  readonly calls: readonly CallRow[];
  /** plan_checks rows by attempt. */
  readonly checks: ReadonlyMap<number, PlanCheckRow>;
  /** Whether an iterations row exists: the plan ran. */
  readonly ran: boolean;
  /** iterations.plan: the plan as it ran, after the check, any plan hook and the fast path; null if unrecorded or unreadable. */
  readonly plan: readonly Task[] | null;
  readonly tasks: readonly BuiltTask[];
  readonly probes: readonly ProbeRow[];
  /** The task failure analysis looked at, if the iteration failed. */
  readonly failedTask: string | null;
  readonly fastPath: FastPathRow | null;
}

export interface RecordedRun {
  readonly run_id: string;
  readonly task: string | null;
  readonly method: string | null;
  readonly status: string;
  readonly fault: string | null;
  /** The run's spec, or why it cannot be read. */
  readonly spec: MaceSpec | { readonly error: string };
  readonly options: LoopOptions;
  /** False when the run recorded no loop options (the defaults stand in). */
  readonly optionsRecorded: boolean;
  readonly iterations: readonly RecordedIteration[];
}

/** Probe undone lists as the loop's Change values. */
export function probeChanges(probe: ProbeRow): Change[] {
  return z.array(ChangeSchema).parse(probe.undone ?? []);
}

/**
 * Every run of a results database with what plan replay needs, in start order.
 * @example const runs = await readRecordedRuns('runs/ablations.duckdb');
 */
export async function readRecordedRuns(path: string): Promise<RecordedRun[]> {
  const store = await Store.openForRead(path);
  const tables = await store.read(async (q) => {
    const all = <S extends z.ZodType>(sql: string, schema: S) =>
      q.all(sql).then((rows) => rows.map((row) => schema.parse(row) as z.output<S>));
    const phases = PLANNER_PHASES.map((p) => `'${p}'`).join(', ');
    return {
      runs: await all(
        `SELECT run_id, task, method, status, fault, CAST(spec AS VARCHAR) AS spec, CAST(options AS VARCHAR) AS options
         FROM runs ORDER BY started_at, run_id`,
        RunSchema,
      ),
      calls: await all(
        `SELECT run_id, seq, iteration, phase, task_id, usd,
           CASE WHEN phase IN (${phases}) THEN reply END AS reply
         FROM llm_calls WHERE iteration IS NOT NULL ORDER BY run_id, seq`,
        CallSchema,
      ),
      checks: await all('SELECT * FROM plan_checks', PlanCheckRowSchema),
      iterations: await all('SELECT run_id, iteration, CAST(plan AS VARCHAR) AS plan FROM iterations', IterationSchema),
      tasks: await all('SELECT * FROM tasks ORDER BY run_id, iteration, started_at NULLS LAST, task_id', TaskRowSchema),
      probes: await all('SELECT * FROM probes ORDER BY run_id, iteration, probe', ProbeRowSchema),
      failures: await all('SELECT run_id, iteration, task_id FROM failures', FailureSchema),
      fastPaths: await all('SELECT * FROM fast_paths', FastPathRowSchema),
    };
  });
  const byRun = <T extends { run_id: string }>(rows: readonly T[]) => {
    const map = new Map<string, T[]>();
    for (const row of rows) {
      const list = map.get(row.run_id);
      if (list) list.push(row);
      else map.set(row.run_id, [row]);
    }
    return (runId: string, iteration: number) =>
      (map.get(runId) ?? []).filter((r) => (r as { iteration?: number | null }).iteration === iteration);
  };
  const calls = byRun(tables.calls);
  const checks = byRun(tables.checks);
  const iterations = byRun(tables.iterations);
  const tasks = byRun(tables.tasks);
  const probes = byRun(tables.probes);
  const failures = byRun(tables.failures);
  const fastPaths = byRun(tables.fastPaths);
  const numbers = new Map<string, Set<number>>();
  for (const row of [...tables.iterations, ...tables.calls]) {
    if (row.iteration === null) continue;
    const set = numbers.get(row.run_id) ?? new Set<number>();
    set.add(row.iteration);
    numbers.set(row.run_id, set);
  }

  return tables.runs.map((run) => {
    const options = run.options === null ? null : LoopOptionsSchema.safeParse(JSON.parse(run.options));
    return {
      run_id: run.run_id,
      task: run.task,
      method: run.method,
      status: run.status,
      fault: run.fault,
      spec: readSpec(run.spec),
      options: options?.success ? options.data : LoopOptionsSchema.parse({}),
      optionsRecorded: Boolean(options?.success),
      iterations: [...(numbers.get(run.run_id) ?? [])]
        .sort((a, b) => a - b)
        .map((i): RecordedIteration => {
          const own = calls(run.run_id, i);
          const row = iterations(run.run_id, i)[0];
          return {
            iteration: i,
            replies: own.filter((c) => (PLANNER_PHASES as readonly string[]).includes(c.phase)),
            calls: own.filter((c) => !(PLANNER_PHASES as readonly string[]).includes(c.phase)),
            checks: new Map(checks(run.run_id, i).map((c) => [c.attempt, c])),
            ran: row !== undefined,
            plan: row ? readPlan(row.plan) : null,
            tasks: tasks(run.run_id, i).map((row) => ({ ...row, design: designOf(row) })),
            probes: probes(run.run_id, i),
            failedTask: failures(run.run_id, i)[0]?.task_id ?? null,
            fastPath: fastPaths(run.run_id, i)[0] ?? null,
          };
        }),
    };
  });
}

function designOf(row: TaskRow): TaskDesign | null {
  const parsed = DesignSchema.safeParse(row);
  return parsed.success ? (parsed.data as TaskDesign) : null;
}

function readSpec(text: string | null): RecordedRun['spec'] {
  if (text === null) return { error: 'the run recorded no spec' };
  const parsed = MaceSpecSchema.safeParse(JSON.parse(text));
  return parsed.success
    ? parsed.data
    : {
        error: `its spec does not parse: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      };
}

function readPlan(plan: unknown): Task[] | null {
  const parsed = z.array(TaskSchema).safeParse(plan);
  return parsed.success ? parsed.data : null;
}
