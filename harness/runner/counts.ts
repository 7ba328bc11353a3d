/**
 * Where a sweep stands, as the live view and `mace suite status` both show it: jobs done, running
 * and left, passes, dollars (LLM calls, and machine time at an hourly rate), elapsed time and an
 * estimate of the time left from the sweep's own pace so far.
 */
import { DEFAULT_HOURLY_USD } from '../analysis/runs.ts';

export interface SweepCounts {
  /** Jobs the sweep set out to run. */
  readonly total: number;
  /** Finished this sweep (any status, errors included). */
  readonly done: number;
  readonly running: number;
  readonly passed: number;
  readonly errors: number;
  readonly llmUsd: number;
  /** Build, simulation and probe seconds of the finished jobs. */
  readonly machineS: number;
  readonly elapsedS: number;
}

/** Counts of a sweep that has not started a job yet. */
export const noCounts = (total: number): SweepCounts => ({
  total,
  done: 0,
  running: 0,
  passed: 0,
  errors: 0,
  llmUsd: 0,
  machineS: 0,
  elapsedS: 0,
});

export const left = (c: SweepCounts): number => Math.max(0, c.total - c.done - c.running);

/** Seconds left at the pace so far (jobs finished per second, parallel jobs included); null before the first job ends. */
export function etaS(c: SweepCounts): number | null {
  if (!left(c) && !c.running) return 0;
  if (!c.done) return null;
  return (c.elapsedS / c.done) * (left(c) + c.running);
}

export const computeUsd = (c: SweepCounts, hourlyUsd = DEFAULT_HOURLY_USD): number => (c.machineS / 3600) * hourlyUsd;

export function formatDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

export const formatUsd = (usd: number): string => `$${usd < 10 ? usd.toFixed(4) : usd.toFixed(2)}`;

/** `12/40 done, 2 running, 26 left | 10 passed, 1 error | $0.0123 LLM + $0.0040 compute | 1m05s elapsed, ETA 3m20s` */
export function formatCounts(c: SweepCounts, hourlyUsd = DEFAULT_HOURLY_USD): string {
  return [
    `${c.done}/${c.total} done, ${c.running} running, ${left(c)} left`,
    `${c.passed} passed${c.errors ? `, ${c.errors} error${c.errors === 1 ? '' : 's'}` : ''}`,
    `${formatUsd(c.llmUsd)} LLM + ${formatUsd(computeUsd(c, hourlyUsd))} compute`,
    `${formatDuration(c.elapsedS)} elapsed, ETA ${formatDuration(etaS(c))}`,
  ].join(' | ');
}
