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
export const STAGE_CODES = ['narrowing', 'triage', 'raw_evidence', 'short_circuit', 'not_triaged'] as const;
export const UNSTAGED = STAGE_CODES.length;
const OTHER_STAGE = STAGE_CODES.length + 1;

/**
 * Text columns with few distinct values travel as codes (their rank among the distinct values), and
 * each distinct value once: converting a string per run out of the database costs more than the query.
 */
const CODED = {
  task: 'r.task',
  method: "coalesce(r.method, 'mace')",
  status: 'r.status',
  core: 'r.core',
  fault: 'r.fault',
  backend: 'r.backend',
  model: 'r.model',
} as const;

/** The distinct non-null values of a coded column. */
const distinctSql = (expression: string) =>
  `SELECT DISTINCT ${expression} AS value FROM runs r WHERE r.task IS NOT NULL AND ${expression} IS NOT NULL`;

/** The distinct values of a coded column, in code order (code k is the k-th, from 1). */
const dictionarySql = (expression: string) => `SELECT value FROM (${distinctSql(expression)}) ORDER BY value`;

/** A CTE numbering a coded column's values, joined to the runs by value. */
const dictionaryCte = (name: string, expression: string) =>
  `d_${name} AS (SELECT value, CAST(row_number() OVER (ORDER BY value) AS INTEGER) AS code FROM (${distinctSql(expression)}) x)`;

/** A table of one attached database, or of the default one. */
export type TableName = (name: string) => string;
const ownTables: TableName = (name) => name;

/**
 * One row per labelled run with its own fields (a run without a method is `mace`'s) and the
 * counts and sums of its rows in the other tables: the
 * per-run numbers every report table is built from, read whole (runRowsSql) or aggregated in SQL
 * (summary.ts).
 */
export function runMetricsSql(dialect: Dialect, table: TableName = ownTables): string {
  const d = DIALECTS[dialect];
  const stageCase = `CASE ${STAGE_CODES.map((s, i) => `WHEN stage = '${s}' THEN ${i}`).join(' ')}
      WHEN stage IS NULL AND diagnosis = 'raw_evidence' THEN ${STAGE_CODES.indexOf('raw_evidence')}
      WHEN stage IS NULL THEN ${UNSTAGED} ELSE ${OTHER_STAGE} END`;
  const changed = (column: string) => `coalesce(${d.jsonText(column)}, '{}') NOT IN ('{}', 'null')`;
  return `
  WITH
  it AS (SELECT run_id, CAST(count(*) AS INTEGER) AS iterations, CAST(sum(usd) AS DOUBLE) AS iteration_usd FROM ${table('iterations')} GROUP BY run_id),
  tk AS (SELECT run_id, CAST(count(*) AS INTEGER) AS builds,
      CAST(count(*) FILTER (WHERE CASE WHEN build_reused IS NOT NULL THEN NOT build_reused ELSE coalesce(build_s, 0) > 0 END) AS INTEGER)
        AS fresh_builds,
      CAST(sum(wall_s) AS DOUBLE) AS task_s, CAST(sum(coalesce(json_array_length(programs), 0)) AS DOUBLE) AS simulations,
      CAST(count(*) FILTER (WHERE passed) AS INTEGER) AS passed_tasks
    FROM ${table('tasks')} GROUP BY run_id),
  pr AS (SELECT run_id, CAST(count(*) AS INTEGER) AS probes, CAST(sum(wall_s) AS DOUBLE) AS probe_s, CAST(count(*) FILTER (WHERE iteration = 0) AS INTEGER) AS first_probes
    FROM ${table('probes')} GROUP BY run_id),
  fl AS (SELECT run_id, CAST(count(*) AS INTEGER) AS failures, CAST(count(*) FILTER (WHERE recovered) AS INTEGER) AS recovered_failures,
      CAST(min(${stageCase}) FILTER (WHERE iteration = 0) AS INTEGER) AS first_stage
    FROM ${table('failures')} GROUP BY run_id),
  pc AS (SELECT run_id, CAST(count(*) FILTER (WHERE action = 'rejected') AS INTEGER) AS plan_rejections,
      CAST(count(*) FILTER (WHERE iteration = 0 AND (action IN ('rejected', 'unusable') OR ${changed('stripped')} OR ${changed('added')})) AS INTEGER)
        AS first_plan_check
    FROM ${table('plan_checks')} GROUP BY run_id),
  fp AS (SELECT run_id, CAST(count(*) AS INTEGER) AS fast_paths FROM ${table('fast_paths')} GROUP BY run_id),
  lc AS (SELECT run_id, CAST(count(*) AS INTEGER) AS llm_calls, CAST(sum(input_tokens) AS DOUBLE) AS input_tokens, CAST(sum(output_tokens) AS DOUBLE) AS output_tokens,
      CAST(sum(thinking_tokens) AS DOUBLE) AS thinking_tokens, CAST(sum(usd) AS DOUBLE) AS call_usd
    FROM ${table('llm_calls')} GROUP BY run_id),
  rs AS (SELECT run_id, CAST(count(*) AS INTEGER) AS accepted_designs, CAST(sum(failed) AS INTEGER) AS false_accepts
    FROM (SELECT run_id, max(CASE WHEN NOT passed THEN 1 ELSE 0 END) AS failed FROM ${table('resimulations')} GROUP BY run_id, task_id) d
    GROUP BY run_id),
  ev AS (SELECT run_id, CAST(count(*) AS INTEGER) AS evaluations FROM ${table('evaluations')} GROUP BY run_id)
  SELECT r.run_id, r.repeat, r.seed, r.x_tiles, r.y_tiles, r.job_key,
    ${Object.entries(CODED)
      .map(([name, expression]) => `${expression} AS ${name}`)
      .join(', ')},
    ${d.epochSeconds('r.started_at')} AS started_s,
    ${d.epochSeconds('r.finished_at')} - ${d.epochSeconds('r.started_at')} AS wall_s,
    CAST(r.spec->>'$.budget.max_wall_s' AS DOUBLE) AS budget_s,
    ${COUNT_COLUMNS.map((name) => `coalesce(${name}, 0) AS ${name}`).join(', ')},
    fl.first_stage, lc.call_usd, rs.accepted_designs, rs.false_accepts
  FROM ${table('runs')} r
    LEFT JOIN it ON it.run_id = r.run_id LEFT JOIN tk ON tk.run_id = r.run_id LEFT JOIN pr ON pr.run_id = r.run_id
    LEFT JOIN fl ON fl.run_id = r.run_id LEFT JOIN pc ON pc.run_id = r.run_id LEFT JOIN fp ON fp.run_id = r.run_id
    LEFT JOIN lc ON lc.run_id = r.run_id LEFT JOIN rs ON rs.run_id = r.run_id LEFT JOIN ev ON ev.run_id = r.run_id
  WHERE r.task IS NOT NULL`;
}

