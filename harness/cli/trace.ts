/**
 * A run's trace as a readable tree: iterations, the plan checks and fast path of each, its tasks
 * with their outcome and diagnosis, the narrowing probes, and the post-mortem.
 */
import type { RunTrace, TraceIteration, TraceTask } from '../../mace/store/readers.ts';

interface Node {
  readonly text: string;
  readonly children?: readonly Node[];
}

export function renderTrace(trace: RunTrace): string {
  const { run, summary } = trace;
  const mesh = `${run.x_tiles}x${run.y_tiles}`;
  const label = [run.method, run.task, run.repeat === null ? undefined : `repeat ${run.repeat}`]
    .filter(Boolean)
    .join(' ');
  const head = [
    `run ${run.run_id}  ${run.core} ${mesh}  ${run.status}${label ? `  (${label})` : ''}`,
    `objective: ${run.objective}`,
    `workloads: ${(run.workloads ?? []).join(', ') || '-'}   backend: ${run.backend ?? '-'} ${run.model ?? ''}`.trimEnd(),
    `${summary.iterations} iteration(s), ${summary.successful_tasks} task(s) passed, ${summary.failures_recovered} failure(s) recovered, ` +
      `${summary.execution_time_s.toFixed(1)} s, $${summary.compute_usd.toFixed(4)}`,
  ];
  if (run.error) head.push(`error: ${run.error}`);
  const nodes: Node[] = trace.iterations.map(iterationNode);
  if (trace.postMortem) {
    const pm = trace.postMortem;
    nodes.push({
      text: `post-mortem: ${pm.assessment}`,
      children: [{ text: `explanation: ${pm.explanation ?? '-'}` }, { text: `next steps: ${pm.next_steps ?? '-'}` }],
    });
  }
  return [...head, ...renderNodes(nodes, '')].join('\n');
}

function iterationNode(it: TraceIteration): Node {
  const children: Node[] = [];
  for (const check of it.planChecks) {
    const problems = (check.problems ?? []).map((p) => ({
      text: `${p.rule}${p.task ? ` [${p.task}]` : ''}: ${p.reason}`,
    }));
    const stripped = Object.entries(check.stripped ?? {}).map(([task, defines]) => ({
      text: `stripped from ${task}: ${defines.join(' ')}`,
    }));
    const added = Object.entries(check.added ?? {}).map(([task, defines]) => ({
      text: `added to ${task}: ${defines.join(' ')}`,
    }));
    children.push({
      text: `plan check #${check.attempt}: ${check.action}`,
      children: [...problems, ...stripped, ...added],
    });
  }
  if (it.fastPath)
    children.push({
      text: `fast path: kept ${it.fastPath.kept_task}, replaced ${it.fastPath.replaced.join(', ') || '-'}`,
    });
  for (const task of it.tasks) children.push(taskNode(task));
  if (it.probes.length) {
    const verdict = it.probes.find((p) => p.verdict)?.verdict;
    children.push({
      text: `narrowing of ${it.probes[0]!.task_id}${verdict ? `: ${verdict}` : ''}`,
      children: it.probes.map((p) => ({
        text: `probe ${p.probe}: undo ${(p.undone ?? []).map(describeChange).join(' + ') || '-'} -> ${
          p.passed
            ? 'pass'
            : p.build_success
              ? `verdict ${p.run_verdict ?? '-'}`
              : `build failed (${p.failure_reason || '?'})`
        }`,
      })),
    });
  }
  const calls = it.llmCalls.length ? `, ${it.llmCalls.length} LLM call(s)` : '';
  return {
    text: `iteration ${it.iteration}: ${it.num_passed}/${it.num_tasks} task(s) passed, ${it.wall_s.toFixed(1)} s, $${it.usd.toFixed(4)}${calls}`,
    children,
  };
}

function taskNode(task: TraceTask): Node {
  const outcome = task.passed
    ? 'PASSED'
    : !task.build_success
      ? `build failed${task.failure_reason ? ` (${task.failure_reason})` : ''}`
      : `verdict ${task.run_verdict ?? '-'}`;
  const defines = task.config_rtl?.length ? ` defines ${task.config_rtl.join(' ')}` : '';
  const reuse = task.build_reused ? ', build reused' : '';
  const children: Node[] = [];
  for (const line of task.build_errors ?? []) children.push({ text: line });
  if (task.failure) {
    const f = task.failure;
    const stage = f.stage ? ` [${f.stage}${f.narrowing ? `, narrowing ${f.narrowing}` : ''}]` : '';
    children.push({
      text: `diagnosis: ${f.diagnosis}${stage}${f.recovered ? ', recovered' : ''}`,
      children: f.fix ? [{ text: `fix: ${f.fix}` }] : [],
    });
  }
  return { text: `task ${task.task_id} (${task.kind}): ${task.spec}  -> ${outcome}${reuse}${defines}`, children };
}

function describeChange(change: Record<string, unknown>): string {
  const kind = String(change.kind ?? 'change');
  const what = change.define ?? change.cache ?? change.network ?? '';
  return what ? `${kind} ${String(what)}` : kind;
}

function renderNodes(nodes: readonly Node[], prefix: string): string[] {
  const lines: string[] = [];
  nodes.forEach((node, i) => {
    const last = i === nodes.length - 1;
    lines.push(`${prefix}${last ? '└─ ' : '├─ '}${node.text}`);
    if (node.children?.length) lines.push(...renderNodes(node.children, `${prefix}${last ? '   ' : '│  '}`));
  });
  return lines;
}
