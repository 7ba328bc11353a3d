/**
 * The report's tables, each a pure function of run rows: per task and method, per method, each
 * method against the reference (MACE) task by task, recovery from seeded faults, and fault checks.
 */
import { CATCH_STAGES, type CatchStage, type RunRow } from './runs.ts';
import {
  DIFFERENCE_PRECISION_S,
  bootstrapMedian,
  bootstrapMedianOfSorted,
  holm,
  iqr,
  median,
  quantileSorted,
  signedRankTest,
  wilson,
  type Interval,
  type Proportion,
  type SignedRankTest,
} from './stats.ts';

export interface BootstrapSettings {
  readonly resamples: number;
  readonly seed: number;
}

/** The numbers whose per-run medians each task × method row shows. */
export const MEDIAN_FIELDS = [
  'wall_s',
  'machine_s',
  'iterations',
  'builds',
  'fresh_builds',
  'probes',
  'simulations',
  'llm_calls',
  'input_tokens',
  'output_tokens',
  'thinking_tokens',
  'llm_usd',
  'compute_usd',
  'total_usd',
] as const satisfies readonly (keyof RunRow)[];
export type MedianField = (typeof MEDIAN_FIELDS)[number];

export interface TimeToPass {
  /** Median time to pass, failures counted at their budget (see runs.ts). */
  readonly median_s: number | null;
  /** True when the median falls on a failed run: fewer than half passed, so the median is "at least". */
  readonly censored: boolean;
  /** Percentile-bootstrap 95% interval of that median. */
  readonly ci: Interval | null;
}

export interface CellSummary {
  readonly task: string;
  readonly method: string;
  readonly runs: number;
  readonly passed: number;
  readonly pass_rate: Proportion | null;
  readonly time_to_pass: TimeToPass;
  /** The original's time to pass: median wall time of the passed runs only, and its IQR. */
  readonly passed_time_s: number | null;
  readonly passed_time_iqr_s: number | null;
  /** Median over the runs, passed or not, of each MEDIAN_FIELDS number. */
  readonly medians: Readonly<Record<MedianField, number | null>>;
  readonly recovered_failures: number;
  /** Σ false accepts over runs that were re-simulated; null when none were. */
  readonly false_accepts: number | null;
}

/** The times to pass of some runs, ascending, and whether their median falls on a censored one. */
export interface TimeSample {
  readonly times: readonly number[];
  readonly median_censored: boolean;
}

/** The time sample of some runs (runs still running have no time and are skipped). */
export function timeSample(rows: readonly Pick<RunRow, 'time_to_pass_s' | 'censored'>[]): TimeSample {
  const timed = rows.filter((r) => r.time_to_pass_s !== null);
  return sampleOf(
    timed.map((r) => r.time_to_pass_s!),
    timed.map((r) => r.censored),
  );
}

/**
 * The time sample of (time, censored) pairs given in any order. Sorted by time, an observed pass
 * comes before a censored failure at the same time; the median is censored when either middle pair is.
 */
export function sampleOf(times: ArrayLike<number>, censored: ArrayLike<boolean>): TimeSample {
  const sorted = Float64Array.from(times).sort();
  const n = sorted.length;
  // The pair at a rank is censored when the rank lies past every time below its value and every
  // observed pass at its value.
  const censoredAt = (rank: number) => {
    const value = sorted[rank]!;
    let before = 0;
    for (let i = 0; i < n; i++) if (times[i]! < value || (times[i] === value && !censored[i])) before++;
    return rank >= before;
  };
  return {
    times: Array.from(sorted),
    median_censored: n > 0 && (censoredAt((n - 1) >> 1) || censoredAt(n >> 1)),
  };
}

/** Median time to pass with its censoring flag and bootstrap interval, from a time sample. */
export function timeToPassOf(sample: TimeSample, bootstrap: BootstrapSettings): TimeToPass {
  const { times } = sample;
  if (!times.length) return { median_s: null, censored: false, ci: null };
  return {
    median_s: (times[(times.length - 1) >> 1]! + times[times.length >> 1]!) / 2,
    censored: sample.median_censored,
    ci: bootstrapMedianOfSorted(times, bootstrap),
  };
}

/** Median time to pass of some runs with its censoring flag and bootstrap interval. */
export function timeToPass(
  rows: readonly Pick<RunRow, 'time_to_pass_s' | 'censored'>[],
  bootstrap: BootstrapSettings,
): TimeToPass {
  return timeToPassOf(timeSample(rows), bootstrap);
}