/** runMetricsSql with its text columns as codes (see CODED). */
export function runRowsSql(dialect: Dialect): string {
  const plain = Object.keys(RAW_COLUMNS).filter((name) => !(name in CODED));
  return `
  WITH
  m AS (${runMetricsSql(dialect)}),
  ${Object.entries(CODED)
    .map(([name, expression]) => dictionaryCte(name, expression))
    .join(',\n  ')}
  SELECT ${plain.map((name) => `m.${name}`).join(', ')},
    ${Object.keys(CODED)
      .map((name) => `d_${name}.code AS ${name}`)
      .join(', ')}
  FROM m
    ${Object.keys(CODED)
      .map((name) => `LEFT JOIN d_${name} ON d_${name}.value = m.${name}`)
      .join('\n    ')}`;
}

/**
 * The columns of runRowsSql and what each may hold: `count` is a number the query makes 0 for a run
 * with no rows in that table. Checked column by column as rows leave the database, with a loop
 * rather than a zod schema per value: a report reads a hundred thousand runs.
 */
const RAW_COLUMNS = {
  run_id: 'string',
  task: 'string',
  method: 'string?',
  repeat: 'number?',
  seed: 'number?',
  status: 'string',
  core: 'string',
  x_tiles: 'number',
  y_tiles: 'number',
  job_key: 'string?',
  fault: 'string?',
  backend: 'string?',
  model: 'string?',
  started_s: 'number',
  wall_s: 'number?',
  budget_s: 'number?',
  iterations: 'count',
  iteration_usd: 'count',
  builds: 'count',
  fresh_builds: 'count',
  task_s: 'count',
  simulations: 'count',
  passed_tasks: 'count',
  probes: 'count',
  probe_s: 'count',
  first_probes: 'count',
  failures: 'count',
  recovered_failures: 'count',
  first_stage: 'number?',
  plan_rejections: 'count',
  first_plan_check: 'count',
  fast_paths: 'count',
  llm_calls: 'count',
  input_tokens: 'count',
  output_tokens: 'count',
  thinking_tokens: 'count',
  call_usd: 'number?',
  accepted_designs: 'number?',
  false_accepts: 'number?',
  evaluations: 'count',
} as const;

