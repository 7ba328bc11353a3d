/**
 * Replaying the calibration table through a checkout with the adapter: build each row's
 * configuration, run its diag, and compare what the adapter reads (verdict, failure reason, first
 * error, simulated time) with what the real run showed, plus how long each took against the real
 * seconds scaled by the checkout's speed.
 */
import type { BuildArtifact, BuildOptions, RunOptions, RunResult } from '../../artifacts.ts';
import { makeConfig, PitonConfigError, wayViolations, type PitonConfig } from '../../config.ts';
import { DIAG_ROOTS, type CalibrationRow } from './table.ts';

/** What calibration needs of a workspace (the adapter's Workspace has both). */
export interface CalibrationWorkspace {
  readonly root: string;
  build(config: PitonConfig, options?: BuildOptions): Promise<BuildArtifact>;
  run(config: PitonConfig, test: string, options?: RunOptions): Promise<RunResult>;
}

export type RowOutcome =
  /** The adapter read what the real run showed. */
  | 'agree'
  | 'disagree'
  /** The adapter refuses this configuration before any build (bad geometry, Ariane's way rule), by design. */
  | 'refused';

export interface RowReport {
  readonly id: string;
  readonly outcome: RowOutcome;
  /** What the real run showed: `pass`, `timeout`, `build:verilog_error`, ... */
  readonly expected: string;
  readonly observed: string;
  /** Both sides' verdict times, when the real row has one. */
  readonly simTime?: { readonly real: number; readonly observed: number | null };
  readonly firstError?: { readonly real: string; readonly observed: string };
  /** Wall seconds over the real seconds × speed (null without a real time or when reused). */
  readonly buildRatio: number | null;
  readonly runRatio: number | null;
  readonly why: string;
}

export interface CalibrationOptions {
  /** The checkout's speed factor (1 for a real checkout). */
  readonly speed: number;
  /** Seconds every sims call costs whatever it does (shell, login profile, sims' start); subtracted before a ratio. */
  readonly overheadS?: number;
  /** Told about each row as it finishes. */
  readonly onRow?: (report: RowReport, index: number, total: number) => void;
}

/** The configuration a row describes. MINIMAL_MONITORING is added as the adapter always does. */
export function rowConfig(row: CalibrationRow): PitonConfig {
  return makeConfig({
    core: row.core,
    x_tiles: row.xTiles,
    y_tiles: row.yTiles,
    network_config: row.network,
    config_rtl: [...new Set(['MINIMAL_MONITORING', ...row.configRtl])],
    caches: { ...row.caches },
  });
}

export function runOptions(row: CalibrationRow, speed: number): RunOptions {
  const run = row.run!;
  return {
    precompiled: run.precompiled,
    ...(run.diagRoot ? { asmDiagRoot: DIAG_ROOTS[run.diagRoot] } : {}),
    finishMask: run.finishMask,
    ...(run.rtlTimeout !== undefined ? { rtlTimeout: run.rtlTimeout } : {}),
    ...(run.maxCycle !== undefined ? { maxCycle: run.maxCycle } : {}),
    // The real run was stopped after kill_s; replaying it stops it after the same scaled time.
    ...(run.killAfterS !== undefined ? { timeoutS: Math.max(1, run.killAfterS * speed) } : {}),
  };
}

/** Below this many scaled seconds the per-call overhead's jitter swamps a ratio, so none is given. */
export const MIN_SCALED_SECONDS = 0.25;

/** Observed seconds, less the per-call overhead, over the real seconds at the checkout's speed. */
const ratio = (wall: number, real: number | undefined, speed: number, overheadS: number): number | null =>
  real && real * speed >= MIN_SCALED_SECONDS ? Math.max(0, wall - overheadS) / (real * speed) : null;

/**
 * What one sims call costs before it does anything: a run of a diag that does not exist dies right
 * after looking for it. At a small speed factor this overhead is most of a call.
 */
export async function measureOverhead(workspace: CalibrationWorkspace, row: CalibrationRow): Promise<number> {
  const result = await workspace.run(rowConfig(row), 'mace-calibration-overhead.S', { finishMask: '' });
  return result.wallTimeS;
}

/** Replay `rows` through `workspace`, in order (builds of one configuration are reused). */
export async function calibrate(
  workspace: CalibrationWorkspace,
  rows: readonly CalibrationRow[],
  options: CalibrationOptions,
): Promise<RowReport[]> {
  const reports: RowReport[] = [];
  const costs = { speed: options.speed, overheadS: options.overheadS ?? 0 };
  for (const [index, row] of rows.entries()) {
    const report = await calibrateRow(workspace, row, costs);
    reports.push(report);
    options.onRow?.(report, index, rows.length);
  }
  return reports;
}

