/** mace: the full loop, every option at its default, on every checkout the study gives a job. */
import { loopMethod } from './loop.ts';

export const mace = loopMethod({
  name: 'mace',
  summary: 'MACE: the full loop (plan, plan check, fast path, build and simulate, narrowing, triage, re-plan)',
});