/**
 * The counts, zero where a run has no rows in their table. Zeroed in SQL: a column without NULLs
 * reads out of DuckDB several times faster than one with them.
 */
const COUNT_COLUMNS = Object.entries(RAW_COLUMNS).flatMap(([name, kind]) => (kind === 'count' ? [name] : []));

type ValueKind = (typeof RAW_COLUMNS)[keyof typeof RAW_COLUMNS];
type ValueOf<K extends ValueKind> = K extends 'string'
  ? string
  : K extends 'string?'
    ? string | null
    : K extends 'number?'
      ? number | null
      : number;
type RawRun = { -readonly [K in keyof typeof RAW_COLUMNS]: ValueOf<(typeof RAW_COLUMNS)[K]> };

const ACCEPTS: Record<ValueKind, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  'string?': (v) => v === null || typeof v === 'string',
  number: (v) => typeof v === 'number',
  'number?': (v) => v === null || typeof v === 'number',
  count: (v) => typeof v === 'number',
};

type RawColumns = { readonly [K in keyof RawRun]: RawRun[K][] };

/** A run within its source's columns: rows are never materialised twice. */
interface RawRef {
  readonly c: RawColumns;
  readonly i: number;
  readonly source: string;
}

/** The columns, each value checked against RAW_COLUMNS. */
function rawColumns(columns: Record<string, unknown[]>, label: string): RawColumns {
  const names = Object.keys(RAW_COLUMNS) as (keyof RawRun)[];
  const count = columns.run_id?.length ?? 0;
  for (const name of names) {
    const values = columns[name];
    const accepts = ACCEPTS[RAW_COLUMNS[name]];
    let bad = -1;
    for (let i = 0; values && i < values.length && bad < 0; i++) if (!accepts(values[i])) bad = i;
    if (!values || values.length !== count || bad >= 0) {
      throw new Error(
        `${label}: run_rows column ${name} should hold ${RAW_COLUMNS[name]} values` +
          (values ? `, found ${JSON.stringify(values[bad])} in row ${bad + 1}` : ', but is missing'),
      );
    }
  }
  return columns as unknown as RawColumns;
}

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
  /** Every labelled run once, replaced and unfinished ones included, ordered by start time, then run_id. */
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

const nullableNumber = z.number().nullable();

const EvaluationSchema = z.object({
  run_id: z.string(),
  idx: z.number(),
  simulated: z.union([z.boolean(), z.number()]).transform(Boolean),
  feasible: z.union([z.boolean(), z.number()]).transform(Boolean),
  sim_time: nullableNumber,
  area_um2: nullableNumber,
});

const OptionsSchema = z.object({ method: z.string().nullable(), options: z.string().nullable(), runs: z.number() });
/** How many runs of a method recorded one LoopOptions value. */
export type RecordedOptions = z.infer<typeof OptionsSchema>;

interface SourceRows {
  readonly raw: RawColumns;
  readonly evaluations: EvaluationPoint[];
  readonly options: RecordedOptions[];
}

/** The co-design proposals of a database's labelled runs. */
export const evaluationsSql = (table: TableName = ownTables) =>
  `SELECT e.run_id, e.idx, e.simulated, e.feasible, e.sim_time, e.area_um2
   FROM ${table('evaluations')} e JOIN ${table('runs')} r ON r.run_id = e.run_id WHERE r.task IS NOT NULL ORDER BY e.run_id, e.idx`;

/** How many of a database's labelled runs recorded each (method, LoopOptions) pair. */
export const optionsSql = (dialect: Dialect, table: TableName = ownTables) =>
  `SELECT method, ${DIALECTS[dialect].jsonText('options')} AS options, count(*) AS runs
   FROM ${table('runs')} WHERE task IS NOT NULL AND options IS NOT NULL GROUP BY 1, 2`;

export const parseEvaluation = (row: unknown): EvaluationPoint => EvaluationSchema.parse(row);
export const parseOptions = (row: unknown): RecordedOptions => OptionsSchema.parse(row);