/** Group rows by a key, keeping first-seen order. */
export function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = groups.get(k);
    if (list) list.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}

const cellKey = (task: string, method: string) => `${task}\u0000${method}`;

/** The median of each MEDIAN_FIELDS number over the runs (nulls skipped), through one reused buffer. */
function fieldMedians(runs: readonly RunRow[]): Record<MedianField, number | null> {
  const buffer = new Float64Array(runs.length);
  const out = {} as Record<MedianField, number | null>;
  for (const field of MEDIAN_FIELDS) {
    let n = 0;
    for (const run of runs) {
      const value = run[field];
      if (value !== null) buffer[n++] = value;
    }
    out[field] = n ? quantileSorted(buffer.subarray(0, n).sort(), 0.5) : null;
  }
  return out;
}

/**
 * What a task × method row is computed from: the counts, medians and sums of its runs, and its
 * time sample. Built from run rows here, or aggregated in SQL (summary.ts).
 */
export interface CellAggregate {
  readonly task: string;
  readonly method: string;
  readonly runs: number;
  readonly passed: number;
  readonly sample: TimeSample;
  readonly passed_time_s: number | null;
  readonly passed_time_iqr_s: number | null;
  readonly medians: Readonly<Record<MedianField, number | null>>;
  readonly recovered_failures: number;
  readonly false_accepts: number | null;
}

/** The cell aggregates of some runs, in first-seen order. */
export function cellAggregates(rows: readonly RunRow[]): CellAggregate[] {
  return [...groupBy(rows, (r) => cellKey(r.task, r.method)).values()].map((runs) => {
    const passedTimes = runs.filter((r) => r.passed).map((r) => r.wall_s!);
    const resimulated = runs.filter((r) => r.false_accepts !== null);
    return {
      task: runs[0]!.task,
      method: runs[0]!.method,
      runs: runs.length,
      passed: passedTimes.length,
      sample: timeSample(runs),
      passed_time_s: median(passedTimes),
      passed_time_iqr_s: iqr(passedTimes),
      medians: fieldMedians(runs),
      recovered_failures: runs.reduce((sum, r) => sum + r.recovered_failures, 0),
      false_accepts: resimulated.length ? resimulated.reduce((sum, r) => sum + r.false_accepts!, 0) : null,
    };
  });
}

/** One row per (task, method), sorted by task then method. */
export function cellSummaries(cells: readonly CellAggregate[], bootstrap: BootstrapSettings): CellSummary[] {
  return cells
    .map((cell) => ({
      task: cell.task,
      method: cell.method,
      runs: cell.runs,
      passed: cell.passed,
      pass_rate: wilson(cell.passed, cell.runs),
      time_to_pass: timeToPassOf(cell.sample, bootstrap),
      passed_time_s: cell.passed_time_s,
      passed_time_iqr_s: cell.passed_time_iqr_s,
      medians: cell.medians,
      recovered_failures: cell.recovered_failures,
      false_accepts: cell.false_accepts,
    }))
    .sort((a, b) => a.task.localeCompare(b.task) || a.method.localeCompare(b.method));
}

/** How a method's runs are compared: by what data recorded about them (names are only a fallback). */
export type MethodKind = 'reference' | 'compared' | 'seeded_fault' | 'fault_check' | 'codesign';

export interface MethodSummary {
  readonly method: string;
  readonly kind: MethodKind;
  readonly tasks: number;
  readonly runs: number;
  readonly passed: number;
  readonly pass_rate: Proportion | null;
  /** Pooled over all the method's runs of all tasks. */
  readonly time_to_pass: TimeToPass;
  /** The original's: median wall time of passed runs, pooled over tasks. */
  readonly passed_time_s: number | null;
  readonly machine_s: number | null;
  readonly llm_usd_total: number;
  readonly compute_usd_total: number;
  readonly total_usd: number;
  /** Total dollars divided by passes; null with no pass. */
  readonly usd_per_pass: number | null;
  /** What the method spent over all its runs, passed or not, divided by its passes; null with no pass. */
  readonly per_pass: PerPass | null;
}

