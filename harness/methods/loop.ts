/**
 * Methods that are the MACE loop with something changed: its options (the ablations), its budget
 * (one_shot), its checkouts (one_checkout), its first plan (seeded faults), or a step after it
 * (build_check's re-simulation). One factory makes them all, so they differ only in what they say.
 */
import { runMaceLoop, type LoopOutcome } from '../../mace/orchestrator.ts';
import type { LoopOptions, MaceSpec, Task } from '../../mace/spec.ts';
import type { SeededFault } from '../faults/seeded.ts';
import { isBringup, type Method, type MethodContext, type MethodTask } from './types.ts';

export interface LoopMethodDefinition {
  readonly name: string;
  readonly summary: string;
  readonly options?: Partial<LoopOptions>;
  readonly checkouts?: Method['checkouts'];
  /** Changes the loop's input (one_shot: a budget of one iteration). */
  readonly spec?: (spec: MaceSpec) => MaceSpec;
  readonly planHook?: (iteration: number, tasks: Task[]) => Task[];
  readonly fault?: SeededFault;
  readonly applies?: (task: MethodTask) => boolean;
  /** Runs after a loop that did not end in error, on the same checkouts (build_check's re-simulation). */
  readonly after?: (ctx: MethodContext, outcome: LoopOutcome) => Promise<void>;
}

export function loopMethod(definition: LoopMethodDefinition): Method {
  return {
    name: definition.name,
    summary: definition.summary,
    checkouts: definition.checkouts ?? 'all',
    usesLlm: true,
    loop: true,
    takesOptions: true,
    once: false,
    options: definition.options ?? {},
    fault: definition.fault,
    applies: definition.applies ?? isBringup,
    async run(ctx) {
      const outcome = await runMaceLoop({
        spec: definition.spec ? definition.spec(ctx.task.spec) : ctx.task.spec,
        checkouts: ctx.checkouts,
        store: ctx.store,
        llm: ctx.llm!,
        options: ctx.options,
        workloadsDir: ctx.workloadsDir,
        labels: ctx.labels,
        planHook: definition.planHook,
        runId: ctx.runId,
        signal: ctx.signal,
        events: ctx.events,
      });
      if (definition.after && outcome.status !== 'error') await definition.after(ctx, outcome);
      return { runId: outcome.runId, status: outcome.status, reason: outcome.reason };
    },
  };
}
