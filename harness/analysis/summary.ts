/**
 * The report's tables grouped by DuckDB: the rules of runs.ts (one copy of a run over several
 * files, the replaced-run rule, time to pass censored at the budget) applied in SQL, so only a few
 * numbers per task × method cell leave the database instead of every run. Several files are
 * attached to the first one's connection and merged there, each still borrowed through its Store.
 *
 * The numbers are the same, bit for bit, as those computed from run rows (tables.ts): medians are
 * type-7 quantiles either way, and sums add whole units (unitSum) either way. The rules are applied
 * with hash aggregates and joins rather than windows, whose sorts cost more on a hundred thousand runs.
 */
import { resolve } from 'node:path';
import type { Queries } from '../../mace/store/store.ts';
import type { AnalysisCounts, ReportParts } from './analyse.ts';
import { codesignSearches, type CodesignSearch } from './codesign.ts';
import {
  CATCH_STAGES,
  STAGE_CODES,
  UNSTAGED,
  evaluationsSql,
  mergeEvaluations,
  methodOptions,
  optionsSql,
  parseEvaluation,
  parseOptions,
  runMetricsSql,
  type EvaluationPoint,
  type RecordedOptions,
  type TableName,
} from './runs.ts';
import { duckdbSource, type Source } from './source.ts';
import {
  MEDIAN_FIELDS,
  SUMMED_FIELDS,
  SUM_UNITS,
  groupBy,
  methodKind,
  sampleOf,
  type CellAggregate,
  type FaultCheckRow,
  type MethodAggregate,
  type MethodKind,
  type RecoveryAggregate,
  type TimeSample,
} from './tables.ts';

export interface SummaryOptions {
  readonly reference: string;
  readonly hourlyUsd: number;
}

/** The temporary table of labelled runs, one row each, that the grouping queries read. */
const RUNS = 'mace_report_runs';

/** A run's stage code (runs.ts) as its CATCH_STAGES name; mirrors caughtBy. */
const caughtBySql = `CASE WHEN first_plan_check > 0 THEN 'plan_check' WHEN first_stage IS NULL THEN 'not_caught'
  WHEN first_stage = ${UNSTAGED} THEN CASE WHEN first_probes > 0 THEN 'narrowing' ELSE 'triage' END
  ${STAGE_CODES.map((stage, i) => `WHEN first_stage = ${i} THEN '${stage}'`).join(' ')} ELSE 'other' END`;

/** The columns the grouping queries read (DuckDB then skips computing the others, such as backend). */
const KEPT_COLUMNS = [
  ...new Set([
    ...['run_id', 'task', 'method', 'repeat', 'seed', 'status', 'fault', 'replaced', 'replaced_after_edit'],
    ...['started_s', 'copies', 'counted', 'passed', 'time_to_pass_s', 'censored', 'evaluations', 'recovered_failures'],
    ...['resimulated_false_accepts', 'caught_by', ...MEDIAN_FIELDS, ...SUMMED_FIELDS],
  ]),
].filter((column) => column !== 'total_usd');

/**
 * Every labelled run once, with what runRow derives, from the tables of each attached database.
 * A run in several files keeps the copy loadRuns keeps: folding the copies in file order, a copy
 * that finished or has more iterations takes over. The latest-started run of each job (task, method,
 * repeat) replaces the others; a task's ceiling is the longest any of its runs took or was allowed.
 */
