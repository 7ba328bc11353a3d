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
  type PlanProblem,
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

/** What the plan check compares a plan with, apart from the spec and options: the run's history and checkout. */
export type PlanCheckInputs = Omit<PlanCheckContext, 'spec' | 'rtlEdits'> & {
  readonly defineIndex: ReadonlySet<string>;
};

export interface PlanningInput {
  readonly spec: MaceSpec;
  readonly llm: RunLlm;
  readonly options: LoopOptions;
  readonly iteration: number;
  readonly feedback: string;
  /** Everything check_plan needs; absent when the plan check is off. */
  readonly check: PlanCheckInputs | undefined;
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

    const checked = checkedPlan(tasks, attempt, spec, options.rtl_edits, input.check);
    tasks = checked.tasks;
    if (checked.recorded)
      await look({
        attempt,
        action: checked.action,
        problems: checked.problems,
        stripped: checked.stripped,
        added: checked.added,
        plan: tasks,
      });
    if (checked.action === 'rejected') {
      rejected = tasks;
      rejection = describeProblems(checked.problems);
      continue;
    }
    return { ok: true, tasks, looks, replies };
  }
}

/** The plan check's look at one usable plan: the plan after strip and add, and what the check found. */
export interface CheckedPlan {
  readonly tasks: Task[];
  readonly problems: PlanProblem[];
  readonly stripped: Record<string, string[]>;
  readonly added: Record<string, string[]>;
  /** rejected: sent back for a retry; kept: runs with its problems, no retry left; accepted: no problem. */
  readonly action: Exclude<PlanCheckAction, 'unusable'>;
  /** The store records a look that found something, and every retry's look. */
  readonly recorded: boolean;
}

/**
 * strip_unknown_defines, add_required_defines and check_plan over one plan, as the loop runs them at
 * this attempt; plan replay calls the same function over recorded plans.
 */
export function checkedPlan(
  tasks: readonly Task[],
  attempt: number,
  spec: MaceSpec,
  rtlEdits: boolean,
  check: PlanCheckInputs,
): CheckedPlan {
  const stripped = stripUnknownDefines(tasks, check.defineIndex, spec.objective);
  const added = addRequiredDefines(stripped.tasks, check.requiredDefines);
  const problems = checkPlan(added.tasks, { ...check, spec, rtlEdits });
  const found =
    problems.length > 0 || Object.keys(stripped.changed).length > 0 || Object.keys(added.changed).length > 0;
  const action = !problems.length ? 'accepted' : attempt < MAX_PLAN_REJECTIONS ? 'rejected' : 'kept';
  return {
    tasks: added.tasks,
    problems,
    stripped: stripped.changed,
    added: added.changed,
    action,
    recorded: found || attempt > 0,
  };
}
