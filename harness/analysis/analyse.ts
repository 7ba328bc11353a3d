/**
 * One analysis of one or several results databases: every table of the report as typed data, with
 * the settings and rules that produced it, so the report, figures and notebooks all read the same
 * numbers.
 */
import { codesignSearches, codesignSummary, type CodesignSearch, type CodesignSummary } from './codesign.ts';
import { counted, loadRuns, DEFAULT_HOURLY_USD, type LoadedRuns, type RunRow } from './runs.ts';
import { duckdbSource, type Source } from './source.ts';
import { DIFFERENCE_PRECISION_S } from './stats.ts';
import { summaryParts } from './summary.ts';
import {
  MIN_TASKS_FOR_SIGNIFICANCE,
  cellAggregates,
  cellSummaries,
  comparisons,
  faultChecks,
  methodAggregates,
  methodKinds,
  methodSummaries,
  recoveryAggregates,
  recoveryTable,
  sortFaultChecks,
  type CellAggregate,
  type CellSummary,
  type MethodAggregate,
  type RecoveryAggregate,
  type Comparison,
  type FaultCheckRow,
  type MethodKind,
  type MethodSummary,
  type RecoveryRow,
} from './tables.ts';

export const DEFAULT_RESAMPLES = 2000;
export const DEFAULT_SEED = 1;
export const DEFAULT_REFERENCE = 'mace';

export interface AnalysisOptions {
  /** The method every other is compared with. */
  readonly reference?: string;
  /** Dollars per hour of machine time (build and simulation). */
  readonly hourlyUsd?: number;
  /** Seed of every bootstrap interval. */
  readonly seed?: number;
  readonly resamples?: number;
}

export interface AnalysisSettings {
  readonly files: readonly string[];
  readonly reference: string;
  readonly hourly_usd: number;
  readonly seed: number;
  readonly resamples: number;
  readonly interval_level: 0.95;
  readonly difference_precision_s: number;
  readonly min_tasks_for_significance: number;
}

export interface AnalysisCounts {
  /** Labelled runs read, each once. */
  readonly runs: number;
  /** Runs in the statistics: not replaced, finished. */
  readonly counted: number;
  readonly replaced: number;
  /** Of the replaced runs, those whose job definition (job_key) had changed since. */
  readonly replaced_after_edit: number;
  /** Runs still `running` with no later run of their job. */
  readonly unfinished: number;
  /** Copies of a run found in more than one file and counted once. */
  readonly duplicates: number;
}

/** Every table of a report, without the run rows. */
export interface Report {
  readonly settings: AnalysisSettings;
  readonly counts: AnalysisCounts;
  readonly kinds: Readonly<Record<string, MethodKind>>;
  readonly cells: readonly CellSummary[];
  readonly methods: readonly MethodSummary[];
  /** Each compared method against the reference; the ablations are those with `changes`. */
  readonly comparisons: readonly Comparison[];
  readonly recovery: readonly RecoveryRow[];
  readonly fault_checks: readonly FaultCheckRow[];
  readonly codesign: { readonly searches: readonly CodesignSearch[]; readonly summary: readonly CodesignSummary[] };
  readonly warnings: readonly string[];
}

export interface Analysis extends Report {
  /** Every labelled run, replaced and unfinished ones included (see `counted`). */
  readonly runs: readonly RunRow[];
}

/**
 * What a report is built from, by whichever engine grouped the runs: the counts, each method's kind
 * (in the order the methods first appear), and the aggregates of the counted bring-up runs.
 */
export interface ReportParts {
  readonly files: readonly string[];
  readonly counts: AnalysisCounts;
  readonly kinds: ReadonlyMap<string, MethodKind>;
  readonly cells: readonly CellAggregate[];
  readonly methods: readonly MethodAggregate[];
  readonly recovery: readonly RecoveryAggregate[];
  readonly faultChecks: FaultCheckRow[];
  readonly searches: readonly CodesignSearch[];
  readonly methodOptions: ReadonlyMap<string, Record<string, unknown>>;
}

/**
 * Analyse results databases (DuckDB files) given by path: the tables aggregated by DuckDB, and every
 * run row (for figures, CSV and JSON). summariseFiles gives the tables alone, faster.
 * @example const analysis = await analyseFiles(['runs/vm1.duckdb', 'runs/vm2.duckdb'], { hourlyUsd: 0.36 });
 */
export async function analyseFiles(paths: readonly string[], options: AnalysisOptions = {}): Promise<Analysis> {
  const { settings, counts, ...tables } = await summariseFiles(paths, options);
  const sources: Source[] = [];
  for (const path of paths) sources.push(await duckdbSource(path));
  const { rows } = await loadRuns(sources, { hourlyUsd: options.hourlyUsd });
  return { settings, counts, runs: rows, ...tables };
}

/**
 * The tables of a report on results databases (DuckDB files), grouped in SQL: only per-cell numbers
 * leave the database.
 * @example const report = await summariseFiles(['runs/quickstart.duckdb']); renderMarkdown(report);
 */
