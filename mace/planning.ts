/**
 * An iteration's plan: one planner call, then the plan check before any build. A reply with no plan
 * and a plan the check rejects both go back to the planner (phase plan_retry) with the reasons, at
 * most MAX_PLAN_REJECTIONS times per iteration; after that a rejected plan runs as it stands.
 */
import { plan, PlanningError, taskRules, overrideRules } from './planner.ts';
import {
  MAX_PLAN_REJECTIONS,
  addRequiredDefines,
  checkPlan,
  describeProblems,
  stripUnknownDefines,
  type PlanCheckContext,
} from './plan-check.ts';
import type { RunLlm } from './llm/recorder.ts';
import type { LoopOptions, MaceSpec, Task } from './spec.ts';
import type { PlanCheckAction, PlanProblemRecord } from './store/writers.ts';

/** One look at a plan, as the store records it. */
export interface PlanLook {
  readonly attempt: number;
  readonly action: PlanCheckAction;
  /** check_plan's problems, or one `no_plan` entry for a reply that held no plan. */
  readonly problems: readonly PlanProblemRecord[];
  readonly stripped: Readonly<Record<string, string[]>>;
  readonly added: Readonly<Record<string, string[]>>;
  readonly plan: readonly Task[] | null;
}

export type PlanningOutcome =
  | { readonly ok: true; readonly tasks: Task[]; readonly looks: PlanLook[]; readonly replies: string[] }
  | { readonly ok: false; readonly error: PlanningError; readonly looks: PlanLook[]; readonly replies: string[] };

export interface PlanningInput {
  readonly spec: MaceSpec;
  readonly llm: RunLlm;
  readonly options: LoopOptions;
  readonly iteration: number;
  readonly feedback: string;
  /** Everything check_plan needs; absent when the plan check is off. */
  readonly check:
    (Omit<PlanCheckContext, 'spec' | 'rtlEdits'> & { readonly defineIndex: ReadonlySet<string> }) | undefined;
  readonly signal?: AbortSignal;
  /** Called after each look, so the store records it as it happens. */
  readonly onLook?: (look: PlanLook) => Promise<void>;
}

export async function planIteration(input: PlanningInput): Promise<PlanningOutcome> {
  const { spec, llm, options } = input;
  const looks: PlanLook[] = [];
  const replies: string[] = [];
  const look = async (entry: PlanLook) => {
    looks.push(entry);
    await input.onLook?.(entry);
  };
  let rejection = '';
  let rejected: Task[] | undefined;

  for (let attempt = 0; ; attempt++) {
    const canRetry = attempt < MAX_PLAN_REJECTIONS;
    let tasks: Task[];
    try {
      const planned = await plan(spec, llm, {
        feedback: input.feedback,
        rtlEdits: options.rtl_edits,
        rejection,
        iteration: input.iteration,
        attempt,
        thinkingBudget: options.planner_thinking,
        signal: input.signal,
      });
      replies.push(planned.reply);
      tasks = planned.tasks;
    } catch (error) {
      if (!(error instanceof PlanningError)) throw error;
      replies.push(error.reply);
      await look({
        attempt,
        action: 'unusable',
        problems: [{ rule: 'no_plan', task: null, reason: error.message }],
        stripped: {},
        added: {},
        plan: null,
      });
      if (canRetry) {
        rejection = `${error.message}\n\nWrite the plan again in the line format:\n${taskRules(options.rtl_edits)}\n${overrideRules()}`;
        continue;
      }
      if (rejected) return { ok: true, tasks: rejected, looks, replies };
      return { ok: false, error, looks, replies };
    }

    if (!options.plan_check || !input.check) return { ok: true, tasks, looks, replies };

    const stripped = stripUnknownDefines(tasks, input.check.defineIndex, spec.objective);
    const added = addRequiredDefines(stripped.tasks, input.check.requiredDefines);
    tasks = added.tasks;
    const problems = checkPlan(tasks, { ...input.check, spec, rtlEdits: options.rtl_edits });
    const found =
      problems.length > 0 || Object.keys(stripped.changed).length > 0 || Object.keys(added.changed).length > 0;
    const action: PlanCheckAction = !problems.length ? 'accepted' : canRetry ? 'rejected' : 'kept';
    if (found || attempt > 0)
      await look({ attempt, action, problems, stripped: stripped.changed, added: added.changed, plan: tasks });
    if (problems.length && canRetry) {
      rejected = tasks;
      rejection = describeProblems(problems);
      continue;
    }
    return { ok: true, tasks, looks, replies };
  }
}
