/**
 * How a sweep shows its progress: on a terminal, a live view (cli-progress) with one line for the
 * sweep (jobs done / running / left, passes, dollars, elapsed, ETA) and one per running job, the
 * finished jobs scrolling above; elsewhere (CI logs, pipes) one plain line per finished job. Both
 * start with what the sweep will run and why.
 */
import cliProgress from 'cli-progress';
import type { Io } from '../cli/io.ts';
import { formatCounts, formatDuration, formatUsd, noCounts, type SweepCounts } from './counts.ts';
import { describeState } from './resume.ts';
import type { JobResult, PlannedJob, SweepEvents, SweepPlan } from './sweep.ts';

export interface SweepView extends SweepEvents {
  /** A message between job lines (Ctrl-C notices). */
  note(text: string): void;
  close(): void;
}

/** The lines a sweep opens with: totals, then each job that runs again and why. */
export function planLines(plan: SweepPlan, db: string): string[] {
  const { jobs, todo } = plan;
  const why = new Map<string, number>();
  for (const job of todo) why.set(job.state.kind, (why.get(job.state.kind) ?? 0) + 1);
  const reasons = [...why].map(([kind, n]) => `${n} ${kind}`).join(', ');
  const live = jobs.filter((j) => j.state.kind === 'live').length;
  const lines = [
    `suite ${plan.suite.name} (${plan.suite.file}): ${jobs.length} jobs, ${todo.length} to run${reasons ? ` (${reasons})` : ''}, ` +
      `${jobs.length - todo.length - live} already done${live ? `, ${live} running in another process` : ''}`,
    `checkouts: ${plan.setup.description}; database: ${db}`,
  ];
  const again = todo.filter((j) => j.state.kind !== 'new');
  for (const job of again.slice(0, 20)) lines.push(`  again: ${job.name}: ${describeState(job.state)}`);
  if (again.length > 20) lines.push(`  … and ${again.length - 20} more`);
  return lines;
}

/** `[ 3/12] pico-2x2-addi mace r0: passed in 3.1 s, $0.0012 LLM, run 3f9c2a1b7d04` */
export function jobLine(job: PlannedJob, result: JobResult, counts: SweepCounts): string {
  const width = String(counts.total).length;
  const reason = result.status === 'error' && result.reason ? ` (${result.reason.slice(0, 160)})` : '';
  return (
    `[${String(counts.done).padStart(width)}/${counts.total}] ${job.name}: ${result.status}${reason} in ` +
    `${result.wallS.toFixed(1)} s, ${formatUsd(result.llmUsd)} LLM${result.runId ? `, run ${result.runId}` : ''}`
  );
}

export function plainView(io: Io, db: string): SweepView {
  return {
    start: (plan) => planLines(plan, db).forEach((line) => io.out(line)),
    jobFinish: (job, result, counts) => io.out(jobLine(job, result, counts)),
    note: (text) => io.err(text),
    close: () => undefined,
  };
}

/** The live view, drawn on the terminal's stdout. */
export function liveView(db: string, stream: NodeJS.WriteStream = process.stdout): SweepView {
  const bars = new cliProgress.MultiBar(
    { stream, format: '{text}', hideCursor: true, clearOnComplete: false, fps: 4, autopadding: false },
    cliProgress.Presets.shades_classic,
  );
  const started = Date.now();
  let counts = noCounts(0);
  const sweepBar = bars.create(1, 0, { text: 'starting' });
  const running = new Map<string, { bar: cliProgress.SingleBar; since: number; what: string; name: string }>();
  const draw = () => {
    const now = { ...counts, running: running.size, elapsedS: (Date.now() - started) / 1000 };
    sweepBar.update({ text: formatCounts(now) });
    for (const job of running.values())
      job.bar.update({ text: `  ${job.name}  ${job.what}  ${formatDuration((Date.now() - job.since) / 1000)}` });
  };
  const timer = setInterval(draw, 500);
  return {
    start(plan) {
      for (const line of planLines(plan, db)) bars.log(`${line}\n`);
      counts = { ...counts, total: plan.todo.length };
      draw();
    },
    jobStart(job, runId) {
      running.set(job.key, {
        bar: bars.create(1, 0, { text: '' }),
        since: Date.now(),
        what: `run ${runId}`,
        name: job.name,
      });
      draw();
    },
    jobIteration(job, iteration) {
      const entry = running.get(job.key);
      if (entry) entry.what = `iteration ${iteration}`;
    },
    jobFinish(job, result, now) {
      const entry = running.get(job.key);
      if (entry) bars.remove(entry.bar);
      running.delete(job.key);
      counts = now;
      bars.log(`${jobLine(job, result, now)}\n`);
      draw();
    },
    note: (text) => bars.log(`${text}\n`),
    close() {
      clearInterval(timer);
      draw();
      bars.update(); // flush the finished-job lines still waiting for a redraw
      bars.stop();
    },
  };
}
