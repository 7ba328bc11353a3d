/**
 * The analysis library: what the report CLI, the figures and the notebooks import. No caller writes
 * SQL or statistics of its own; they read these typed results.
 *
 * @example
 *   import { analyseFiles, summariseFiles } from '../harness/analysis/index.ts';
 *   const analysis = await analyseFiles(['runs/quickstart.duckdb']);
 *   analysis.comparisons.map((c) => [c.method, c.time_difference_s.median, c.test.p]);
 *   const report = await summariseFiles(['runs/quickstart.duckdb']); // the tables without the run rows, faster
 *
 *   const replay = await replayPlans('runs/quickstart.duckdb', { checkout: { root, chosen: 'mine' } });
 *   replay.runs.map((r) => [r.run_id, r.saved_builds, r.saved_usd]); replay.total.saved_usd;
 */
export {
  analyse,
  analyseFiles,
  analyseSources,
  buildReport,
  summariseFiles,
  DEFAULT_REFERENCE,
  DEFAULT_RESAMPLES,
  DEFAULT_SEED,
  type Analysis,
  type AnalysisCounts,
  type AnalysisOptions,
  type AnalysisSettings,
  type Report,
  type ReportParts,
} from './analyse.ts';
export { summaryParts } from './summary.ts';
export {
  CATCH_STAGES,
  DEFAULT_HOURLY_USD,
  RUN_ROW_COLUMNS,
  counted,
  loadRuns,
  type CatchStage,
  type EvaluationPoint,
  type LoadedRuns,
  type RunRow,
} from './runs.ts';
export {
  MEDIAN_FIELDS,
  MIN_TASKS_FOR_SIGNIFICANCE,
  timeSample,
  timeToPass,
  timeToPassOf,
  type CellAggregate,
  type CellSummary,
  type Comparison,
  type FaultCheckRow,
  type MethodAggregate,
  type MethodKind,
  type MethodSummary,
  type PairedDifference,
  type PerPass,
  type RecoveryAggregate,
  type RecoveryRow,
  type TimeSample,
  type TimeToPass,
} from './tables.ts';
export type { CodesignSearch, CodesignSummary } from './codesign.ts';
export {
  DIFFERENCE_PRECISION_S,
  bootstrapMedian,
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
export { formatRate, formatTime, renderMarkdown, runRowsCsv } from './report.ts';
export { EXPORT_FORMATS, exportDatabase, type ExportFormat, type ExportedTable } from './export.ts';
export { importOriginal, type ImportReport } from './original.ts';
export {
  DEFAULT_REPLAY_OVERRIDES,
  REPLAY_COUNTS,
  REPLAY_OPTIONS,
  describeOverrides,
  parseReplayOptions,
  replayPlans,
  type PlanLookReplay,
  type PlanReplay,
  type PlanReplayOptions,
  type PlanReplayRun,
  type PlanReplayTotal,
  type ReplayCheckout,
  type ReplayCount,
  type ReplayCounts,
  type ReplayOption,
  type ReplayOverrides,
} from './plan-replay.ts';
export { renderPlanReplay } from './replay-report.ts';
export { chooseReplayCheckout, planSavings, type PlanSavings, type SwitchSaving } from './replay-savings.ts';
export { duckdbSource, type Source } from './source.ts';
export {
  TIMELINE_KINDS,
  runDetails,
  runTimeline,
  showcaseRun,
  type RunTimeline,
  type TimelineBar,
  type TimelineKind,
} from './run.ts';
export type { RunTrace } from '../../mace/store/readers.ts';
export { copyToSqlite, sqliteSource } from './sqlite.ts';
