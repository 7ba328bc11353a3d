/**
 * Readers: a run's summary, its trace (iteration → tasks → failure, with plan checks, probes, fast
 * paths and the post-mortem), the list of runs and the failure taxonomy. Rows are parsed with zod
 * where they leave the database, so callers get typed values (JSON decoded, timestamps as Date).
 */
import { z } from 'zod';
import type { Queries, Store } from './store.ts';

const json = <T extends z.ZodType>(schema: T) =>
  z
    .union([z.string(), z.null()])
    .transform((text) => (text === null ? null : (JSON.parse(text) as unknown)))
    .pipe(schema.nullable());

const date = z.date().nullable();
const num = z.number().nullable();

export const RunRowSchema = z.object({
  run_id: z.string(),
  objective: z.string(),
  core: z.string(),
  x_tiles: z.number(),
  y_tiles: z.number(),
  started_at: z.date(),
  finished_at: date,
  status: z.string(),
  method: z.string().nullable(),
  task: z.string().nullable(),
  repeat: num,
  seed: num,
  meta: json(z.record(z.string(), z.unknown())),
  workloads: z.array(z.string()).nullable(),
  spec: json(z.unknown()),
  options: json(z.record(z.string(), z.unknown())),
  backend: z.string().nullable(),
  model: z.string().nullable(),
  suite_hash: z.string().nullable(),
  job_key: z.string().nullable(),
  fault: z.string().nullable(),
  error: z.string().nullable(),
});
export type RunRow = z.infer<typeof RunRowSchema>;

/** The five numbers of a run the original reported, under their original names. */
export const RunSummarySchema = z.object({
  successful_tasks: z.number(),
  iterations: z.number(),
  failures_recovered: z.number(),
  execution_time_s: z.number(),
  compute_usd: z.number(),
});
export type RunSummary = z.infer<typeof RunSummarySchema>;

const SUMMARY_SQL = `
  SELECT r.run_id,
    (SELECT count(*) FROM tasks t WHERE t.run_id = r.run_id AND t.passed)::INTEGER AS successful_tasks,
    (SELECT count(*) FROM iterations i WHERE i.run_id = r.run_id)::INTEGER AS iterations,
    (SELECT count(*) FROM failures f WHERE f.run_id = r.run_id AND f.recovered)::INTEGER AS failures_recovered,
    coalesce((SELECT sum(i.wall_s) FROM iterations i WHERE i.run_id = r.run_id), 0)::DOUBLE AS execution_time_s,
    coalesce((SELECT sum(c.usd) FROM llm_calls c WHERE c.run_id = r.run_id),
             (SELECT sum(i.usd) FROM iterations i WHERE i.run_id = r.run_id), 0)::DOUBLE AS compute_usd
  FROM runs r`;

export async function runSummary(store: Store, runId: string): Promise<RunSummary | undefined> {
  const row = await store.read((q) => q.one(`${SUMMARY_SQL} WHERE r.run_id = $1`, [runId]));
  return row ? RunSummarySchema.parse(row) : undefined;
}

export type RunListing = RunRow & RunSummary;

/** Every run, newest first, with its summary. */
export async function listRuns(store: Store, options: { readonly limit?: number } = {}): Promise<RunListing[]> {
  const rows = await store.read((q) =>
    q.all(
      `SELECT r.*, s.* EXCLUDE (run_id) FROM runs r JOIN (${SUMMARY_SQL}) s USING (run_id)
       ORDER BY r.started_at DESC, r.run_id DESC ${options.limit ? 'LIMIT $1' : ''}`,
      options.limit ? [options.limit] : [],
    ),
  );
  return rows.map((row) => ({ ...RunRowSchema.parse(row), ...RunSummarySchema.parse(row) }));
}

export async function getRun(store: Store, runId: string): Promise<RunRow | undefined> {
  const row = await store.read((q) => q.one('SELECT * FROM runs WHERE run_id = $1', [runId]));
  return row ? RunRowSchema.parse(row) : undefined;
}

const Geometry = z.tuple([z.number(), z.number()]);

