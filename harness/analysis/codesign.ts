/**
 * Co-design searches, as the original reported them: each search's best feasible finish time after
 * every simulated design (its curve), and per task and method how many searches got within 5% of the
 * best finish time any search of that task found, and after how many simulations.
 */
import type { EvaluationPoint, RunRow } from './runs.ts';
import { groupBy, type MethodKind } from './tables.ts';
import { median } from './stats.ts';

export interface CodesignSearch {
  readonly run_id: string;
  readonly task: string;
  readonly method: string;
  readonly repeat: number | null;
  readonly seed: number | null;
  readonly status: string;
  readonly replaced: boolean;
  /** Designs simulated (proposals rejected before a build are not evaluations). */
  readonly evaluations: number;
  readonly rejected: number;
  readonly feasible: number;
  readonly best_sim_time: number | null;
  /** Best feasible sim_time after each simulated design; null until the first feasible one. */
  readonly curve: readonly (number | null)[];
  /** Every simulated design that passed: its cache area and finish time. */
  readonly passed: readonly { readonly area_um2: number | null; readonly sim_time: number }[];
}

export interface CodesignSummary {
  readonly task: string;
  readonly method: string;
  readonly searches: number;
  /** Median over searches of each search's best. */
  readonly best_sim_time: number | null;
  /** Best over every method's searches of the task in this analysis. */
  readonly best_known: number | null;
  /** Searches whose curve got within `within` of best_known. */
  readonly reached: number;
  /** Median 1-based simulation count at which those searches first got there. */
  readonly sims_to_near_best: number | null;
  /** Feasible share of the simulated designs. */
  readonly feasible_share: number | null;
  readonly rejected: number;
}

export function codesignSearches(
  rows: readonly Pick<RunRow, 'run_id' | 'task' | 'method' | 'repeat' | 'seed' | 'status' | 'replaced'>[],
  kinds: ReadonlyMap<string, MethodKind>,
  evaluations: readonly EvaluationPoint[],
): CodesignSearch[] {
  const byRun = groupBy(evaluations, (e) => e.run_id);
  return rows
    .filter((r) => kinds.get(r.method) === 'codesign')
    .map((run) => {
      const points = byRun.get(run.run_id) ?? [];
      const simulated = points.filter((p) => p.simulated);
      let best: number | null = null;
      const curve = simulated.map((p) => {
        if (p.feasible && p.sim_time !== null && (best === null || p.sim_time < best)) best = p.sim_time;
        return best;
      });
      return {
        run_id: run.run_id,
        task: run.task,
        method: run.method,
        repeat: run.repeat,
        seed: run.seed,
        status: run.status,
        replaced: run.replaced,
        evaluations: simulated.length,
        rejected: points.length - simulated.length,
        feasible: simulated.filter((p) => p.feasible).length,
        best_sim_time: best,
        curve,
        passed: simulated.flatMap((p) => (p.sim_time === null ? [] : [{ area_um2: p.area_um2, sim_time: p.sim_time }])),
      };
    });
}

/** One row per (task, method) over searches that were not replaced. */
export function codesignSummary(searches: readonly CodesignSearch[], within = 0.05): CodesignSummary[] {
  const current = searches.filter((s) => !s.replaced);
  const bestKnown = new Map<string, number>();
  for (const s of current) {
    if (s.best_sim_time !== null) bestKnown.set(s.task, Math.min(bestKnown.get(s.task) ?? Infinity, s.best_sim_time));
  }
  return [...groupBy(current, (s) => `${s.task}\u0000${s.method}`).values()]
    .map((group) => {
      const { task, method } = group[0]!;
      const known = bestKnown.get(task) ?? null;
      const firstNear = group.flatMap((s) => {
        const at = known === null ? -1 : s.curve.findIndex((b) => b !== null && b <= known * (1 + within));
        return at < 0 ? [] : [at + 1];
      });
      const simulated = group.reduce((n, s) => n + s.evaluations, 0);
      return {
        task,
        method,
        searches: group.length,
        best_sim_time: median(group.flatMap((s) => (s.best_sim_time === null ? [] : [s.best_sim_time]))),
        best_known: known,
        reached: firstNear.length,
        sims_to_near_best: median(firstNear),
        feasible_share: simulated ? group.reduce((n, s) => n + s.feasible, 0) / simulated : null,
        rejected: group.reduce((n, s) => n + s.rejected, 0),
      };
    })
    .sort((a, b) => a.task.localeCompare(b.task) || a.method.localeCompare(b.method));
}
