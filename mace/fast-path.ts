/**
 * The fast path: a plan whose tasks all resolve to one build is one design under several names.
 * It runs as a single task, the last in dependency order, with no dependencies.
 */
import { topologicalLevels } from './dag.ts';
import { configForTask, designKey } from './design.ts';
import type { MaceSpec, Task } from './spec.ts';

export interface Collapsed {
  readonly kept: Task;
  readonly replaced: string[];
  readonly designKey: string;
}

/** The single task that replaces the plan, or undefined when the plan has more than one design or a task that is not config or workload. */
export function collapseSingleDesign(spec: MaceSpec, tasks: readonly Task[]): Collapsed | undefined {
  if (tasks.length < 2) return undefined;
  if (!tasks.every((t) => t.kind === 'config' || t.kind === 'workload')) return undefined;
  const keys = new Set(tasks.map((t) => designKey(configForTask(spec, t))));
  if (keys.size !== 1) return undefined;
  const order = topologicalLevels(tasks).flat();
  const last = order[order.length - 1]!;
  return {
    kept: { ...last, deps: [] },
    replaced: order.slice(0, -1).map((t) => t.id),
    designKey: [...keys][0]!,
  };
}