async function readSource(source: Source): Promise<SourceRows> {
  return source.read(async (q: Queries) => {
    const columns = await q.columns(runRowsSql(source.dialect));
    for (const [name, expression] of Object.entries(CODED)) {
      const values = (await q.columns(dictionarySql(expression))).value!;
      columns[name] = columns[name]!.map((code) => (code === null ? null : values[(code as number) - 1]));
    }
    const raw = rawColumns(columns, source.label);
    const evaluations = (await q.all(evaluationsSql())).map(parseEvaluation);
    const options = (await q.all(optionsSql(source.dialect))).map(parseOptions);
    return { raw, evaluations, options };
  });
}

/**
 * Each method's recorded LoopOptions: the most common value among its runs over every source
 * (`perSource` in source order, as their queries return them).
 */
export function methodOptions(
  perSource: readonly (readonly RecordedOptions[])[],
): Map<string, Record<string, unknown>> {
  const optionCounts = new Map<string, Map<string, number>>();
  for (const rows of perSource) {
    for (const { method, options: json, runs } of rows) {
      const counts = optionCounts.get(method ?? 'mace') ?? new Map<string, number>();
      if (json !== null) counts.set(json, (counts.get(json) ?? 0) + runs);
      optionCounts.set(method ?? 'mace', counts);
    }
  }
  const chosen = new Map<string, Record<string, unknown>>();
  for (const [method, counts] of optionCounts) {
    const [json] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? [];
    if (json !== undefined) chosen.set(method, JSON.parse(json) as Record<string, unknown>);
  }
  return chosen;
}

/** Evaluation points of every source, each (run, idx) once (the first source's), by run and index. */
export function mergeEvaluations(perSource: readonly (readonly EvaluationPoint[])[]): EvaluationPoint[] {
  const evaluations = new Map<string, EvaluationPoint[]>();
  for (const points of perSource) {
    for (const point of points) {
      const list = evaluations.get(point.run_id) ?? [];
      if (!list.some((p) => p.idx === point.idx)) list.push(point);
      evaluations.set(point.run_id, list);
    }
  }
  return [...evaluations.values()].flat().sort((a, b) => compareText(a.run_id, b.run_id) || a.idx - b.idx);
}

/** Code-unit order, as SQL compares text (localeCompare would depend on the locale). */
export const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Read the labelled runs of every source into one set of run rows.
 * @example const loaded = await loadRuns([await duckdbSource('a.duckdb'), await duckdbSource('b.duckdb')]);
 */
export async function loadRuns(sources: readonly Source[], options: LoadOptions = {}): Promise<LoadedRuns> {
  const hourlyUsd = options.hourlyUsd ?? DEFAULT_HOURLY_USD;
  const kept = new Map<string, RawRef>();
  const read: SourceRows[] = [];
  let duplicates = 0;
  for (const source of sources) {
    const rows = await readSource(source);
    read.push(rows);
    for (let i = 0; i < rows.raw.run_id.length; i++) {
      const ref = { c: rows.raw, i, source: source.label };
      const existing = kept.get(rows.raw.run_id[i]!);
      if (existing) duplicates++;
      if (!existing || moreComplete(ref, existing)) kept.set(rows.raw.run_id[i]!, ref);
    }
  }
  const merged = [...kept.values()].sort(
    (a, b) => a.c.started_s[a.i]! - b.c.started_s[b.i]! || compareText(a.c.run_id[a.i]!, b.c.run_id[b.i]!),
  );
  const replacedBy = replacements(merged);
  const ceilings = taskCeilings(merged);
  const rows = merged.map((ref) =>
    runRow(ref, replacedBy.get(ref.c.run_id[ref.i]!) ?? null, ceilings.get(ref.c.task[ref.i]!) ?? null, hourlyUsd),
  );
  return {
    files: sources.map((s) => s.label),
    rows,
    duplicates,
    methodOptions: methodOptions(read.map((r) => r.options)),
    evaluations: mergeEvaluations(read.map((r) => r.evaluations)),
  };
}

function moreComplete(candidate: RawRef, current: RawRef): boolean {
  const finished = ({ c, i }: RawRef) => (c.wall_s[i] === null ? 0 : 1);
  return (
    finished(candidate) - finished(current) > 0 ||
    candidate.c.iterations[candidate.i]! > current.c.iterations[current.i]!
  );
}

