/**
 * Parallel execution of a plan: its topological levels run one after another, and the tasks of a
 * level are spread over the checkouts, each checkout doing one task at a time (OpenPiton writes
 * generated files into its tree, so two builds cannot share one). A task builds its design, then
 * runs every gate workload in order and passes when all of them pass (or on its build alone under
 * check=build).
 */
import { BUDGET_EXHAUSTED, budgetExhaustedBuild, budgetExhaustedRun, type Deadline } from './budget.ts';
import type { Checkout } from './checkouts.ts';
import { topologicalLevels } from './dag.ts';
import { configForTask, type DesignOptions } from './design.ts';
import { LLMCallFailed, replayTag } from './llm/types.ts';
import type { BuildArtifact, RunResult } from './openpiton/artifacts.ts';
import type { PitonConfig } from './openpiton/config.ts';
import type { RunLlm } from './run-llm.ts';
import { RECOMMENDED_RTL_TIMEOUT, type LoopOptions, type MaceSpec, type Task } from './spec.ts';

export interface TaskResult {
  readonly task: Task;
  readonly config: PitonConfig;
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
  /** Design identity extras for a task (its RTL-edit diff), once failure analysis provides them. */
  readonly designOptions?: (task: Task) => DesignOptions;
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

/** Build one task's design on a checkout and run its gate workloads there. */
export async function executeTask(task: Task, checkout: Checkout, ctx: ExecutionContext): Promise<TaskResult> {
  const startedAt = new Date();
  const tagTask = ctx.tagTask?.(task) ?? task.id;
  const tag = (phase: string) => replayTag(ctx.runId, ctx.iteration, tagTask, phase);
  const config = configForTask(ctx.spec, task, ctx.designOptions?.(task));

  if (ctx.taskPrompts && ctx.llm) await taskPrompt(task, ctx);

  const build = ctx.deadline.passed()
    ? budgetExhaustedBuild(config)
    : await checkout.build(config, {
        clean: !ctx.options.reuse_builds,
        timeoutS: ctx.deadline.buildTimeoutS(),
        signal: ctx.signal,
        tag: tag('build'),
      });
  const runs: RunResult[] = [];
  if (build.success && ctx.options.check === 'sim') {
    for (const [i, workload] of ctx.spec.workloads.entries()) {
      const run = ctx.deadline.passed()
        ? budgetExhaustedRun(workload)
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
    build,
    runs,
    passed,
    gatePassed,
    checkout: checkout.root,
    startedAt,
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

/** True when a result failed only because the budget ran out before its work could start. */
export function stoppedByBudget(result: TaskResult): boolean {
  return (
    result.build.failureReason === BUDGET_EXHAUSTED || result.runs.some((r) => r.stderr.startsWith(BUDGET_EXHAUSTED))
  );
}
