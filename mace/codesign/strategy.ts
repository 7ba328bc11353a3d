/**
 * What every co-design strategy is: given the history of evaluated proposals, propose up to n designs
 * it has not seen; then observe how they did. The search loop (search.ts) owns the rules that are the
 * same for every strategy (seen designs dropped, the area budget, the way rule, the stop rules), so a
 * comparison between strategies differs only in how they choose.
 */
import type { DesignArea } from './area.ts';
import { describeDesign, type Design } from './design.ts';

export interface Evaluation {
  readonly idx: number;
  readonly round: number;
  readonly design: Design;
  /** Built and run; false when the search rejected it before a build. */
  readonly simulated: boolean;
  /** Every gate workload passed. */
  readonly passed: boolean;
  /** Passed, with a finish time, within the area budget. */
  readonly feasible: boolean;
  /** Sum of the gate workloads' simulated finish times, when every one passed and reported one. */
  readonly simTime: number | null;
  /** Null when the area model could not price it (then `rejected` says why). */
  readonly area: DesignArea | null;
  /** Within the area budget (always, with no budget). */
  readonly fits: boolean;
  /** Why it was rejected before a build; empty when it was built. */
  readonly rejected: string;
  readonly wallS: number;
}

export interface Strategy {
  /** The method's suffix: random, grid, bayes, mace. */
  readonly name: string;
  propose(history: readonly Evaluation[], n: number): Promise<Design[]>;
  observe(evaluations: readonly Evaluation[]): Promise<void>;
  /** Release what the strategy holds (the Optuna process). */
  close(): Promise<void>;
}

/** The descriptions of every design the history holds. */
export function seenDesigns(history: readonly Evaluation[]): Set<string> {
  return new Set(history.map((e) => describeDesign(e.design)));
}

/** Keep the first `n` designs that are neither in `seen` nor repeated. */
export function firstUnseen(designs: Iterable<Design>, seen: ReadonlySet<string>, n: number): Design[] {
  const taken = new Set<string>();
  const out: Design[] = [];
  for (const design of designs) {
    if (out.length >= n) break;
    const key = describeDesign(design);
    if (seen.has(key) || taken.has(key)) continue;
    taken.add(key);
    out.push(design);
  }
  return out;
}