export const TaskRowSchema = z.object({
  run_id: z.string(),
  iteration: z.number(),
  task_id: z.string(),
  kind: z.string(),
  spec: z.string(),
  deps: z.array(z.string()).nullable(),
  passed: z.boolean(),
  build_success: z.boolean(),
  run_verdict: z.string().nullable(),
  wall_s: z.number(),
  build_s: num,
  run_s: num,
  caches: json(z.record(z.string(), Geometry)),
  config_rtl: z.array(z.string()).nullable(),
  network: z.string().nullable(),
  module: z.string().nullable(),
  programs: json(z.array(z.tuple([z.string(), z.string().nullable(), z.number().nullable()]))),
  evidence: z.string().nullable(),
  sims_flags: z.array(z.string()).nullable(),
  build_id: z.string().nullable(),
  build_reused: z.boolean().nullable(),
  failure_reason: z.string().nullable(),
  build_errors: z.array(z.string()).nullable(),
  sim_time: num,
  checkout: z.string().nullable(),
  started_at: date,
  finished_at: date,
  rtl_diff: z.string().nullable(),
});
export type TaskRow = z.infer<typeof TaskRowSchema>;

export const FailureRowSchema = z.object({
  run_id: z.string(),
  iteration: z.number(),
  task_id: z.string(),
  diagnosis: z.string(),
  fix: z.string().nullable(),
  recovered: z.boolean(),
  stage: z.string().nullable(),
  narrowing: z.string().nullable(),
  feedback: z.string().nullable(),
});
export type FailureRow = z.infer<typeof FailureRowSchema>;

export const IterationRowSchema = z.object({
  run_id: z.string(),
  iteration: z.number(),
  num_tasks: z.number(),
  num_passed: z.number(),
  wall_s: z.number(),
  usd: z.number(),
  started_at: date,
  finished_at: date,
  plan: json(z.unknown()),
  feedback: z.string().nullable(),
});
export type IterationRow = z.infer<typeof IterationRowSchema>;

export const PlanCheckRowSchema = z.object({
  run_id: z.string(),
  iteration: z.number(),
  attempt: z.number(),
  action: z.string(),
  rules: z.array(z.string()).nullable(),
  problems: json(z.array(z.object({ rule: z.string(), task: z.string().nullable(), reason: z.string() }))),
  stripped: json(z.record(z.string(), z.array(z.string()))),
  added: json(z.record(z.string(), z.array(z.string()))),
  plan: json(z.unknown()),
});
export type PlanCheckRow = z.infer<typeof PlanCheckRowSchema>;

export const ProbeRowSchema = z.object({
  run_id: z.string(),
  iteration: z.number(),
  probe: z.number(),
  task_id: z.string(),
  undone: json(z.array(z.record(z.string(), z.unknown()))),
  passed: z.boolean(),
  build_success: z.boolean(),
  run_verdict: z.string().nullable(),
  failure_reason: z.string().nullable(),
  wall_s: z.number(),
  sims_flags: z.array(z.string()).nullable(),
  build_id: z.string().nullable(),
  checkout: z.string().nullable(),
  started_at: date,
  finished_at: date,
  verdict: z.string().nullable(),
});
export type ProbeRow = z.infer<typeof ProbeRowSchema>;

export const FastPathRowSchema = z.object({
  run_id: z.string(),
  iteration: z.number(),
  kept_task: z.string(),
  replaced: z.array(z.string()),
  sims_flags: z.array(z.string()).nullable(),
});

export const PostMortemRowSchema = z.object({
  run_id: z.string(),
  assessment: z.string(),
  explanation: z.string().nullable(),
  next_steps: z.string().nullable(),
});

