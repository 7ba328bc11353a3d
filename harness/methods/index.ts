/**
 * Every built-in method by name. A suite names methods from this list, or defines its own as one of
 * them plus loop-option overrides.
 */
import { optionAblations } from './ablations.ts';
import { buildCheck } from './build-check.ts';
import { codesignMethods } from './codesign.ts';
import { expert } from './expert.ts';
import { faultMethods } from './faults.ts';
import { mace } from './mace.ts';
import { oneCheckout } from './one-checkout.ts';
import { oneShot } from './one-shot.ts';
import { retryAgent } from './retry-agent.ts';
import type { Method } from './types.ts';

export type { Method, MethodContext, MethodOutcome, MethodTask } from './types.ts';

/** In the order `mace suite run --help` lists them: MACE, the baselines, the ablations, the faults, the searches. */
export const METHODS: ReadonlyMap<string, Method> = new Map(
  [
    mace,
    expert,
    oneShot,
    retryAgent,
    buildCheck,
    oneCheckout,
    ...optionAblations,
    ...faultMethods,
    ...codesignMethods,
  ].map((m) => [m.name, m]),
);

/** The ablations: the loop with one part changed (every LoopOptions field has one) and one_checkout. */
export const ABLATION_NAMES: readonly string[] = [buildCheck, oneCheckout, ...optionAblations].map((m) => m.name);

/** seeded_<fault> and faultcheck_<fault> for every seeded fault. */
export const FAULT_METHOD_NAMES: readonly string[] = faultMethods.map((m) => m.name);
