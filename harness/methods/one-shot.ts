/**
 * one_shot (B1): the planner's prompt answered once. One iteration, nothing diagnosed, no
 * post-mortem; also the "no re-plan" ablation.
 */
import { loopMethod } from './loop.ts';

export const oneShot = loopMethod({
  name: 'one_shot',
  summary: 'B1: one plan, built and checked once; no triage, no re-plan, no post-mortem',
  options: { triage: 'off', post_mortem: false },
  spec: (spec) => ({ ...spec, budget: { ...spec.budget, max_iterations: 1 } }),
});