/** Spending per passed run: each total over a method's runs divided by its passes. */
export interface PerPass {
  readonly llm_usd: number;
  readonly compute_usd: number;
  readonly input_tokens: number;
  /** Output tokens other than thinking. */
  readonly output_tokens: number;
  readonly thinking_tokens: number;
  /** Build, simulation and probe seconds. */
  readonly machine_s: number;
}

/** The RunRow totals a PerPass divides. */
const PER_PASS_FIELDS = [
  'llm_usd',
  'compute_usd',
  'input_tokens',
  'output_tokens',
  'thinking_tokens',
  'machine_s',
] as const satisfies readonly (keyof PerPass & keyof RunRow)[];

/**
 * A method's kind: a co-design search when its runs recorded evaluations (or, with none, its name
 * starts with codesign_ as in the original); a fault check when its runs carry a fault and its name
 * starts with faultcheck_; a seeded fault when they carry any other fault.
 */
export function methodKind(
  method: string,
  runs: { readonly evaluated: boolean; readonly faulted: boolean },
  reference: string,
): MethodKind {
  if (method === reference) return 'reference';
  if (runs.evaluated || method.startsWith('codesign_')) return 'codesign';
  if (runs.faulted) return method.startsWith('faultcheck_') ? 'fault_check' : 'seeded_fault';
  return 'compared';
}

/** Each method's kind, in the order the methods first appear. */
export function methodKinds(rows: readonly RunRow[], reference: string): Map<string, MethodKind> {
  const kinds = new Map<string, MethodKind>();
  for (const [method, runs] of groupBy(rows, (r) => r.method)) {
    const evaluated = runs.some((r) => r.evaluations > 0);
    kinds.set(method, methodKind(method, { evaluated, faulted: runs.some((r) => r.fault !== null) }, reference));
  }
  return kinds;
}

/** What a per-method row is computed from (see CellAggregate). */
export interface MethodAggregate {
  readonly method: string;
  readonly tasks: number;
  readonly runs: number;
  readonly passed: number;
  readonly sample: TimeSample;
  readonly passed_time_s: number | null;
  readonly machine_s: number | null;
  /** Sums over the method's runs, each in whole SUM_UNITS (see unitSum). */
  readonly sums: Readonly<Record<SummedField, number>>;
}

/** The RunRow numbers a method row sums. */
export const SUMMED_FIELDS = ['total_usd', ...PER_PASS_FIELDS] as const;
export type SummedField = (typeof SUMMED_FIELDS)[number];

/** What a summed field is counted in: nanodollars, microseconds, tokens. */
export const SUM_UNITS: Readonly<Record<SummedField, number>> = {
  total_usd: 1e9,
  llm_usd: 1e9,
  compute_usd: 1e9,
  input_tokens: 1,
  output_tokens: 1,
  thinking_tokens: 1,
  machine_s: 1e6,
};

/**
 * A sum of values rounded to whole units. Adding integers is exact (below 2^53 units: $9M, or 285
 * years), so the sum is the same in any order, here and in SQL (summary.ts), where a float sum's
 * last bits would depend on the order rows arrive in.
 */
export function unitSum(values: Iterable<number>, unit: number): number {
  let units = 0;
  for (const value of values) units += Math.floor(value * unit + 0.5);
  return units / unit;
}

/** The method aggregates of some runs, in first-seen order. */
export function methodAggregates(rows: readonly RunRow[]): MethodAggregate[] {
  return [...groupBy(rows, (r) => r.method)].map(([method, runs]) => {
    const passed = runs.filter((r) => r.passed);
    return {
      method,
      tasks: new Set(runs.map((r) => r.task)).size,
      runs: runs.length,
      passed: passed.length,
      sample: timeSample(runs),
      passed_time_s: median(passed.map((r) => r.wall_s!)),
      machine_s: median(runs.map((r) => r.machine_s)),
      sums: Object.fromEntries(
        SUMMED_FIELDS.map((f) => [
          f,
          unitSum(
            runs.map((r) => r[f]),
            SUM_UNITS[f],
          ),
        ]),
      ) as unknown as Record<SummedField, number>,
    };
  });
}

