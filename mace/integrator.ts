/**
 * Parallel execution of a plan: its topological levels run one after another, and the tasks of a
 * level are spread over the checkouts, each checkout doing one task at a time (OpenPiton writes
 * generated files into its tree, so two builds cannot share one). A task builds its design, then
 * runs every gate workload in order and passes when all of them pass (or on its build alone under
 * check=build). A unit_test task scaffolds, adapts and builds a testbench instead (unit-test.ts).
 */
import type { Deadline } from './budget.ts';
import { BUDGET_EXHAUSTED, budgetExhaustedRun } from './openpiton/unstarted.ts';
import { buildWithinBudget, type Checkout } from './checkouts.ts';
import { topologicalLevels } from './dag.ts';
import { configForTask } from './design.ts';
import { LLMCallFailed, replayTag } from './llm/types.ts';
import type { BuildArtifact, RunResult } from './openpiton/artifacts.ts';
import type { PitonConfig } from './openpiton/config.ts';
import { EditOverlay, editTools, editsDiff, NO_EDITS, type EditSet } from './rtl-edits.ts';
import type { RunLlm } from './llm/recorder.ts';
import { RECOMMENDED_RTL_TIMEOUT, type LoopOptions, type MaceSpec, type Task } from './spec.ts';
import { executeUnitTest } from './unit-test.ts';

export interface TaskResult {
  readonly task: Task;
  readonly config: PitonConfig;
  /** The RTL edits the build carried (carried, inherited and its own) and their diff. */
  readonly edits: EditSet;
  readonly rtlDiff: string;
  /** An rtl task's agent reply, kept for triage when the agent made no edit. */
  readonly agentReply?: string;
  readonly build: BuildArtifact;
  /** The gate runs in order, stopping at the first failure; empty under check=build or a failed build. */
  readonly runs: readonly RunResult[];
  readonly passed: boolean;
  /** The design ran every gate program to a pass (never true for a unit_test task). */
  readonly gatePassed: boolean;
  readonly checkout: string;
  readonly startedAt: Date;
  readonly finishedAt: Date;
}

/** Everything a task needs to execute, shared by the tasks of one iteration. */
export interface ExecutionContext {
  readonly spec: MaceSpec;
  readonly options: LoopOptions;
  /** task_prompts as the orchestrator resolved it (off for every plan while the fast path is on). */
  readonly taskPrompts: boolean;
  readonly runId: string;
  readonly iteration: number;
  readonly llm: RunLlm | undefined;
  readonly deadline: Deadline;
  /** The project's gate programs, passed to sims as an extra diag directory. */
  readonly workloadsDir: string;
  readonly signal?: AbortSignal;
  /** Tag prefix for the task id in replay tags (narrowing probes use their own). */
  readonly tagTask?: (task: Task) => string;
  /** The RTL edits every task of the iteration starts from (carried from the last iteration). */
  readonly baseEdits?: EditSet;
  /** The feedback history, which an rtl task's agent reads with its instruction. */
  readonly feedback?: string;
  /** Called as each task finishes, for progress displays. */
  readonly onTask?: (result: TaskResult) => void;
}

/** Run a plan's tasks level by level across the checkouts; results come back in plan order. */
export async function integrateParallel(
  tasks: readonly Task[],
  checkouts: readonly Checkout[],
  ctx: ExecutionContext,
): Promise<TaskResult[]> {
  if (!checkouts.length) throw new Error('integrateParallel needs at least one checkout');
  const results = new Map<string, TaskResult>();
  for (const level of topologicalLevels(tasks)) {
    const done = await spread(level, checkouts, (task, checkout) => executeTask(task, checkout, ctx));
    for (const result of done) results.set(result.task.id, result);
  }
  return tasks.map((t) => results.get(t.id)!);
}

/** Give each item to the next free checkout; a checkout does one item at a time. */
export async function spread<T, R>(
  items: readonly T[],
  checkouts: readonly Checkout[],
  work: (item: T, checkout: Checkout) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async (checkout: Checkout) => {
    while (next < items.length) {
      const index = next++;
      out[index] = await work(items[index]!, checkout);
    }
  };
  await Promise.all(checkouts.slice(0, Math.max(1, items.length)).map(worker));
  return out;
}

/** Build one task's design on a checkout and run its gate workloads there (a unit_test builds its testbench). */
export async function executeTask(
  task: Task,
  checkout: Checkout,
  ctx: ExecutionContext,
  inherited: EditSet = ctx.baseEdits ?? NO_EDITS,
): Promise<TaskResult> {
  if (task.kind === 'unit_test') return executeUnitTest(task, checkout, ctx);
  const startedAt = new Date();
  const tagTask = ctx.tagTask?.(task) ?? task.id;
  const tag = (phase: string) => replayTag(ctx.runId, ctx.iteration, tagTask, phase);

  let edits = inherited;
  let agentReply: string | undefined;
  if (task.kind === 'rtl' && ctx.options.rtl_edits && ctx.llm) {
    ({ edits, reply: agentReply } = await rtlAgent(task, checkout, ctx, inherited));
  } else if (ctx.taskPrompts && ctx.llm) {
    await taskPrompt(task, ctx);
  }
  const rtlDiff = edits.size ? editsDiff(checkout.root, edits) : '';
  const config = configForTask(ctx.spec, task, { diff: rtlDiff });
  const restore = rtlDiff && checkout.applyEdits ? checkout.applyEdits(edits) : () => undefined;
  try {
    return await buildAndRun(task, checkout, ctx, { config, edits, rtlDiff, agentReply, startedAt, tag });
  } finally {
    restore();
  }
}

