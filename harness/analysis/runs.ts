/**
 * run_rows: one row per labelled run (a run with a suite task) with the numbers every table is
 * built from, merged over several databases.
 *
 * Rules, in the order they apply:
 * - The same run_id in several files is one run (ids are globally unique); the copy that finished,
 *   or else the one with more iterations, is kept.
 * - A run is replaced when a later-started run of the same job (task, method, repeat) exists in any
 *   of the files; the latest run is the job's result. Replaced runs are left out of the statistics
 *   and counted; `replaced_by` names the replacement.
 * - A run still `running` (no finish recorded, and not replaced) is unfinished: left out and counted.
 * - Time to pass: a passed run's wall time; a run that did not pass counts as taking its budget
 *   (spec.budget.max_wall_s, or its own wall time if longer), i.e. it is right-censored at the
 *   budget. Where no budget was recorded (imported databases), the longest time any run of that
 *   task took or was allowed stands in for it, so a failure never looks faster than that task's
 *   slowest pass.
 */
import { z } from 'zod';
import type { ColumnType } from '../../mace/store/schema.ts';
import type { Queries } from '../../mace/store/store.ts';
import { DIALECTS, type Dialect, type Source } from './source.ts';

/** Compute dollars per machine hour unless told otherwise: the original's e2-highmem-8 rate. */
export const DEFAULT_HOURLY_USD = 0.36;

/**
 * Which stage caught the first iteration's failure, in pipeline order. `plan_check`: a plan check of
 * iteration 0 rejected the plan or stripped or added a define; otherwise the stage recorded on
 * iteration 0's failures (the earliest in this order when tasks differ); `not_caught`: neither.
 * A failure recorded with no stage (databases from before stages existed) counts as narrowing when
 * that iteration ran probes, as raw_evidence when its diagnosis is `raw_evidence`, else as triage.
 */
export const CATCH_STAGES = [
  'plan_check',
  'narrowing',
  'triage',
  'raw_evidence',
  'short_circuit',
  'not_triaged',
  'other',
  'not_caught',
] as const;
export type CatchStage = (typeof CATCH_STAGES)[number];

/** Failure stages with their order; UNSTAGED and OTHER are codes for a null and an unknown stage. */
const STAGE_CODES = ['narrowing', 'triage', 'raw_evidence', 'short_circuit', 'not_triaged'] as const;
const UNSTAGED = STAGE_CODES.length;
const OTHER_STAGE = STAGE_CODES.length + 1;