export function methodSummaries(
  methods: readonly MethodAggregate[],
  kinds: ReadonlyMap<string, MethodKind>,
  bootstrap: BootstrapSettings,
): MethodSummary[] {
  return methods
    .map(({ method, tasks, runs, passed, sample, passed_time_s, machine_s, sums }) => {
      const perPass = passed
        ? (Object.fromEntries(PER_PASS_FIELDS.map((f) => [f, sums[f] / passed])) as unknown as PerPass)
        : null;
      return {
        method,
        kind: kinds.get(method)!,
        tasks,
        runs,
        passed,
        pass_rate: wilson(passed, runs),
        time_to_pass: timeToPassOf(sample, bootstrap),
        passed_time_s,
        machine_s,
        llm_usd_total: sums.llm_usd,
        compute_usd_total: sums.compute_usd,
        total_usd: sums.total_usd,
        usd_per_pass: passed ? sums.total_usd / passed : null,
        per_pass: perPass,
      };
    })
    .sort((a, b) => a.method.localeCompare(b.method));
}

export interface PairedDifference {
  /** Median over the paired tasks of (method − reference). */
  readonly median: number | null;
  /** Percentile-bootstrap 95% interval of that median, resampling tasks. */
  readonly ci: Interval | null;
}

export interface Comparison {
  readonly method: string;
  readonly reference: string;
  /** LoopOptions that differ from the reference's, as `name=value` (empty when none were recorded). */
  readonly changes: readonly string[];
  /** Tasks both methods ran. */
  readonly tasks: number;
  /** Pass rates over the paired tasks. */
  readonly pass_rate: Proportion | null;
  readonly reference_pass_rate: Proportion | null;
  /** Per task: median time to pass (failures at budget) of the method minus the reference's. */
  readonly time_difference_s: PairedDifference;
  /** Exact two-sided Wilcoxon signed-rank test on those per-task differences. */
  readonly test: SignedRankTest;
  /** Holm-adjusted p over every method compared with the reference in this analysis. */
  readonly p_holm: number | null;
  /** The same per-task paired differences for the effort numbers (cell medians). */
  readonly builds_difference: PairedDifference;
  readonly llm_calls_difference: PairedDifference;
  readonly total_usd_difference: PairedDifference;
  readonly per_task: readonly { readonly task: string; readonly method_s: number; readonly reference_s: number }[];
}

/** Fewer paired tasks than this make p < 0.05 unreachable for the exact test (2/2^5 = 0.0625). */
export const MIN_TASKS_FOR_SIGNIFICANCE = 6;

/**
 * Each compared method against the reference, task by task. The pairs are the tasks where both
 * have counted runs; the per-task value is the cell median (time to pass with failures at budget),
 * so a method that fails is compared, not dropped.
 */
export function comparisons(
  cells: readonly CellSummary[],
  kinds: ReadonlyMap<string, MethodKind>,
  methodOptions: ReadonlyMap<string, Record<string, unknown>>,
  reference: string,
  bootstrap: BootstrapSettings,
): Comparison[] {
  const byMethod = groupBy(cells, (c) => c.method);
  const referenceByTask = new Map((byMethod.get(reference) ?? []).map((c) => [c.task, c]));
  const compared = [...kinds].filter(([, kind]) => kind === 'compared').map(([method]) => method);
  const results = compared.sort().map((method) => {
    const pairs = (byMethod.get(method) ?? []).flatMap((c) => {
      const ref = referenceByTask.get(c.task);
      return ref && c.time_to_pass.median_s !== null && ref.time_to_pass.median_s !== null ? [{ cell: c, ref }] : [];
    });
    const paired = (value: (c: CellSummary) => number | null): PairedDifference => {
      const diffs = pairs.flatMap(({ cell, ref }) => {
        const a = value(cell);
        const b = value(ref);
        return a === null || b === null ? [] : [roundTo(a - b)];
      });
      return {
        median: median(diffs),
        ci: bootstrapMedian(diffs, bootstrap),
      };
    };
    const time = (c: CellSummary) => c.time_to_pass.median_s;
    const rate = (side: 'cell' | 'ref') =>
      wilson(
        pairs.reduce((s, p) => s + p[side].passed, 0),
        pairs.reduce((s, p) => s + p[side].runs, 0),
      );
    return {
      method,
      reference,
      changes: optionChanges(methodOptions.get(method), methodOptions.get(reference)),
      tasks: pairs.length,
      pass_rate: rate('cell'),
      reference_pass_rate: rate('ref'),
      time_difference_s: paired(time),
      test: signedRankTest(pairs.map(({ cell, ref }) => time(cell)! - time(ref)!)),
      p_holm: null as number | null,
      builds_difference: paired((c) => c.medians.builds),
      llm_calls_difference: paired((c) => c.medians.llm_calls),
      total_usd_difference: paired((c) => c.medians.total_usd),
      per_task: pairs.map(({ cell, ref }) => ({ task: cell.task, method_s: time(cell)!, reference_s: time(ref)! })),
    };
  });
  const adjusted = holm(results.map((r) => (r.tasks ? r.test.p : null)));
  return results.map((r, i) => ({ ...r, p_holm: adjusted[i] ?? null }));
}

