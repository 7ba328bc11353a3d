/**
 * The plan check: a look at a plan before anything is built, with no LLM call and no build.
 * strip_unknown_defines removes defines no file of the checkout mentions, add_required_defines adds
 * the defines the objective says a build needs, and check_plan lists every reason the plan cannot
 * work. The same functions serve the loop and plan replay.
 */
import { changeId, changesFromReference, configForTask, designKey, type Change } from './design.ts';
import { namedDefines } from './objective.ts';
import { wayViolations } from './openpiton/config.ts';
import type { MaceSpec, Task, TaskKind } from './spec.ts';

/** An iteration sends its plan back at most this often, counting no-plan replies and rejections together. */
export const MAX_PLAN_REJECTIONS = 2;

export const PLAN_RULES = [
  'source_edit',
  'required_define',
  'way_rule',
  'missing_module',
  'repeated_failure',
  'known_bad_change',
  'wrapper_skeleton',
] as const;
export type PlanRule = (typeof PLAN_RULES)[number];

export interface PlanProblem {
  readonly rule: PlanRule;
  readonly task: string | null;
  readonly reason: string;
}

/** Task kinds that build the design (a unit_test builds a testbench instead). */
const DESIGN_KINDS: ReadonlySet<TaskKind> = new Set(['config', 'workload', 'rtl']);

export interface DefineEdit {
  readonly tasks: Task[];
  /** Task id to the defines removed or added. */
  readonly changed: Record<string, string[]>;
}

/**
 * Remove each define that no indexed file mentions: it changes nothing but builds a second model.
 * A define the objective names stays.
 */
export function stripUnknownDefines(tasks: readonly Task[], index: ReadonlySet<string>, objective: string): DefineEdit {
  const keep = new Set(namedDefines(objective));
  const changed: Record<string, string[]> = {};
  const out = tasks.map((task) => {
    const unknown = (task.config_rtl ?? []).filter((d) => !index.has(d) && !keep.has(d));
    if (!unknown.length) return task;
    changed[task.id] = unknown;
    const rest = task.config_rtl!.filter((d) => !unknown.includes(d));
    return { ...task, config_rtl: rest.length ? rest : null };
  });
  return { tasks: out, changed };
}

/** Add each required define to every task that builds the design (config, workload and rtl). */
export function addRequiredDefines(tasks: readonly Task[], required: readonly string[]): DefineEdit {
  const changed: Record<string, string[]> = {};
  const out = tasks.map((task) => {
    if (!DESIGN_KINDS.has(task.kind)) return task;
    const missing = required.filter((d) => !(task.config_rtl ?? []).includes(d));
    if (!missing.length) return task;
    changed[task.id] = missing;
    return { ...task, config_rtl: [...(task.config_rtl ?? []), ...missing].sort() };
  });
  return { tasks: out, changed };
}

/** What the run has learned that the check compares a plan with. */
export interface PlanCheckContext {
  readonly spec: MaceSpec;
  readonly rtlEdits: boolean;
  /** Defines the objective says a build needs. */
  readonly requiredDefines: readonly string[];
  /** Why a unit_test path cannot be used (needs the checkout), or undefined when it is fine. */
  readonly modulePathProblem: (path: string) => string | undefined;
  /** Design keys of configurations that already failed in this run, failed probes included. */
  readonly failedDesigns: ReadonlySet<string>;
  /** Change sets (by changeId) that narrowing showed break the design. */
  readonly badChangeSets: readonly (readonly string[])[];
  /** True for a task that builds on RTL edits: its flags do not show its edits. */
  readonly buildsOnEdits: (task: Task) => boolean;
  /** Set while a Generic Tile core's wrapper is still the generated skeleton. */
  readonly skeletonWrapper?: boolean;
}

const EDIT_VERB =
  /\b(?:edit|modify|change|patch|fix|rewrite|replace|update|add|remove|insert|delete|comment|rename|correct)\w*\b/i;