function runsTableSql(tables: readonly TableName[]): string {
  const copies = tables.map((table, k) => `SELECT ${k} AS copy_source, * FROM (${runMetricsSql('duckdb', table)})`);
  const kept =
    tables.length === 1
      ? `SELECT *, 1 AS copies FROM copies`
      : `SELECT c.*, k.copies FROM copies c JOIN (
          SELECT run_id, count(*) AS copies, list_reduce(
            list({'k': copy_source, 'finished': CAST(wall_s IS NOT NULL AS INTEGER), 'iterations': iterations} ORDER BY copy_source),
            (current, candidate) -> CASE WHEN candidate.finished - current.finished > 0 OR candidate.iterations > current.iterations
              THEN candidate ELSE current END).k AS copy_source
          FROM copies GROUP BY run_id) k USING (run_id, copy_source)`;
  return `CREATE TEMP TABLE ${RUNS} AS
  WITH copies AS (${copies.join(' UNION ALL ')}),
  kept AS (${kept}),
  jobs AS (SELECT task, method, repeat, max({'s': started_s, 'r': run_id, 'j': job_key}) AS latest
    FROM kept GROUP BY task, method, repeat),
  ceilings AS (SELECT task, max(greatest(coalesce(wall_s, 0), coalesce(budget_s, 0))) AS ceiling FROM kept GROUP BY task),
  placed AS (SELECT k.*, k.run_id <> j.latest.r AS replaced, k.run_id <> j.latest.r AND k.job_key <> j.latest.j AS replaced_after_edit,
      c.ceiling
    FROM kept k JOIN ceilings c ON c.task = k.task
      JOIN jobs j ON j.task = k.task AND j.method = k.method AND j.repeat IS NOT DISTINCT FROM k.repeat),
  derived AS (SELECT *,
      status = 'passed' AS passed,
      CASE WHEN wall_s IS NULL THEN NULL WHEN status = 'passed' THEN wall_s
        ELSE greatest(wall_s, coalesce(budget_s, ceiling, 0)) END AS time_to_pass_s,
      wall_s IS NOT NULL AND status <> 'passed' AS censored,
      NOT replaced AND wall_s IS NOT NULL AND status <> 'running' AS counted,
      task_s + probe_s AS machine_s,
      CASE WHEN llm_calls > 0 THEN coalesce(call_usd, 0) ELSE iteration_usd END AS llm_usd,
      (task_s + probe_s) / 3600 * CAST($1 AS DOUBLE) AS compute_usd,
      CASE WHEN accepted_designs IS NULL THEN NULL ELSE false_accepts END AS resimulated_false_accepts,
      ${caughtBySql} AS caught_by
    FROM placed)
  SELECT ${KEPT_COLUMNS.join(', ')}, llm_usd + compute_usd AS total_usd FROM derived`;
}

const medianOf = (column: string) => `quantile_cont(CAST(${column} AS DOUBLE), 0.5)`;

/** Runs of some methods, given as $1, a JSON list (a bound empty list would have no item type). */
const ofMethods = `list_contains(from_json($1, '["VARCHAR"]'), method)`;

/** Counted runs of some methods ($1). */
const countedOf = `FROM ${RUNS} WHERE counted AND ${ofMethods}`;

/** Groups in the order of their first run (start time, then run_id). */
const FIRST_SEEN = `min({'s': started_s, 'r': run_id})`;

/**
 * A cell's times to pass travel as two unsorted lists, times and censoring flags: DuckDB feeds a
 * group's rows to every aggregate in the same order, so the two lists pair up.
 */
const timedList = (column: string) => `list(${column}) FILTER (WHERE time_to_pass_s IS NOT NULL) AS ${column}`;

const CELLS_SQL = `SELECT task, method, CAST(count(*) AS INTEGER) AS runs, CAST(count(*) FILTER (WHERE passed) AS INTEGER) AS passed,
    ${timedList('time_to_pass_s')}, ${timedList('censored')},
    quantile_cont(wall_s, [0.25, 0.5, 0.75]) FILTER (WHERE passed) AS passed_quartiles,
    ${MEDIAN_FIELDS.map((field) => `${medianOf(field)} AS ${field}`).join(', ')},
    CAST(sum(recovered_failures) AS INTEGER) AS recovered_failures,
    CAST(sum(resimulated_false_accepts) AS INTEGER) AS false_accepts
  ${countedOf} GROUP BY task, method`;

/** SQL's unitSum: whole units added as integers, exactly. */
const unitSumOf = (field: (typeof SUMMED_FIELDS)[number]) =>
  `CAST(sum(CAST(floor(${field} * ${SUM_UNITS[field]} + 0.5) AS BIGINT)) AS DOUBLE) / ${SUM_UNITS[field]} AS sum_${field}`;

const METHODS_SQL = `SELECT method, CAST(count(DISTINCT task) AS INTEGER) AS tasks, CAST(count(*) AS INTEGER) AS runs,
    CAST(count(*) FILTER (WHERE passed) AS INTEGER) AS passed,
    quantile_cont(wall_s, 0.5) FILTER (WHERE passed) AS passed_time_s, ${medianOf('machine_s')} AS machine_s,
    ${SUMMED_FIELDS.map(unitSumOf).join(', ')}
  ${countedOf} GROUP BY method`;

