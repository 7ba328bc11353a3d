/**
 * build_check (A3): a task passes on its build alone (check=build). After a run passes, every
 * design its last iteration accepted is simulated on the gate workloads after all, on the checkout
 * that built it, through the loop's own build-and-check path (the build is reused); the results go
 * to `resimulations`, where a design that fails is a false accept.
 */
import { Deadline } from '../../mace/budget.ts';
import { executeTask, type ExecutionContext } from '../../mace/integrator.ts';
import type { LoopOutcome } from '../../mace/orchestrator.ts';
import { LoopOptionsSchema } from '../../mace/spec.ts';
import { recordResimulation } from '../../mace/store/writers.ts';
import { loopMethod } from './loop.ts';
import type { MethodContext } from './types.ts';

async function resimulateAccepted(ctx: MethodContext, outcome: LoopOutcome): Promise<void> {
  const last = outcome.iterations.at(-1);
  if (outcome.status !== 'passed' || !last) return;
  const { spec } = ctx.task;
  const execution: ExecutionContext = {
    spec,
    options: LoopOptionsSchema.parse({ ...ctx.options, check: 'sim', reuse_builds: true }),
    taskPrompts: false,
    runId: ctx.runId,
    iteration: last.iteration,
    llm: undefined,
    deadline: Deadline.after(spec.budget.max_wall_s),
    workloadsDir: ctx.workloadsDir,
    signal: ctx.signal,
    tagTask: (task) => `resimulate-${task.id}`,
  };
  for (const accepted of last.results.filter((r) => r.passed && r.build.success)) {
    const checkout = ctx.checkouts.find((c) => c.root === accepted.checkout) ?? ctx.checkouts[0]!;
    const again = await executeTask(accepted.task, checkout, execution, accepted.edits);
    const rows = again.build.success
      ? again.runs.map((run) => ({
          program: run.test,
          verdict: run.verdict,
          passed: run.success,
          wallS: run.wallTimeS,
        }))
      : [{ program: spec.workloads[0]!, verdict: null, passed: false, wallS: again.build.wallTimeS }];
    for (const row of rows) await recordResimulation(ctx.store, { runId: ctx.runId, taskId: accepted.task.id, ...row });
  }
}

export const buildCheck = loopMethod({
  name: 'build_check',
  summary: 'A3: a task passes on its build (check=build); accepted designs are re-simulated to count false accepts',
  options: { check: 'build' },
  after: resimulateAccepted,
});