const HDL_FILE = /[\w./-]+\.(?:s?v|svh|vh|pyv)\b|\bpiton\/design\//i;

/** Does a config or workload instruction ask to edit a Verilog or SystemVerilog file? */
export function asksForSourceEdit(instruction: string): boolean {
  return EDIT_VERB.test(instruction) && HDL_FILE.test(instruction);
}

/** One problem per reason the plan cannot work. Builds nothing and calls no LLM. */
export function checkPlan(tasks: readonly Task[], ctx: PlanCheckContext): PlanProblem[] {
  const problems: PlanProblem[] = [];
  const add = (rule: PlanRule, task: string | null, reason: string) => problems.push({ rule, task, reason });

  for (const task of tasks) {
    const builds = DESIGN_KINDS.has(task.kind);
    if (!ctx.rtlEdits) {
      if (task.kind === 'rtl')
        add('source_edit', task.id, 'an rtl task edits source files, and this run has no RTL edits');
      else if ((task.kind === 'config' || task.kind === 'workload') && asksForSourceEdit(task.instruction)) {
        add(
          'source_edit',
          task.id,
          `its instruction asks to edit a source file, which a ${task.kind} task cannot do: ${JSON.stringify(task.instruction)}`,
        );
      }
    }
    if (!builds && task.kind !== 'unit_test') continue;
    // A unit-test environment is built too, so it needs the objective's defines as well.
    const missing = ctx.requiredDefines.filter((d) => !(task.config_rtl ?? []).includes(d));
    if (missing.length)
      add(
        'required_define',
        task.id,
        `it builds without ${missing.join(', ')}, which the objective says a build needs`,
      );
    if (task.kind === 'unit_test') {
      const problem = ctx.modulePathProblem(task.instruction);
      if (problem)
        add('missing_module', task.id, `unit_test module path ${JSON.stringify(task.instruction.trim())} ${problem}`);
      continue;
    }

    const config = configForTask(ctx.spec, task);
    for (const violation of wayViolations(config))
      add('way_rule', task.id, `${violation}; on Ariane neither the L1D nor the L1I may have more ways than the L1.5`);

    if (ctx.buildsOnEdits(task)) continue;
    if (ctx.failedDesigns.has(designKey(config))) {
      add('repeated_failure', task.id, 'it builds the same configuration as one that already failed in this run');
    }
    const changes = new Set(changesFromReference(ctx.spec, config).map(changeId));
    for (const bad of ctx.badChangeSets) {
      if (bad.length && bad.every((c) => changes.has(c))) {
        add(
          'known_bad_change',
          task.id,
          `it makes ${bad.length > 1 ? 'every change of ' : ''}${bad.join(' + ')}, which narrowing showed breaks the design`,
        );
      }
    }
  }

  if (ctx.skeletonWrapper) {
    const rtlIds = new Set(tasks.filter((t) => t.kind === 'rtl').map((t) => t.id));
    if (!rtlIds.size)
      add(
        'wrapper_skeleton',
        null,
        "the core's wrapper is still the generated skeleton and no rtl task writes it; nothing would run",
      );
    for (const task of tasks) {
      if ((task.kind === 'config' || task.kind === 'workload') && !task.deps.some((d) => rtlIds.has(d))) {
        add(
          'wrapper_skeleton',
          task.id,
          "it builds before any rtl task writes the core's wrapper, which is still the generated skeleton, so it can only time out",
        );
      }
    }
  }
  return problems;
}

/** The reasons as the planner reads them in a plan retry. */
export function describeProblems(problems: readonly PlanProblem[]): string {
  return problems.map((p) => `- [${p.rule}]${p.task ? ` task ${p.task}:` : ''} ${p.reason}`).join('\n');
}

/** The change ids of a set of changes, sorted, for the run's memory of what breaks the design. */
export function changeSet(changes: readonly Change[]): string[] {
  return changes.map(changeId).sort();
}