export const LlmCallRowSchema = z.object({
  run_id: z.string(),
  seq: z.number(),
  iteration: num,
  phase: z.string(),
  task_id: z.string().nullable(),
  replay_tag: z.string().nullable(),
  backend: z.string().nullable(),
  model: z.string().nullable(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  thinking_tokens: z.number(),
  usd: z.number(),
  wall_s: z.number(),
  ok: z.boolean(),
  prompt: z.string().nullable(),
  reply: z.string().nullable(),
  error: z.string().nullable(),
  started_at: date,
  tool_calls: json(z.array(z.unknown())),
});
export type LlmCallRow = z.infer<typeof LlmCallRowSchema>;

export interface TraceTask extends TaskRow {
  readonly failure: FailureRow | undefined;
}

export interface TraceIteration extends IterationRow {
  readonly tasks: readonly TraceTask[];
  readonly planChecks: readonly PlanCheckRow[];
  readonly probes: readonly ProbeRow[];
  readonly fastPath: z.infer<typeof FastPathRowSchema> | undefined;
  readonly llmCalls: readonly LlmCallRow[];
}

export interface RunTrace {
  readonly run: RunRow;
  readonly summary: RunSummary;
  readonly iterations: readonly TraceIteration[];
  /** Calls outside any iteration, such as the post-mortem. */
  readonly runLlmCalls: readonly LlmCallRow[];
  readonly postMortem: z.infer<typeof PostMortemRowSchema> | undefined;
}

/** Everything recorded about one run, iteration by iteration. */
export async function runTrace(store: Store, runId: string): Promise<RunTrace | undefined> {
  return store.read(async (q) => {
    const runRow = await q.one('SELECT * FROM runs WHERE run_id = $1', [runId]);
    if (!runRow) return undefined;
    const byRun = <S extends z.ZodType>(sql: string, schema: S) =>
      q.all(sql, [runId]).then((rows) => rows.map((row) => schema.parse(row) as z.output<S>));
    const [summary, iterations, tasks, failures, checks, probes, fastPaths, calls, postMortem] = await Promise.all([
      q.one(`${SUMMARY_SQL} WHERE r.run_id = $1`, [runId]).then((row) => RunSummarySchema.parse(row)),
      byRun('SELECT * FROM iterations WHERE run_id = $1 ORDER BY iteration', IterationRowSchema),
      byRun('SELECT * FROM tasks WHERE run_id = $1 ORDER BY iteration, started_at NULLS LAST, task_id', TaskRowSchema),
      byRun('SELECT * FROM failures WHERE run_id = $1', FailureRowSchema),
      byRun('SELECT * FROM plan_checks WHERE run_id = $1 ORDER BY iteration, attempt', PlanCheckRowSchema),
      byRun('SELECT * FROM probes WHERE run_id = $1 ORDER BY iteration, probe', ProbeRowSchema),
      byRun('SELECT * FROM fast_paths WHERE run_id = $1', FastPathRowSchema),
      byRun('SELECT * FROM llm_calls WHERE run_id = $1 ORDER BY seq', LlmCallRowSchema),
      byRun('SELECT * FROM post_mortems WHERE run_id = $1', PostMortemRowSchema).then((rows) => rows[0]),
    ]);
    const failureOf = (task: TaskRow) =>
      failures.find((f) => f.iteration === task.iteration && f.task_id === task.task_id);
    return {
      run: RunRowSchema.parse(runRow),
      summary,
      iterations: iterations.map((it) => ({
        ...it,
        tasks: tasks.filter((t) => t.iteration === it.iteration).map((t) => ({ ...t, failure: failureOf(t) })),
        planChecks: checks.filter((c) => c.iteration === it.iteration),
        probes: probes.filter((p) => p.iteration === it.iteration),
        fastPath: fastPaths.find((f) => f.iteration === it.iteration),
        llmCalls: calls.filter((c) => c.iteration === it.iteration),
      })),
      runLlmCalls: calls.filter((c) => c.iteration === null),
      postMortem,
    };
  });
}

export interface TaxonomyRow {
  readonly diagnosis: string;
  readonly count: number;
  readonly recovered: number;
}

/** Failures counted by diagnosis (over one run, or the whole database), most frequent first. */
export async function failureTaxonomy(store: Store, runId?: string): Promise<TaxonomyRow[]> {
  return store.read((q) =>
    q.all<TaxonomyRow>(
      `SELECT diagnosis, count(*)::INTEGER AS count, count(*) FILTER (WHERE recovered)::INTEGER AS recovered
       FROM failures ${runId ? 'WHERE run_id = $1' : ''} GROUP BY diagnosis ORDER BY count DESC, diagnosis`,
      runId ? [runId] : [],
    ),
  );
}

export interface EvaluationRow {
  readonly idx: number;
  readonly round: number;
  readonly design: { readonly caches: Record<string, [number, number]>; readonly network: string };
  readonly simulated: boolean;
  readonly passed: boolean;
  readonly feasible: boolean;
  readonly sim_time: number | null;
  readonly area_um2: number | null;
  readonly area_source: string | null;
  readonly rejected: string;
}

/** A co-design run's proposals in the order they were made. */
export async function runEvaluations(store: Store, runId: string): Promise<EvaluationRow[]> {
  const rows = await store.read((q) =>
    q.all<Omit<EvaluationRow, 'design' | 'sim_time'> & { design: string; sim_time: bigint | null }>(
      `SELECT idx, round, design::VARCHAR AS design, simulated, passed, feasible, sim_time, area_um2, area_source, rejected
       FROM evaluations WHERE run_id = $1 ORDER BY idx`,
      [runId],
    ),
  );
  return rows.map((r) => ({
    ...r,
    design: JSON.parse(r.design) as EvaluationRow['design'],
    sim_time: r.sim_time === null ? null : Number(r.sim_time),
  }));
}

/** Exposed for tests and the analysis library: run any read-only query. */
export async function query<T = Record<string, unknown>>(
  store: Store,
  sql: string,
  params: readonly unknown[] = [],
): Promise<T[]> {
  return store.read((q: Queries) => q.all<T>(sql, params));
}