function runRowsSql(dialect: Dialect): string {
  const d = DIALECTS[dialect];
  const stageCase = `CASE ${STAGE_CODES.map((s, i) => `WHEN stage = '${s}' THEN ${i}`).join(' ')}
      WHEN stage IS NULL AND diagnosis = 'raw_evidence' THEN ${STAGE_CODES.indexOf('raw_evidence')}
      WHEN stage IS NULL THEN ${UNSTAGED} ELSE ${OTHER_STAGE} END`;
  const changed = (column: string) => `coalesce(${d.jsonText(column)}, '{}') NOT IN ('{}', 'null')`;
  return `
  WITH
  it AS (SELECT run_id, CAST(count(*) AS INTEGER) AS iterations, CAST(sum(usd) AS DOUBLE) AS iteration_usd FROM iterations GROUP BY run_id),
  tk AS (SELECT run_id, CAST(count(*) AS INTEGER) AS builds,
      CAST(count(*) FILTER (WHERE CASE WHEN build_reused IS NOT NULL THEN NOT build_reused ELSE coalesce(build_s, 0) > 0 END) AS INTEGER)
        AS fresh_builds,
      CAST(sum(wall_s) AS DOUBLE) AS task_s, CAST(sum(coalesce(json_array_length(programs), 0)) AS DOUBLE) AS simulations,
      CAST(count(*) FILTER (WHERE passed) AS INTEGER) AS passed_tasks
    FROM tasks GROUP BY run_id),
  pr AS (SELECT run_id, CAST(count(*) AS INTEGER) AS probes, CAST(sum(wall_s) AS DOUBLE) AS probe_s, CAST(count(*) FILTER (WHERE iteration = 0) AS INTEGER) AS first_probes
    FROM probes GROUP BY run_id),
  fl AS (SELECT run_id, CAST(count(*) AS INTEGER) AS failures, CAST(count(*) FILTER (WHERE recovered) AS INTEGER) AS recovered_failures,
      CAST(min(${stageCase}) FILTER (WHERE iteration = 0) AS INTEGER) AS first_stage
    FROM failures GROUP BY run_id),
  pc AS (SELECT run_id, CAST(count(*) FILTER (WHERE action = 'rejected') AS INTEGER) AS plan_rejections,
      CAST(count(*) FILTER (WHERE iteration = 0 AND (action IN ('rejected', 'unusable') OR ${changed('stripped')} OR ${changed('added')})) AS INTEGER)
        AS first_plan_check
    FROM plan_checks GROUP BY run_id),
  fp AS (SELECT run_id, CAST(count(*) AS INTEGER) AS fast_paths FROM fast_paths GROUP BY run_id),
  lc AS (SELECT run_id, CAST(count(*) AS INTEGER) AS llm_calls, CAST(sum(input_tokens) AS DOUBLE) AS input_tokens, CAST(sum(output_tokens) AS DOUBLE) AS output_tokens,
      CAST(sum(thinking_tokens) AS DOUBLE) AS thinking_tokens, CAST(sum(usd) AS DOUBLE) AS call_usd
    FROM llm_calls GROUP BY run_id),
  rs AS (SELECT run_id, CAST(count(DISTINCT task_id) AS INTEGER) AS accepted_designs,
      CAST(count(DISTINCT task_id) FILTER (WHERE NOT passed) AS INTEGER) AS false_accepts
    FROM resimulations GROUP BY run_id),
  ev AS (SELECT run_id, CAST(count(*) AS INTEGER) AS evaluations FROM evaluations GROUP BY run_id)
  SELECT r.run_id, r.task, r.method, r.repeat, r.seed, r.status, r.core, r.x_tiles, r.y_tiles, r.job_key,
    coalesce(r.fault, r.meta->>'$.fault') AS fault,
    coalesce(r.backend, r.meta->>'$.backend') AS backend,
    coalesce(r.model, r.meta->>'$.model') AS model,
    ${d.epochSeconds('r.started_at')} AS started_s,
    ${d.epochSeconds('r.finished_at')} - ${d.epochSeconds('r.started_at')} AS wall_s,
    CAST(r.spec->>'$.budget.max_wall_s' AS DOUBLE) AS budget_s,
    it.iterations, it.iteration_usd, tk.builds, tk.fresh_builds, tk.task_s, tk.simulations, tk.passed_tasks,
    pr.probes, pr.probe_s, pr.first_probes, fl.failures, fl.recovered_failures, fl.first_stage,
    pc.plan_rejections, pc.first_plan_check, fp.fast_paths,
    lc.llm_calls, lc.input_tokens, lc.output_tokens, lc.thinking_tokens, lc.call_usd,
    rs.accepted_designs, rs.false_accepts, ev.evaluations
  FROM runs r
    LEFT JOIN it ON it.run_id = r.run_id LEFT JOIN tk ON tk.run_id = r.run_id LEFT JOIN pr ON pr.run_id = r.run_id
    LEFT JOIN fl ON fl.run_id = r.run_id LEFT JOIN pc ON pc.run_id = r.run_id LEFT JOIN fp ON fp.run_id = r.run_id
    LEFT JOIN lc ON lc.run_id = r.run_id LEFT JOIN rs ON rs.run_id = r.run_id LEFT JOIN ev ON ev.run_id = r.run_id
  WHERE r.task IS NOT NULL`;
}

const count = z
  .number()
  .nullable()
  .transform((n) => n ?? 0);
const nullableNumber = z.number().nullable();
const text = z.string().nullable();

/** A row of runRowsSql as the database returns it (both dialects). */
const RawRunSchema = z.object({
  run_id: z.string(),
  task: z.string(),
  method: z
    .string()
    .nullable()
    .transform((m) => m ?? 'mace'),
  repeat: nullableNumber,
  seed: nullableNumber,
  status: z.string(),
  core: z.string(),
  x_tiles: z.number(),
  y_tiles: z.number(),
  job_key: text,
  fault: text,
  backend: text,
  model: text,
  started_s: z.number(),
  wall_s: nullableNumber,
  budget_s: nullableNumber,
  iterations: count,
  iteration_usd: count,
  builds: count,
  fresh_builds: count,
  task_s: count,
  simulations: count,
  passed_tasks: count,
  probes: count,
  probe_s: count,
  first_probes: count,
  failures: count,
  recovered_failures: count,
  first_stage: nullableNumber,
  plan_rejections: count,
  first_plan_check: count,
  fast_paths: count,
  llm_calls: count,
  input_tokens: count,
  output_tokens: count,
  thinking_tokens: count,
  call_usd: nullableNumber,
  accepted_designs: nullableNumber,
  false_accepts: nullableNumber,
  evaluations: count,
});
type RawRun = z.infer<typeof RawRunSchema>;