/** run_id → the run that replaces it: the latest-started run of the same (task, method, repeat). */
function replacements(runs: readonly RawRef[]): Map<string, string> {
  const keys = runs.map(({ c, i }) => `${c.task[i]}\u0000${c.method[i]}\u0000${c.repeat[i]}`);
  const latest = new Map<string, number>();
  keys.forEach((key, k) => latest.set(key, k)); // runs are in start order: the last one wins
  const replacedBy = new Map<string, string>();
  keys.forEach((key, k) => {
    const last = latest.get(key)!;
    if (last !== k) replacedBy.set(runs[k]!.c.run_id[runs[k]!.i]!, runs[last]!.c.run_id[runs[last]!.i]!);
  });
  return replacedBy;
}

/** Per task, the longest time any of its runs took or was allowed: the stand-in budget. */
function taskCeilings(runs: readonly RawRef[]): Map<string, number> {
  const ceilings = new Map<string, number>();
  for (const { c, i } of runs) {
    const longest = Math.max(c.wall_s[i] ?? 0, c.budget_s[i] ?? 0);
    ceilings.set(c.task[i]!, Math.max(ceilings.get(c.task[i]!) ?? 0, longest));
  }
  return ceilings;
}

/** The report's row of one run. Columns are indexed directly: this runs once per run of every file. */
function runRow(ref: RawRef, replacedBy: string | null, taskCeiling: number | null, hourlyUsd: number): RunRow {
  const { c, i, source } = ref;
  const passed = c.status[i] === 'passed';
  const wall_s = c.wall_s[i]!;
  const budget_s = c.budget_s[i]!;
  const machine_s = c.task_s[i]! + c.probe_s[i]!;
  const llm_calls = c.llm_calls[i]!;
  const llm_usd = llm_calls > 0 ? (c.call_usd[i] ?? 0) : c.iteration_usd[i]!;
  const compute_usd = (machine_s / 3600) * hourlyUsd;
  const censorAt = Math.max(wall_s ?? 0, budget_s ?? taskCeiling ?? 0);
  const accepted_designs = c.accepted_designs[i]!;
  return {
    source,
    run_id: c.run_id[i]!,
    task: c.task[i]!,
    method: c.method[i] ?? 'mace',
    repeat: c.repeat[i]!,
    seed: c.seed[i]!,
    status: c.status[i]!,
    fault: c.fault[i]!,
    job_key: c.job_key[i]!,
    backend: c.backend[i]!,
    model: c.model[i]!,
    core: c.core[i]!,
    mesh: `${c.x_tiles[i]}x${c.y_tiles[i]}`,
    started_at: new Date(Math.round(c.started_s[i]! * 1000)),
    replaced: replacedBy !== null,
    replaced_by: replacedBy,
    passed,
    wall_s,
    budget_s,
    time_to_pass_s: wall_s === null ? null : passed ? wall_s : censorAt,
    censored: wall_s !== null && !passed,
    iterations: c.iterations[i]!,
    machine_s,
    builds: c.builds[i]!,
    fresh_builds: c.fresh_builds[i]!,
    probes: c.probes[i]!,
    simulations: c.simulations[i]!,
    passed_tasks: c.passed_tasks[i]!,
    failures: c.failures[i]!,
    recovered_failures: c.recovered_failures[i]!,
    plan_rejections: c.plan_rejections[i]!,
    fast_paths: c.fast_paths[i]!,
    llm_calls,
    input_tokens: c.input_tokens[i]!,
    output_tokens: c.output_tokens[i]!,
    thinking_tokens: c.thinking_tokens[i]!,
    llm_usd,
    compute_usd,
    total_usd: llm_usd + compute_usd,
    accepted_designs,
    false_accepts: accepted_designs === null ? null : c.false_accepts[i]!,
    evaluations: c.evaluations[i]!,
    caught_by: caughtBy(ref),
  };
}

function caughtBy({ c, i }: RawRef): CatchStage {
  const stage = c.first_stage[i]!;
  if (c.first_plan_check[i]! > 0) return 'plan_check';
  if (stage === null) return 'not_caught';
  if (stage === UNSTAGED) return c.first_probes[i]! > 0 ? 'narrowing' : 'triage';
  return STAGE_CODES[stage] ?? 'other';
}

/** True when a run counts in the statistics: not replaced and finished. */
export function counted(row: RunRow): boolean {
  return !row.replaced && row.wall_s !== null && row.status !== 'running';
}