const RECOVERY_SQL = `SELECT fault, method, CAST(count(DISTINCT task) AS INTEGER) AS tasks, CAST(count(*) AS INTEGER) AS runs,
  CAST(count(*) FILTER (WHERE passed) AS INTEGER) AS recovered,
  ${medianOf('iterations')} FILTER (WHERE passed) AS iterations_to_recover,
  ${CATCH_STAGES.map((stage) => `CAST(count(*) FILTER (WHERE caught_by = '${stage}') AS INTEGER) AS ${stage}`).join(', ')}
  ${countedOf} AND fault IS NOT NULL GROUP BY fault, method ORDER BY ${FIRST_SEEN}`;

const FAULT_CHECKS_SQL = `SELECT fault, method, CAST(count(DISTINCT task) AS INTEGER) AS tasks, CAST(count(*) AS INTEGER) AS runs,
  CAST(count(*) FILTER (WHERE NOT passed) AS INTEGER) AS failed
  ${countedOf} GROUP BY fault, method ORDER BY ${FIRST_SEEN}`;

const COUNTS_SQL = `SELECT CAST(count(*) AS INTEGER) AS runs, CAST(count(*) FILTER (WHERE counted) AS INTEGER) AS counted,
  CAST(count(*) FILTER (WHERE replaced) AS INTEGER) AS replaced,
  CAST(count(*) FILTER (WHERE replaced_after_edit) AS INTEGER) AS replaced_after_edit,
  CAST(count(*) FILTER (WHERE NOT replaced AND NOT counted) AS INTEGER) AS unfinished,
  CAST(coalesce(sum(copies - 1), 0) AS INTEGER) AS duplicates
  FROM ${RUNS}`;

const METHOD_KINDS_SQL = `SELECT method, bool_or(evaluations > 0) AS evaluated, bool_or(fault IS NOT NULL) AS faulted
  FROM ${RUNS} GROUP BY method ORDER BY ${FIRST_SEEN}`;

const SEARCHES_SQL = `SELECT run_id, task, method, repeat, seed, status, replaced FROM ${RUNS}
  WHERE ${ofMethods} ORDER BY started_s, run_id`;

type Row = Record<string, unknown>;

/**
 * The report's parts for some DuckDB files, grouped in SQL.
 * @example const parts = await summaryParts(['a.duckdb', 'b.duckdb'], { reference: 'mace', hourlyUsd: 0.36 });
 */
export async function summaryParts(paths: readonly string[], options: SummaryOptions): Promise<ReportParts> {
  const sources: Source[] = [];
  for (const path of paths) sources.push(await duckdbSource(path));
  // Borrow every file, so each is held through its Store's locking, then query them all from the first.
  const hold = (k: number, first?: Queries): Promise<ReportParts> =>
    k === sources.length
      ? withAttached(first!, paths, (tables) => group(first!, tables, paths, options))
      : sources[k]!.read((q) => hold(k + 1, first ?? q));
  return hold(0);
}

/** Attach the files after the first (read only) for the length of `fn`, which gets each file's tables. */
async function withAttached<T>(
  q: Queries,
  paths: readonly string[],
  fn: (tables: TableName[]) => Promise<T>,
): Promise<T> {
  const first = (await q.one<{ name: string }>('SELECT current_database() AS name'))!.name;
  const names = paths.map((_, k) => (k === 0 ? first : `mace_source_${k}`));
  const attached: string[] = [];
  try {
    for (const [k, path] of paths.entries()) {
      if (k === 0) continue;
      await q.all(`ATTACH '${resolve(path).replace(/'/g, "''")}' AS ${names[k]} (READ_ONLY)`);
      attached.push(names[k]!);
    }
    return await fn(names.map((name) => (table: string) => `"${name.replace(/"/g, '""')}".${table}`));
  } finally {
    for (const name of attached) await q.all(`DETACH ${name}`);
  }
}