/** One labelled run with every number the report uses. Field order is the CSV's column order. */
export interface RunRow {
  /** The database file the row was read from (the first, when several hold it). */
  readonly source: string;
  readonly run_id: string;
  readonly task: string;
  readonly method: string;
  readonly repeat: number | null;
  readonly seed: number | null;
  readonly status: string;
  readonly fault: string | null;
  readonly job_key: string | null;
  readonly backend: string | null;
  readonly model: string | null;
  readonly core: string;
  readonly mesh: string;
  readonly started_at: Date;
  /** A later run of the same (task, method, repeat) exists; this one is left out of the statistics. */
  readonly replaced: boolean;
  readonly replaced_by: string | null;
  readonly passed: boolean;
  /** finished_at − started_at; null while running. */
  readonly wall_s: number | null;
  /** The run's wall-time budget (spec.budget.max_wall_s) when recorded. */
  readonly budget_s: number | null;
  /** Wall time if passed, else the censoring time (see the module comment); null while running. */
  readonly time_to_pass_s: number | null;
  /** True when time_to_pass_s is a censoring time, not an observed pass. */
  readonly censored: boolean;
  readonly iterations: number;
  /** Build and simulation seconds of the tasks plus the narrowing probes (reused builds count 0). */
  readonly machine_s: number;
  /** Task rows, reused builds included (the original's count). */
  readonly builds: number;
  readonly fresh_builds: number;
  readonly probes: number;
  readonly simulations: number;
  readonly passed_tasks: number;
  readonly failures: number;
  readonly recovered_failures: number;
  readonly plan_rejections: number;
  readonly fast_paths: number;
  readonly llm_calls: number;
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly thinking_tokens: number;
  /** LLM dollars: Σ llm_calls.usd, or Σ iterations.usd where a run recorded no calls (old databases). */
  readonly llm_usd: number;
  /** machine_s at the hourly rate. */
  readonly compute_usd: number;
  readonly total_usd: number;
  /** Designs re-simulated after a build-only check; null when none were. */
  readonly accepted_designs: number | null;
  /** Re-simulated designs that failed a gate program; null when none were re-simulated. */
  readonly false_accepts: number | null;
  readonly evaluations: number;
  /** The stage that caught the first iteration's failure (see CATCH_STAGES). */
  readonly caught_by: CatchStage;
}

/** The column types of a RunRow, for exports (in the store's type vocabulary). */
export const RUN_ROW_COLUMNS = {
  source: 'VARCHAR',
  run_id: 'VARCHAR',
  task: 'VARCHAR',
  method: 'VARCHAR',
  repeat: 'INTEGER',
  seed: 'BIGINT',
  status: 'VARCHAR',
  fault: 'VARCHAR',
  job_key: 'VARCHAR',
  backend: 'VARCHAR',
  model: 'VARCHAR',
  core: 'VARCHAR',
  mesh: 'VARCHAR',
  started_at: 'TIMESTAMP',
  replaced: 'BOOLEAN',
  replaced_by: 'VARCHAR',
  passed: 'BOOLEAN',
  wall_s: 'DOUBLE',
  budget_s: 'DOUBLE',
  time_to_pass_s: 'DOUBLE',
  censored: 'BOOLEAN',
  iterations: 'INTEGER',
  machine_s: 'DOUBLE',
  builds: 'INTEGER',
  fresh_builds: 'INTEGER',
  probes: 'INTEGER',
  simulations: 'INTEGER',
  passed_tasks: 'INTEGER',
  failures: 'INTEGER',
  recovered_failures: 'INTEGER',
  plan_rejections: 'INTEGER',
  fast_paths: 'INTEGER',
  llm_calls: 'INTEGER',
  input_tokens: 'BIGINT',
  output_tokens: 'BIGINT',
  thinking_tokens: 'BIGINT',
  llm_usd: 'DOUBLE',
  compute_usd: 'DOUBLE',
  total_usd: 'DOUBLE',
  accepted_designs: 'INTEGER',
  false_accepts: 'INTEGER',
  evaluations: 'INTEGER',
  caught_by: 'VARCHAR',
} as const satisfies Record<keyof RunRow, ColumnType>;

