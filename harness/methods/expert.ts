/**
 * expert (B0): the expert configuration through the loop's own build-and-check path, on one
 * checkout, with no LLM: the floor every other method is measured against. One build, then every
 * gate workload in order; the run passes when they all pass, and otherwise ends `budget_exceeded`
 * (its one attempt is spent). Fault checks run a broken expert configuration through the same path.
 */
import { Deadline } from '../../mace/budget.ts';
import { recordingCheckout } from '../../mace/checkouts.ts';
import { integrateParallel, type ExecutionContext } from '../../mace/integrator.ts';
import { taskRecord } from '../../mace/records.ts';
import { LoopOptionsSchema, type Task } from '../../mace/spec.ts';
import { recordIteration } from '../../mace/store/writers.ts';
import { finishOwnRun, requirementProblem, startOwnRun } from './record.ts';
import { isBringup, type Method, type MethodContext, type MethodOutcome } from './types.ts';

/** Build `design` on the job's first checkout and run the gate workloads on it, with no LLM. */
export async function runDesign(ctx: MethodContext, design: Task): Promise<MethodOutcome> {
  await startOwnRun(ctx, undefined);
  return finishOwnRun(ctx, async () => {
    const problem = await requirementProblem(ctx);
    if (problem) return problem;
    const { spec } = ctx.task;
    const execution: ExecutionContext = {
      spec,
      options: LoopOptionsSchema.parse({ ...ctx.options, task_prompts: false }),
      taskPrompts: false,
      runId: ctx.runId,
      iteration: 0,
      llm: undefined,
      deadline: Deadline.after(spec.budget.max_wall_s),
      workloadsDir: ctx.workloadsDir,
      signal: ctx.signal,
    };
    const startedAt = new Date();
    const checkout = recordingCheckout(ctx.checkouts[0]!, ctx.store, ctx.runId);
    const [result] = await integrateParallel([design], [checkout], execution);
    const finishedAt = new Date();
    await recordIteration(ctx.store, {
      runId: ctx.runId,
      iteration: 0,
      tasks: [taskRecord(result!)],
      wallS: (finishedAt.getTime() - startedAt.getTime()) / 1000,
      usd: 0,
      startedAt,
      finishedAt,
      plan: [design],
    });
    return result!.passed
      ? { status: 'passed' }
      : { status: 'budget_exceeded', reason: 'the expert configuration did not pass its one attempt' };
  });
}

/** A method that builds one design derived from the expert configuration, with no LLM, once per task. */
export function designMethod(
  definition: Pick<Method, 'name' | 'summary' | 'fault' | 'applies'> & { readonly design: (expert: Task) => Task },
): Method {
  return {
    ...definition,
    checkouts: 'one',
    usesLlm: false,
    loop: false,
    takesOptions: false,
    once: true,
    options: {},
    run: (ctx) => runDesign(ctx, definition.design(ctx.task.expert)),
  };
}

export const expert = designMethod({
  name: 'expert',
  summary: 'B0: the expert configuration, built and checked once on one checkout, no LLM',
  applies: isBringup,
  design: (task) => task,
});
