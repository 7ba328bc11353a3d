/**
 * The planner: one LLM call turns the spec (and the feedback of earlier iterations) into a task
 * DAG. The prompt states the inputs, the directive lines, the defaults and the rules of the run;
 * the reply is parsed with the directive parsers and checked as a graph.
 */
import { DagError, ancestors, topologicalLevels } from './dag.ts';
import { parseTasks, type ParsedPlan } from './directives.ts';
import { DEFAULT_CACHES, DEFAULT_CONFIG_RTL, describeCaches, genericCorePaths } from './openpiton/geometry.ts';
import type { RunLlm } from './llm/recorder.ts';
import type { MaceSpec, Task } from './spec.ts';

/** Section headings the prompt uses; the scripted agent finds its inputs by them. */
export const PROMPT_HEADINGS = {
  feedback: 'Feedback from earlier attempts, oldest first:',
  rejection: 'Your previous reply was sent back before anything was built, for these reasons:',
} as const;

/** The run's inputs, stated the same way to the planner and to every baseline that asks an LLM. */
export function renderInputs(spec: MaceSpec): string {
  const lines = [`Objective: ${spec.objective.trim()}`, `Core: ${spec.core}`];
  if (spec.generic_core) {
    const { name, isa, top } = spec.generic_core;
    const paths = genericCorePaths(name);
    lines.push(
      `Generic Tile core: ${name}, ISA ${isa}, top module ${top}. Its sources are in ${paths.rtl}; its wrapper ${paths.wrapper} ` +
        'connects it to the tile, and no core runs until the wrapper instantiates it (an rtl task writes the wrapper while it is the generated skeleton).',
    );
  }
  lines.push(
    `Target mesh: ${spec.target_mesh[0]}x${spec.target_mesh[1]} tiles`,
    `Gate workloads (every one must pass on the design a task builds): ${spec.workloads.join(', ')}`,
  );
  return lines.join('\n');
}

/** How to ask for cache and define overrides; shared with the baselines. */
export function overrideRules(): string {
  return [
    'A task builds with the default configuration unless it overrides it with these lines:',
    'CACHES: <task id> | <name>=<size in bytes>,<associativity> ...',
    `  Caches are l1i, l1d, l15 and l2; the defaults are ${describeCaches(DEFAULT_CACHES)}. Sizes and associativities are positive integers. Leave the line out to keep the defaults.`,
    'CONFIG_RTL: <task id> | <DEFINE> <DEFINE> ...',
    `  RTL defines are upper-snake-case words such as CONFIG_DISABLE_BIST_CLEAR. They are added to the default defines (${DEFAULT_CONFIG_RTL.join(' ')}) and never replace them. A task also builds with the defines of every task it depends on.`,
  ].join('\n');
}

/** The task line format and the kinds, as the planner and a plan retry state them. */
export function taskRules(rtlEdits: boolean): string {
  const kinds = rtlEdits ? 'config|workload|unit_test|rtl' : 'config|workload|unit_test';
  const lines = [
    'Split the work into tasks, one directive line each:',
    `TASK: <id> | deps=<comma-separated ids of tasks that must come first, or nothing> | kind=${kinds} | <one-line instruction>`,
    'Ids are unique, deps name tasks of this reply, and the dependencies have no cycle.',
    '- config: a change to the build configuration. The task is built and every gate workload is simulated on it.',
    '- workload: running a gate workload, or fixing how it is run. It executes exactly like config.',
    '- unit_test: the instruction is only the RTL path of one module, relative to the checkout root (for example piton/design/chip/tile/pico/rtl/picorv32.v). A testbench is scaffolded for it and built.',
  ];
  if (rtlEdits) {
    lines.push(
      '- rtl: a change to the design RTL under piton/design/: say what to change and why. An agent with an edit tool makes the change; the design is then built and simulated.',
    );
  }
  lines.push('Write at least one TASK: line. Only the directive lines are read; anything else you write is ignored.');
  return lines.join('\n');
}