/** One co-design proposal of a labelled run, in proposal order. */
export interface EvaluationPoint {
  readonly run_id: string;
  readonly idx: number;
  readonly simulated: boolean;
  readonly feasible: boolean;
  readonly sim_time: number | null;
  readonly area_um2: number | null;
}

export interface LoadedRuns {
  readonly files: readonly string[];
  /** Every labelled run once, replaced and unfinished ones included, ordered by start time. */
  readonly rows: readonly RunRow[];
  /** Copies of a run found in a second file and dropped. */
  readonly duplicates: number;
  /** Each method's recorded LoopOptions (the most common value among its runs), where any. */
  readonly methodOptions: ReadonlyMap<string, Record<string, unknown>>;
  readonly evaluations: readonly EvaluationPoint[];
}

export interface LoadOptions {
  readonly hourlyUsd?: number;
}

const EvaluationSchema = z.object({
  run_id: z.string(),
  idx: z.number(),
  simulated: z.union([z.boolean(), z.number()]).transform(Boolean),
  feasible: z.union([z.boolean(), z.number()]).transform(Boolean),
  sim_time: nullableNumber,
  area_um2: nullableNumber,
});

const OptionsSchema = z.object({ method: z.string().nullable(), options: text, runs: z.number() });

interface SourceRows {
  readonly raw: RawRun[];
  readonly evaluations: EvaluationPoint[];
  readonly options: z.infer<typeof OptionsSchema>[];
}

async function readSource(source: Source): Promise<SourceRows> {
  return source.read(async (q: Queries) => {
    const raw = (await q.all(runRowsSql(source.dialect))).map((row) => RawRunSchema.parse(row));
    const evaluations = (
      await q.all(
        `SELECT e.run_id, e.idx, e.simulated, e.feasible, e.sim_time, e.area_um2
         FROM evaluations e JOIN runs r ON r.run_id = e.run_id WHERE r.task IS NOT NULL ORDER BY e.run_id, e.idx`,
      )
    ).map((row) => EvaluationSchema.parse(row));
    const options = (
      await q.all(
        `SELECT method, ${DIALECTS[source.dialect].jsonText('options')} AS options, count(*) AS runs
         FROM runs WHERE task IS NOT NULL AND options IS NOT NULL GROUP BY 1, 2`,
      )
    ).map((row) => OptionsSchema.parse(row));
    return { raw, evaluations, options };
  });
}

/**
 * Read the labelled runs of every source into one set of run rows.
 * @example const loaded = await loadRuns([await duckdbSource('a.duckdb'), await duckdbSource('b.duckdb')]);
 */
export async function loadRuns(sources: readonly Source[], options: LoadOptions = {}): Promise<LoadedRuns> {
  const hourlyUsd = options.hourlyUsd ?? DEFAULT_HOURLY_USD;
  const kept = new Map<string, { raw: RawRun; source: string }>();
  const evaluations = new Map<string, EvaluationPoint[]>();
  const optionCounts = new Map<string, Map<string, number>>();
  let duplicates = 0;
  for (const source of sources) {
    const rows = await readSource(source);
    for (const raw of rows.raw) {
      const existing = kept.get(raw.run_id);
      if (existing) duplicates++;
      if (!existing || moreComplete(raw, existing.raw)) kept.set(raw.run_id, { raw, source: source.label });
    }
    for (const point of rows.evaluations) {
      const list = evaluations.get(point.run_id) ?? [];
      if (!list.some((p) => p.idx === point.idx)) list.push(point);
      evaluations.set(point.run_id, list);
    }
    for (const { method, options: json, runs } of rows.options) {
      const counts = optionCounts.get(method ?? 'mace') ?? new Map<string, number>();
      if (json !== null) counts.set(json, (counts.get(json) ?? 0) + runs);
      optionCounts.set(method ?? 'mace', counts);
    }
  }
  const merged = [...kept.values()].sort(
    (a, b) => a.raw.started_s - b.raw.started_s || a.raw.run_id.localeCompare(b.raw.run_id),
  );
  const replacedBy = replacements(merged.map(({ raw }) => raw));
  const ceilings = taskCeilings(merged.map(({ raw }) => raw));
  const rows = merged.map(({ raw, source }) =>
    runRow(raw, source, replacedBy.get(raw.run_id) ?? null, ceilings.get(raw.task) ?? null, hourlyUsd),
  );
  const methodOptions = new Map<string, Record<string, unknown>>();
  for (const [method, counts] of optionCounts) {
    const [json] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? [];
    if (json !== undefined) methodOptions.set(method, JSON.parse(json) as Record<string, unknown>);
  }
  return {
    files: sources.map((s) => s.label),
    rows,
    duplicates,
    methodOptions,
    evaluations: [...evaluations.values()].flat().sort((a, b) => a.run_id.localeCompare(b.run_id) || a.idx - b.idx),
  };
}