interface Prepared {
  readonly config: PitonConfig;
  readonly edits: EditSet;
  readonly rtlDiff: string;
  readonly agentReply: string | undefined;
  readonly startedAt: Date;
  readonly tag: (phase: string) => string;
}

async function buildAndRun(
  task: Task,
  checkout: Checkout,
  ctx: ExecutionContext,
  prepared: Prepared,
): Promise<TaskResult> {
  const { config, tag } = prepared;

  const build = await buildWithinBudget(checkout, config, ctx, tag('build'));
  const runs: RunResult[] = [];
  if (build.success && ctx.options.check === 'sim') {
    for (const [i, workload] of ctx.spec.workloads.entries()) {
      const run = ctx.deadline.passed()
        ? budgetExhaustedRun(config, workload)
        : await checkout.run(config, workload, {
            asmDiagRoot: ctx.workloadsDir,
            finishMask: ctx.spec.workload_args[workload]?.finish_mask || undefined,
            extraRunArgs: ctx.spec.workload_args[workload]?.run_args,
            rtlTimeout: ctx.spec.rtl_timeout ?? RECOMMENDED_RTL_TIMEOUT,
            maxCycle: ctx.spec.max_cycle ?? undefined,
            timeoutS: ctx.deadline.runTimeoutS(),
            signal: ctx.signal,
            tag: tag(i === 0 ? 'run' : `run:${workload}`),
          });
      runs.push(run);
      if (!run.success) break;
    }
  }
  const gatePassed = build.success && runs.length === ctx.spec.workloads.length && runs.every((r) => r.success);
  const passed = ctx.options.check === 'build' ? build.success : gatePassed;
  const result: TaskResult = {
    task,
    config,
    edits: prepared.edits,
    rtlDiff: prepared.rtlDiff,
    agentReply: prepared.agentReply,
    build,
    runs,
    passed,
    gatePassed,
    checkout: checkout.root,
    startedAt: prepared.startedAt,
    finishedAt: new Date(),
  };
  ctx.onTask?.(result);
  return result;
}

/** A task's own LLM call. Its reply changes nothing that is built, so a failed call only loses the reply. */
async function taskPrompt(task: Task, ctx: ExecutionContext): Promise<void> {
  try {
    await ctx.llm!.call({
      phase: 'task',
      prompt: task.instruction || task.id,
      iteration: ctx.iteration,
      taskId: task.id,
      signal: ctx.signal,
    });
  } catch (error) {
    if (!(error instanceof LLMCallFailed)) throw error;
  }
}

/** An rtl task's agent: one call with the edit tools over an overlay of the inherited edits. */
async function rtlAgent(
  task: Task,
  checkout: Checkout,
  ctx: ExecutionContext,
  inherited: EditSet,
): Promise<{ edits: EditSet; reply: string }> {
  const overlay = new EditOverlay(checkout.root, inherited);
  const reply = await ctx.llm!.call({
    phase: 'rtl',
    prompt: rtlPrompt(task, ctx, inherited),
    iteration: ctx.iteration,
    taskId: task.id,
    tools: editTools(overlay),
    signal: ctx.signal,
  });
  return { edits: overlay.current(), reply: reply.text };
}

function rtlPrompt(task: Task, ctx: ExecutionContext, inherited: EditSet): string {
  const parts = [
    `You are the agent of an rtl task in a MACE bring-up loop for an OpenPiton chip with the ${ctx.spec.core} core (${ctx.spec.target_mesh[0]}x${ctx.spec.target_mesh[1]} mesh).`,
    `Objective: ${ctx.spec.objective.trim()}`,
    `Your task (${task.id}): ${task.instruction}`,
    'Use the tools to read the design and make the change. Only files under piton/design/ can be edited; piton/verif is read-only. ' +
      'Your edits are built and the gate workloads simulated after you reply; make the smallest change that does the job.',
  ];
  if (inherited.size)
    parts.push(
      `These files already carry edits from earlier tasks, which you build on: ${[...inherited.keys()].join(', ')}`,
    );
  if (ctx.feedback?.trim()) parts.push(`What earlier attempts reported:\n${ctx.feedback.trim()}`);
  return parts.join('\n\n');
}

/** True when a result failed only because the budget ran out before its work could start. */
export function stoppedByBudget(result: TaskResult): boolean {
  return (
    result.build.failureReason === BUDGET_EXHAUSTED || result.runs.some((r) => r.stderr.startsWith(BUDGET_EXHAUSTED))
  );
}