/** Without RTL edits, the planner turned suggested source edits into config tasks that could not make them. */
export const NO_RTL_RULE =
  'No task in this run can edit a source file: a config or workload task changes only what its CACHES: and CONFIG_RTL: lines set. ' +
  'A build that fails while it differs from the defaults may fail because of one of those differences, so leave out any change the objective does not ask for.';

export interface PlannerPromptOptions {
  readonly feedback?: string;
  readonly rtlEdits?: boolean;
  readonly rejection?: string;
}

export function buildPlannerPrompt(spec: MaceSpec, options: PlannerPromptOptions = {}): string {
  const rtlEdits = options.rtlEdits ?? false;
  const parts = [
    `You are planning the next iteration of a MACE bring-up loop for an OpenPiton chip with the ${spec.core} core.`,
    renderInputs(spec),
    taskRules(rtlEdits),
    overrideRules(),
  ];
  if (!rtlEdits) parts.push(NO_RTL_RULE);
  if (options.feedback?.trim()) parts.push(`${PROMPT_HEADINGS.feedback}\n${options.feedback.trim()}`);
  if (options.rejection?.trim()) parts.push(`${PROMPT_HEADINGS.rejection}\n${options.rejection.trim()}`);
  return parts.join('\n\n');
}

/** The planner's reply holds no usable plan: no task, or a graph that cannot run. */
export class PlanningError extends Error {
  override name = 'PlanningError';
  constructor(
    message: string,
    readonly reply: string,
  ) {
    super(message);
  }
}

export interface PlannedTasks {
  /** Validated, with each task's CONFIG_RTL widened by its ancestors'. */
  readonly tasks: Task[];
  readonly reply: string;
  readonly parsed: ParsedPlan;
}

/**
 * Parse and check a planner reply: throws PlanningError when it names no task, or when the graph
 * has a duplicate id, an unknown dependency or a cycle.
 */
export function planFromReply(reply: string): PlannedTasks {
  const parsed = parseTasks(reply);
  if (!parsed.tasks.length) {
    const why = parsed.unknownKinds.length
      ? `TASK: lines name no known kind (${parsed.unknownKinds.map((d) => d.reason).join('; ')})`
      : 'no well-formed TASK: line';
    throw new PlanningError(
      `the planner's reply holds no plan: ${why}; reply began ${JSON.stringify(reply.slice(0, 200))}`,
      reply,
    );
  }
  try {
    topologicalLevels(parsed.tasks);
  } catch (error) {
    if (error instanceof DagError)
      throw new PlanningError(`the planner produced an invalid task graph: ${error.message}`, reply);
    throw error;
  }
  return { tasks: inheritDefines(parsed.tasks), reply, parsed };
}

/** A task builds with the CONFIG_RTL flags of every task it depends on, directly or through others. */
export function inheritDefines(tasks: readonly Task[]): Task[] {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  return tasks.map((task) => {
    const inherited = ancestors(task, byId).flatMap((a) => a.config_rtl ?? []);
    if (!inherited.length) return task;
    return { ...task, config_rtl: [...new Set([...(task.config_rtl ?? []), ...inherited])].sort() };
  });
}

export interface PlanCallOptions extends PlannerPromptOptions {
  readonly iteration: number;
  /** 0 for the iteration's first call; each retry (phase plan_retry) counts up. */
  readonly attempt: number;
  readonly thinkingBudget: number | null;
  readonly signal?: AbortSignal;
}

/** One planner call: prompt, reply, parse. LLMCallFailed and PlanningError propagate. */
export async function plan(spec: MaceSpec, llm: RunLlm, options: PlanCallOptions): Promise<PlannedTasks> {
  const reply = await llm.call({
    phase: options.attempt === 0 ? 'plan' : 'plan_retry',
    prompt: buildPlannerPrompt(spec, options),
    iteration: options.iteration,
    attempt: options.attempt,
    thinkingBudget: options.thinkingBudget,
    signal: options.signal,
  });
  return planFromReply(reply.text);
}