async function calibrateRow(
  workspace: CalibrationWorkspace,
  row: CalibrationRow,
  { speed, overheadS }: { speed: number; overheadS: number },
): Promise<RowReport> {
  const expected = row.buildOk === false ? `build:${row.buildFailure}` : (row.run?.verdict ?? 'built');
  let config: PitonConfig;
  try {
    config = rowConfig(row);
  } catch (error) {
    if (!(error instanceof PitonConfigError)) throw error;
    const why = `the adapter refuses this configuration before any build (${error.message}); OpenPiton itself built it`;
    return { id: row.id, outcome: 'refused', expected, observed: 'refused', buildRatio: null, runRatio: null, why };
  }
  const built = await workspace.build(config);
  const buildRatio = built.reused ? null : ratio(built.wallTimeS, row.buildSeconds, speed, overheadS);
  if (!built.success) {
    const observed = `build:${built.failureReason}`;
    if (built.failureReason === 'way_rule' && wayViolations(config).length)
      return {
        id: row.id,
        outcome: 'refused',
        expected,
        observed,
        buildRatio: null,
        runRatio: null,
        why: `the adapter refuses Ariane's way rule before any build (${wayViolations(config).join('; ')}); OpenPiton itself built it`,
      };
    const realError = row.firstError.replaceAll('$PITON_ROOT', workspace.root);
    const firstError = built.errors[0] ?? '';
    const agree = expected === observed && (!row.firstError || firstError === realError);
    return {
      id: row.id,
      outcome: agree ? 'agree' : 'disagree',
      expected,
      observed,
      ...(row.firstError ? { firstError: { real: realError, observed: firstError } } : {}),
      buildRatio,
      runRatio: null,
      why: agree
        ? 'the build fails as it did'
        : `the build failed differently: ${firstError || built.stdout.slice(-200)}`,
    };
  }
  if (!row.run)
    return {
      id: row.id,
      outcome: expected === 'built' ? 'agree' : 'disagree',
      expected,
      observed: 'built',
      buildRatio,
      runRatio: null,
      why: expected === 'built' ? 'it builds' : 'it builds, but the real build failed',
    };

  const result = await workspace.run(config, row.run.diag, runOptions(row, speed));
  const killed = result.returncode === -1;
  const observed = killed ? 'killed' : (result.verdict ?? 'no verdict');
  const real = row.run.simTime;
  const timeAgrees = real === undefined || result.simTime === real;
  const agree = observed === expected && timeAgrees;
  return {
    id: row.id,
    outcome: agree ? 'agree' : 'disagree',
    expected,
    observed,
    ...(real !== undefined ? { simTime: { real, observed: result.simTime } } : {}),
    buildRatio,
    runRatio: killed ? null : ratio(result.wallTimeS, row.run.seconds, speed, overheadS),
    why: agree
      ? 'same verdict' + (real !== undefined ? ' at the same simulated time' : '')
      : observed !== expected
        ? `verdict ${observed}, the real run ${expected}`
        : `simulated time ${result.simTime}, the real run ${real}`,
  };
}

export interface CalibrationSummary {
  readonly rows: number;
  readonly agree: number;
  readonly disagree: number;
  readonly refused: number;
  readonly exactSimTimes: number;
  readonly simTimes: number;
  readonly buildRatio: RatioSummary | null;
  readonly runRatio: RatioSummary | null;
}

export interface RatioSummary {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly n: number;
}

function ratioSummary(values: readonly number[]): RatioSummary | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted.at(-1)!, n: sorted.length };
}

export function summarise(reports: readonly RowReport[]): CalibrationSummary {
  const times = reports.filter((r) => r.simTime);
  return {
    rows: reports.length,
    agree: reports.filter((r) => r.outcome === 'agree').length,
    disagree: reports.filter((r) => r.outcome === 'disagree').length,
    refused: reports.filter((r) => r.outcome === 'refused').length,
    exactSimTimes: times.filter((r) => r.simTime!.observed === r.simTime!.real).length,
    simTimes: times.length,
    buildRatio: ratioSummary(reports.flatMap((r) => (r.buildRatio === null ? [] : [r.buildRatio]))),
    runRatio: ratioSummary(reports.flatMap((r) => (r.runRatio === null ? [] : [r.runRatio]))),
  };
}
