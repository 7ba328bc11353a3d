/**
 * seeded_<fault>: the full loop with its first plan broken by the fault through the loop's plan
 * hook (later plans come from the objective and the feedback). faultcheck_<fault>: the expert
 * configuration with the fault, no LLM, expected to fail. Both run only where the fault applies.
 */
import { SEEDED_FAULTS, breakTask, faultApplies, firstPlanBreaker, type SeededFault } from '../faults/seeded.ts';
import { designMethod } from './expert.ts';
import { loopMethod } from './loop.ts';
import { isBringup, type Method, type MethodTask } from './types.ts';

const appliesTo = (fault: SeededFault) => (task: MethodTask) =>
  isBringup(task) && faultApplies(fault, task.spec.core, task.spec.target_mesh);

export function seededMethod(fault: SeededFault): Method {
  return loopMethod({
    name: `seeded_${fault.name}`,
    summary: `the full loop with its first plan broken: ${fault.description}`,
    planHook: firstPlanBreaker(fault),
    fault,
    applies: appliesTo(fault),
  });
}

export function faultCheckMethod(fault: SeededFault): Method {
  return designMethod({
    name: `faultcheck_${fault.name}`,
    summary: `the expert configuration broken (expected to fail): ${fault.description}`,
    fault,
    applies: appliesTo(fault),
    design: (expert) => breakTask(fault, expert),
  });
}

export const faultMethods: readonly Method[] = SEEDED_FAULTS.flatMap((fault) => [
  seededMethod(fault),
  faultCheckMethod(fault),
]);