export async function summariseFiles(paths: readonly string[], options: AnalysisOptions = {}): Promise<Report> {
  return buildReport(await summaryParts(paths, optionsWithDefaults(options)), options);
}

/** Analyse any sources (DuckDB stores, or the benchmark's SQLite copy), every run read into JS. */
export async function analyseSources(sources: readonly Source[], options: AnalysisOptions = {}): Promise<Analysis> {
  const loaded = await loadRuns(sources, { hourlyUsd: options.hourlyUsd });
  return analyse(loaded, options);
}

/** Every table, from runs already loaded. */
export function analyse(loaded: LoadedRuns, options: AnalysisOptions = {}): Analysis {
  const { reference } = optionsWithDefaults(options);
  const included = loaded.rows.filter(counted);
  const kinds = methodKinds(loaded.rows, reference);
  const bringUp = included.filter((r) => kinds.get(r.method) !== 'codesign');
  const byId = new Map(loaded.rows.map((r) => [r.run_id, r]));
  const replaced = loaded.rows.filter((r) => r.replaced);
  const { settings, counts, ...tables } = buildReport(
    {
      files: loaded.files,
      counts: {
        runs: loaded.rows.length,
        counted: included.length,
        replaced: replaced.length,
        replaced_after_edit: replaced.filter((r) => {
          const by = byId.get(r.replaced_by!)!;
          return r.job_key !== null && by.job_key !== null && r.job_key !== by.job_key;
        }).length,
        unfinished: loaded.rows.filter((r) => !r.replaced && !counted(r)).length,
        duplicates: loaded.duplicates,
      },
      kinds,
      cells: cellAggregates(bringUp),
      methods: methodAggregates(bringUp),
      recovery: recoveryAggregates(bringUp, kinds),
      faultChecks: faultChecks(bringUp, kinds),
      searches: codesignSearches(loaded.rows, kinds, loaded.evaluations),
      methodOptions: loaded.methodOptions,
    },
    options,
  );
  return { settings, counts, runs: loaded.rows, ...tables };
}

type ResolvedOptions = Required<AnalysisOptions>;

function optionsWithDefaults(options: AnalysisOptions): ResolvedOptions {
  return {
    reference: options.reference ?? DEFAULT_REFERENCE,
    hourlyUsd: options.hourlyUsd ?? DEFAULT_HOURLY_USD,
    seed: options.seed ?? DEFAULT_SEED,
    resamples: options.resamples ?? DEFAULT_RESAMPLES,
  };
}

/** The statistics and every table, from the grouped runs. */
export function buildReport(parts: ReportParts, options: AnalysisOptions = {}): Report {
  const resolved = optionsWithDefaults(options);
  const settings: AnalysisSettings = {
    files: parts.files,
    reference: resolved.reference,
    hourly_usd: resolved.hourlyUsd,
    seed: resolved.seed,
    resamples: resolved.resamples,
    interval_level: 0.95,
    difference_precision_s: DIFFERENCE_PRECISION_S,
    min_tasks_for_significance: MIN_TASKS_FOR_SIGNIFICANCE,
  };
  const bootstrap = { resamples: settings.resamples, seed: settings.seed };
  const cells = cellSummaries(parts.cells, bootstrap);
  const compared = comparisons(cells, parts.kinds, parts.methodOptions, settings.reference, bootstrap);
  return {
    settings,
    counts: parts.counts,
    kinds: Object.fromEntries(parts.kinds),
    cells,
    methods: methodSummaries(parts.methods, parts.kinds, bootstrap),
    comparisons: compared,
    recovery: recoveryTable(parts.recovery),
    fault_checks: sortFaultChecks(parts.faultChecks),
    codesign: { searches: parts.searches, summary: codesignSummary(parts.searches) },
    warnings: warnings(settings, parts.counts, compared, parts.kinds),
  };
}

function warnings(
  settings: AnalysisSettings,
  counts: AnalysisCounts,
  compared: readonly Comparison[],
  kinds: ReadonlyMap<string, MethodKind>,
): string[] {
  const out: string[] = [];
  const bringUp = [...kinds.values()].some((kind) => kind !== 'codesign');
  if (bringUp && !kinds.has(settings.reference)) {
    out.push(`No ${settings.reference} runs: nothing is compared against the reference method.`);
  }
  const few = compared.filter((c) => c.test.n < MIN_TASKS_FOR_SIGNIFICANCE);
  if (few.length) {
    out.push(
      `Fewer than ${MIN_TASKS_FOR_SIGNIFICANCE} paired tasks with a non-zero difference for ${few
        .map((c) => `${c.method} (${c.test.n})`)
        .join(', ')}: the exact Wilcoxon test cannot reach p < 0.05 ` +
        `(its smallest p is 2/2^n, ${(2 / 2 ** 5).toFixed(4)} at n = 5). Add tasks, not repeats.`,
    );
  }
  if (counts.unfinished) {
    out.push(`${counts.unfinished} run(s) never finished (still 'running', no later run of the job): left out.`);
  }
  return out;
}
