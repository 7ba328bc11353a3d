/**
 * codesign_bayes: Optuna's TPE sampler (over the bridge in optuna.ts), one categorical knob per
 * dimension of the space, minimising the finish time. A design that is infeasible (rejected, failed,
 * or over budget) scores ten times the slowest feasible finish seen so far (1e12 before any), so TPE
 * learns to avoid it without the penalty swamping the scale of real finish times.
 */
import { describeDesign, type Design } from './design.ts';
import { OptunaStudy } from './optuna.ts';
import { designFromKnobs, spaceKnobs, type DesignSpace } from './space.ts';
import type { Evaluation, Strategy } from './strategy.ts';

/** Asks allowed per wanted design before giving up on finding unseen ones. */
const ASKS_PER_DESIGN = 20;
const PENALTY_FACTOR = 10;
const PENALTY_BEFORE_ANY = 1e12;

export async function bayesSearch(space: DesignSpace, seed: number, python?: string): Promise<Strategy> {
  const study = await OptunaStudy.open({ knobs: spaceKnobs(space), seed, ...(python ? { python } : {}) });
  /** Scores of designs already evaluated: asking for one again is answered at once. */
  const scores = new Map<string, number>();
  /** Trials asked for a design now being evaluated, told when it is observed. */
  const pending = new Map<string, number[]>();
  let slowest: number | null = null;

  const score = (e: Evaluation): number =>
    e.feasible && e.simTime !== null ? e.simTime : slowest === null ? PENALTY_BEFORE_ANY : PENALTY_FACTOR * slowest;

  return {
    name: 'bayes',
    async propose(_history, n) {
      const out = new Map<string, Design>();
      for (let i = 0; i < ASKS_PER_DESIGN * Math.max(n, 1) && out.size < n; i++) {
        const { trial, params } = await study.ask();
        const design = designFromKnobs(params);
        const key = describeDesign(design);
        const known = scores.get(key);
        if (known !== undefined) {
          await study.tell(trial, known);
          continue;
        }
        pending.set(key, [...(pending.get(key) ?? []), trial]);
        out.set(key, design);
      }
      return [...out.values()];
    },
    async observe(evaluations) {
      for (const e of evaluations) if (e.feasible && e.simTime !== null) slowest = Math.max(slowest ?? 0, e.simTime);
      for (const e of evaluations) {
        const key = describeDesign(e.design);
        const value = score(e);
        scores.set(key, value);
        for (const trial of pending.get(key) ?? []) await study.tell(trial, value);
        pending.delete(key);
      }
    },
    close: () => study.close(),
  };
}