function moreComplete(candidate: RawRun, current: RawRun): boolean {
  const finished = (r: RawRun) => (r.wall_s === null ? 0 : 1);
  return finished(candidate) - finished(current) > 0 || candidate.iterations > current.iterations;
}

/** run_id → the run that replaces it: the latest-started run of the same (task, method, repeat). */
function replacements(runs: readonly RawRun[]): Map<string, string> {
  const latest = new Map<string, RawRun>();
  const key = (r: RawRun) => JSON.stringify([r.task, r.method, r.repeat]);
  for (const run of runs) latest.set(key(run), run); // runs are in start order, so the last one wins
  const replacedBy = new Map<string, string>();
  for (const run of runs) {
    const last = latest.get(key(run))!;
    if (last.run_id !== run.run_id) replacedBy.set(run.run_id, last.run_id);
  }
  return replacedBy;
}

/** Per task, the longest time any of its runs took or was allowed: the stand-in budget. */
function taskCeilings(runs: readonly RawRun[]): Map<string, number> {
  const ceilings = new Map<string, number>();
  for (const run of runs) {
    const longest = Math.max(run.wall_s ?? 0, run.budget_s ?? 0);
    ceilings.set(run.task, Math.max(ceilings.get(run.task) ?? 0, longest));
  }
  return ceilings;
}

function runRow(
  raw: RawRun,
  source: string,
  replacedBy: string | null,
  taskCeiling: number | null,
  hourlyUsd: number,
): RunRow {
  const passed = raw.status === 'passed';
  const machine_s = raw.task_s + raw.probe_s;
  const llm_usd = raw.llm_calls > 0 ? (raw.call_usd ?? 0) : raw.iteration_usd;
  const compute_usd = (machine_s / 3600) * hourlyUsd;
  const censorAt = Math.max(raw.wall_s ?? 0, raw.budget_s ?? taskCeiling ?? 0);
  return {
    source,
    run_id: raw.run_id,
    task: raw.task,
    method: raw.method,
    repeat: raw.repeat,
    seed: raw.seed,
    status: raw.status,
    fault: raw.fault,
    job_key: raw.job_key,
    backend: raw.backend,
    model: raw.model,
    core: raw.core,
    mesh: `${raw.x_tiles}x${raw.y_tiles}`,
    started_at: new Date(Math.round(raw.started_s * 1000)),
    replaced: replacedBy !== null,
    replaced_by: replacedBy,
    passed,
    wall_s: raw.wall_s,
    budget_s: raw.budget_s,
    time_to_pass_s: raw.wall_s === null ? null : passed ? raw.wall_s : censorAt,
    censored: raw.wall_s !== null && !passed,
    iterations: raw.iterations,
    machine_s,
    builds: raw.builds,
    fresh_builds: raw.fresh_builds,
    probes: raw.probes,
    simulations: raw.simulations,
    passed_tasks: raw.passed_tasks,
    failures: raw.failures,
    recovered_failures: raw.recovered_failures,
    plan_rejections: raw.plan_rejections,
    fast_paths: raw.fast_paths,
    llm_calls: raw.llm_calls,
    input_tokens: raw.input_tokens,
    output_tokens: raw.output_tokens,
    thinking_tokens: raw.thinking_tokens,
    llm_usd,
    compute_usd,
    total_usd: llm_usd + compute_usd,
    accepted_designs: raw.accepted_designs,
    false_accepts: raw.accepted_designs === null ? null : raw.false_accepts,
    evaluations: raw.evaluations,
    caught_by: caughtBy(raw),
  };
}

function caughtBy(raw: RawRun): CatchStage {
  if (raw.first_plan_check > 0) return 'plan_check';
  if (raw.first_stage === null) return 'not_caught';
  if (raw.first_stage === UNSTAGED) return raw.first_probes > 0 ? 'narrowing' : 'triage';
  return STAGE_CODES[raw.first_stage] ?? 'other';
}

/** True when a run counts in the statistics: not replaced and finished. */
export function counted(row: RunRow): boolean {
  return !row.replaced && row.wall_s !== null && row.status !== 'running';
}
