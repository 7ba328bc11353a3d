/** The plan's task graph: topological levels, ancestry, and the errors that make a plan unusable. */
import type { Task } from './spec.ts';

export class DagError extends Error {
  override name = 'DagError';
}

/**
 * Tasks grouped into levels: every task's dependencies sit in earlier levels, and tasks keep their
 * plan order within a level. Throws DagError for a duplicate id, an unknown dependency or a cycle.
 */
export function topologicalLevels(tasks: readonly Task[]): Task[][] {
  const byId = new Map<string, Task>();
  for (const task of tasks) {
    if (byId.has(task.id)) throw new DagError(`duplicate task id ${JSON.stringify(task.id)}`);
    byId.set(task.id, task);
  }
  for (const task of tasks) {
    for (const dep of task.deps) {
      if (!byId.has(dep))
        throw new DagError(`task ${JSON.stringify(task.id)} depends on unknown task ${JSON.stringify(dep)}`);
    }
  }
  const levels: Task[][] = [];
  const placed = new Set<string>();
  while (placed.size < tasks.length) {
    const level = tasks.filter((t) => !placed.has(t.id) && t.deps.every((d) => placed.has(d)));
    if (!level.length) {
      const stuck = tasks.filter((t) => !placed.has(t.id)).map((t) => t.id);
      throw new DagError(`dependency cycle among tasks ${stuck.map((id) => JSON.stringify(id)).join(', ')}`);
    }
    for (const task of level) placed.add(task.id);
    levels.push(level);
  }
  return levels;
}

/** Every task a task depends on, directly or through others. */
export function ancestors(task: Task, byId: ReadonlyMap<string, Task>): Task[] {
  const seen = new Map<string, Task>();
  const visit = (t: Task) => {
    for (const dep of t.deps) {
      const parent = byId.get(dep);
      if (parent && !seen.has(dep)) {
        seen.set(dep, parent);
        visit(parent);
      }
    }
  };
  visit(task);
  return [...seen.values()];
}