async function group(
  q: Queries,
  tables: readonly TableName[],
  files: readonly string[],
  options: SummaryOptions,
): Promise<ReportParts> {
  await q.all(runsTableSql(tables), [options.hourlyUsd]);
  try {
    const kinds = new Map<string, MethodKind>();
    for (const row of await q.all<{ method: string; evaluated: boolean; faulted: boolean }>(METHOD_KINDS_SQL)) {
      kinds.set(row.method, methodKind(row.method, row, options.reference));
    }
    const ofKind = (accept: (kind: MethodKind) => boolean) =>
      JSON.stringify([...kinds].filter(([, k]) => accept(k)).map(([m]) => m));
    const bringUp = ofKind((k) => k !== 'codesign');
    const cellRows = await q.all(CELLS_SQL, [bringUp]);
    const cells = cellRows.map((row) => cellAggregate(row, sampleOfCells([row])));
    const cellsOf = groupBy(cellRows, (row) => row.method as string);
    const searchRows = await q.all<CodesignSearchRun>(SEARCHES_SQL, [ofKind((k) => k === 'codesign')]);
    const evaluations: EvaluationPoint[][] = [];
    const recorded: RecordedOptions[][] = [];
    for (const table of tables) {
      evaluations.push((await q.all(evaluationsSql(table))).map(parseEvaluation));
      recorded.push((await q.all(optionsSql('duckdb', table))).map(parseOptions));
    }
    return {
      files,
      counts: (await q.one<AnalysisCounts>(COUNTS_SQL))!,
      kinds,
      cells,
      methods: (await q.all(METHODS_SQL, [bringUp])).map((row) =>
        methodAggregate(row, sampleOfCells(cellsOf.get(row.method as string) ?? [])),
      ),
      recovery: (await q.all(RECOVERY_SQL, [ofKind((k) => k !== 'codesign' && k !== 'fault_check')])).map(
        recoveryAggregate,
      ),
      faultChecks: (await q.all(FAULT_CHECKS_SQL, [ofKind((k) => k === 'fault_check')])).map(faultCheck),
      searches: codesignSearches(searchRows, kinds, mergeEvaluations(evaluations)),
      methodOptions: methodOptions(recorded),
    };
  } finally {
    await q.all(`DROP TABLE ${RUNS}`);
  }
}

type CodesignSearchRun = Pick<CodesignSearch, 'run_id' | 'task' | 'method' | 'repeat' | 'seed' | 'status' | 'replaced'>;

/** The time sample of some cells' runs together. */
function sampleOfCells(rows: readonly Row[]): TimeSample {
  const list = <T>(row: Row, column: string) => (row[column] as T[] | null) ?? [];
  const times: number[] = [];
  const censored: boolean[] = [];
  for (const row of rows) {
    for (const time of list<number>(row, 'time_to_pass_s')) times.push(time);
    for (const flag of list<boolean>(row, 'censored')) censored.push(flag);
  }
  return sampleOf(times, censored);
}

function cellAggregate(row: Row, sample: TimeSample): CellAggregate {
  const quartiles = row.passed_quartiles as number[] | null;
  const passed = row.passed as number;
  return {
    task: row.task as string,
    method: row.method as string,
    runs: row.runs as number,
    passed,
    sample,
    passed_time_s: quartiles ? quartiles[1]! : null,
    passed_time_iqr_s: quartiles && passed >= 2 ? quartiles[2]! - quartiles[0]! : null,
    medians: Object.fromEntries(
      MEDIAN_FIELDS.map((field) => [field, row[field] as number | null]),
    ) as CellAggregate['medians'],
    recovered_failures: row.recovered_failures as number,
    false_accepts: row.false_accepts as number | null,
  };
}

/** A method's time sample is the union of its cells' samples. */
function methodAggregate(row: Row, sample: TimeSample): MethodAggregate {
  return {
    method: row.method as string,
    tasks: row.tasks as number,
    runs: row.runs as number,
    passed: row.passed as number,
    sample,
    passed_time_s: row.passed_time_s as number | null,
    machine_s: row.machine_s as number | null,
    sums: Object.fromEntries(
      SUMMED_FIELDS.map((field) => [field, row[`sum_${field}`] as number]),
    ) as MethodAggregate['sums'],
  };
}

/** The fields a (fault, method) row starts with. */
const faultGroup = (row: Row) => ({
  fault: row.fault as string,
  method: row.method as string,
  tasks: row.tasks as number,
  runs: row.runs as number,
});

function recoveryAggregate(row: Row): RecoveryAggregate {
  return {
    ...faultGroup(row),
    recovered: row.recovered as number,
    iterations_to_recover: row.iterations_to_recover as number | null,
    caught_by: Object.fromEntries(
      CATCH_STAGES.map((stage) => [stage, row[stage] as number]),
    ) as RecoveryAggregate['caught_by'],
  };
}

function faultCheck(row: Row): FaultCheckRow {
  const group = faultGroup(row);
  const failed = row.failed as number;
  return { ...group, failed, verified: failed === group.runs };
}