function roundTo(value: number): number {
  return Math.round(value / DIFFERENCE_PRECISION_S) * DIFFERENCE_PRECISION_S;
}

/** `name=value` for each option of `options` that differs from `reference`'s. */
export function optionChanges(
  options: Record<string, unknown> | undefined,
  reference: Record<string, unknown> | undefined,
): string[] {
  if (!options || !reference) return [];
  const names = [...new Set([...Object.keys(options), ...Object.keys(reference)])].sort();
  return names
    .filter((name) => JSON.stringify(options[name]) !== JSON.stringify(reference[name]))
    .map((name) => `${name}=${JSON.stringify(options[name] ?? null)}`);
}

export interface RecoveryRow {
  readonly fault: string;
  readonly method: string;
  readonly tasks: number;
  readonly runs: number;
  /** Runs that passed despite the broken first plan. */
  readonly recovered: Proportion | null;
  /** Median iterations a recovered run used (the broken plan is iteration 1 of them). */
  readonly iterations_to_recover: number | null;
  /** How many runs each stage caught the fault in (see CATCH_STAGES). */
  readonly caught_by: Readonly<Record<CatchStage, number>>;
}

/** What a recovery row is computed from: its counts, `recovered` being the runs that passed. */
export type RecoveryAggregate = Omit<RecoveryRow, 'recovered'> & { readonly recovered: number };

/** Runs of seeded faults (not fault checks), grouped by fault and method in first-seen order. */
export function recoveryAggregates(
  rows: readonly RunRow[],
  kinds: ReadonlyMap<string, MethodKind>,
): RecoveryAggregate[] {
  const seeded = rows.filter((r) => r.fault !== null && kinds.get(r.method) !== 'fault_check');
  return [...groupBy(seeded, (r) => `${r.fault}\u0000${r.method}`).values()].map((runs) => {
    const recovered = runs.filter((r) => r.passed);
    const caught = Object.fromEntries(CATCH_STAGES.map((s) => [s, 0])) as Record<CatchStage, number>;
    for (const run of runs) caught[run.caught_by]++;
    return {
      fault: runs[0]!.fault!,
      method: runs[0]!.method,
      tasks: new Set(runs.map((r) => r.task)).size,
      runs: runs.length,
      recovered: recovered.length,
      iterations_to_recover: median(recovered.map((r) => r.iterations)),
      caught_by: caught,
    };
  });
}

/** Seeded fault × method: recovered, iterations to recover, and which stage caught the fault. */
export function recoveryTable(aggregates: readonly RecoveryAggregate[]): RecoveryRow[] {
  return aggregates
    .map((a) => ({ ...a, recovered: wilson(a.recovered, a.runs) }))
    .sort((a, b) => a.fault.localeCompare(b.fault) || a.method.localeCompare(b.method));
}

export interface FaultCheckRow {
  readonly fault: string;
  readonly method: string;
  readonly tasks: number;
  readonly runs: number;
  readonly failed: number;
  /** The fault is verified when every check run failed, as the original's protocol asks. */
  readonly verified: boolean;
}

export function faultChecks(rows: readonly RunRow[], kinds: ReadonlyMap<string, MethodKind>): FaultCheckRow[] {
  const checks = rows.filter((r) => kinds.get(r.method) === 'fault_check');
  return sortFaultChecks(
    [...groupBy(checks, (r) => `${r.fault}\u0000${r.method}`).values()].map((runs) => {
      const failed = runs.filter((r) => !r.passed).length;
      return {
        fault: runs[0]!.fault!,
        method: runs[0]!.method,
        tasks: new Set(runs.map((r) => r.task)).size,
        runs: runs.length,
        failed,
        verified: failed === runs.length,
      };
    }),
  );
}

/** Fault checks by fault; rows of one fault stay in first-seen order. */
export const sortFaultChecks = (rows: FaultCheckRow[]) => rows.sort((a, b) => a.fault.localeCompare(b.fault));
