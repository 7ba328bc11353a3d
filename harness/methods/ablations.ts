/**
 * The ablations that only change loop options, each named after what it removes (rtl_edits turns
 * on what the default leaves off). build_check and one_checkout, which change more than an option,
 * have their own modules. A study can add more without code: a method with `base` and `options`.
 */
import type { LoopOptions } from '../../mace/spec.ts';
import { loopMethod } from './loop.ts';
import type { Method } from './types.ts';

const ABLATIONS: readonly (readonly [name: string, options: Partial<LoopOptions>, summary: string])[] = [
  ['no_triage', { triage: 'raw' }, "A1: no triage; the re-plan gets the failed task's raw evidence"],
  ['triage_off', { triage: 'off' }, 'no triage and no evidence: the re-plan gets nothing'],
  ['no_reuse', { reuse_builds: false }, 'A5: every build is clean; no earlier model is reused'],
  ['no_task_prompts', { task_prompts: false }, 'tasks make no LLM call of their own'],
  ['no_post_mortem', { post_mortem: false }, 'a run that does not pass gets no post-mortem'],
  ['rtl_edits', { rtl_edits: true }, 'the planner may emit rtl tasks, whose agents edit the RTL'],
  ['no_plan_check', { plan_check: false }, 'each plan runs as the planner wrote it (no plan check)'],
  ['no_raw_evidence', { raw_evidence: false }, "the re-plan gets triage's label and fix without the build's report"],
  ['no_narrowing', { narrowing: false }, 'a failed task goes to triage without narrowing probes'],
  ['no_fast_path', { fast_path: false }, 'every plan keeps all its tasks and their LLM calls'],
  ['planner_thinking_none', { planner_thinking: null }, "no cap on the planner's thinking tokens"],
  ['no_gate_pass', { gate_pass_ends_run: false }, 'a run passes only when every task of an iteration passes'],
  [
    'no_carry_edits',
    { carry_edits: false },
    'each iteration starts from the design as it stands, without carried RTL edits',
  ],
];

export const optionAblations: readonly Method[] = ABLATIONS.map(([name, options, summary]) =>
  loopMethod({ name, options, summary }),
);
