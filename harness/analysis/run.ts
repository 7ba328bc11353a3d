/**
 * One run up close: everything recorded about it (its trace) and its timeline, the iterations,
 * tasks, probes and LLM calls laid out in time on the checkouts they used.
 */
import { z } from 'zod';
import { runTrace, type RunTrace } from '../../mace/store/readers.ts';
import { Store } from '../../mace/store/store.ts';
import type { Analysis } from './analyse.ts';
import { counted, type RunRow } from './runs.ts';
import { DIALECTS, duckdbSource, type Source } from './source.ts';

/**
 * Everything a results database recorded about one run: plans, plan checks, tasks, failures and
 * their diagnoses, probes, fast paths, LLM calls, post-mortem; undefined when no run has that id.
 * @example const trace = await runDetails('results/quickstart.duckdb', analysis.runs[0].run_id);
 */
export async function runDetails(path: string, runId: string): Promise<RunTrace | undefined> {
  return runTrace(await Store.openForRead(path), runId);
}

export const TIMELINE_KINDS = ['iteration', 'task', 'probe', 'llm_call'] as const;
export type TimelineKind = (typeof TIMELINE_KINDS)[number];

/** One interval of a run, in seconds from the run's start. */
export interface TimelineBar {
  readonly kind: TimelineKind;
  /** Where it ran: the checkout for tasks and probes (null when not recorded); null for iterations and LLM calls. */
  readonly checkout: string | null;
  readonly iteration: number | null;
  /** Task id, `probe N of TASK`, `iteration N`, or the LLM call's phase. */
  readonly label: string;
  readonly start_s: number;
  readonly end_s: number;
  /** Tasks and probes: whether the design passed; iterations: whether any task passed; LLM calls: ok. */
  readonly passed: boolean | null;
  /** Tasks: the build was reused rather than built; null otherwise. */
  readonly build_reused: boolean | null;
}

export interface RunTimeline {
  readonly run_id: string;
  readonly task: string | null;
  readonly method: string;
  readonly status: string;
  readonly started_at: Date;
  /** Seconds from start to finish; null while running. */
  readonly wall_s: number | null;
  /** Intervals with a recorded start and end, ordered by start; rows recorded without times are left out and counted. */
  readonly bars: readonly TimelineBar[];
  readonly untimed: number;
}

const Seconds = z.number().nullable();
const BarRowSchema = z.object({
  kind: z.enum(TIMELINE_KINDS),
  checkout: z.string().nullable(),
  iteration: z.number().nullable(),
  label: z.string(),
  start_s: Seconds,
  end_s: Seconds,
  passed: z.boolean().nullable(),
  build_reused: z.boolean().nullable(),
});
const RunHeadSchema = z.object({
  run_id: z.string(),
  task: z.string().nullable(),
  method: z.string().nullable(),
  status: z.string(),
  started_s: z.number(),
  finished_s: Seconds,
});

function timelineSql(source: Source): { head: string; bars: string } {
  const s = DIALECTS[source.dialect].epochSeconds;
  const since = (column: string) => `${s(column)} - (SELECT ${s('started_at')} FROM runs WHERE run_id = $1)`;
  return {
    head: `SELECT run_id, task, method, status, ${s('started_at')} AS started_s, ${s('finished_at')} AS finished_s
      FROM runs WHERE run_id = $1`,
    bars: `
      SELECT 'iteration' AS kind, NULL AS checkout, iteration, 'iteration ' || iteration AS label,
        ${since('started_at')} AS start_s, ${since('finished_at')} AS end_s, num_passed > 0 AS passed, NULL AS build_reused
      FROM iterations WHERE run_id = $1
      UNION ALL
      SELECT 'task', checkout, iteration, task_id, ${since('started_at')}, ${since('finished_at')}, passed, build_reused
      FROM tasks WHERE run_id = $1
      UNION ALL
      SELECT 'probe', checkout, iteration, 'probe ' || probe || ' of ' || task_id, ${since('started_at')}, ${since('finished_at')},
        passed, NULL
      FROM probes WHERE run_id = $1
      UNION ALL
      SELECT 'llm_call', NULL, iteration, phase, ${since('started_at')}, ${since('started_at')} + wall_s, ok, NULL
      FROM llm_calls WHERE run_id = $1`,
  };
}

/**
 * The timeline of one run, from the start and finish times its iterations, tasks, probes and LLM
 * calls recorded; undefined when no run has that id.
 * @example const timeline = await runTimeline('results/quickstart.duckdb', 'a1b2c3d4e5f6');
 */
export async function runTimeline(source: Source | string, runId: string): Promise<RunTimeline | undefined> {
  const from = typeof source === 'string' ? await duckdbSource(source) : source;
  const sql = timelineSql(from);
  return from.read(async (q) => {
    const headRow = await q.one(sql.head, [runId]);
    if (!headRow) return undefined;
    const head = RunHeadSchema.parse(headRow);
    const rows = (await q.all(sql.bars, [runId])).map((row) => BarRowSchema.parse(row));
    const bars = rows
      .flatMap((r) => (r.start_s === null || r.end_s === null ? [] : [{ ...r, start_s: r.start_s, end_s: r.end_s }]))
      .sort(
        (a, b) =>
          a.start_s - b.start_s ||
          TIMELINE_KINDS.indexOf(a.kind) - TIMELINE_KINDS.indexOf(b.kind) ||
          a.label.localeCompare(b.label),
      );
    return {
      run_id: head.run_id,
      task: head.task,
      method: head.method ?? 'mace',
      status: head.status,
      started_at: new Date(Math.round(head.started_s * 1000)),
      wall_s: head.finished_s === null ? null : head.finished_s - head.started_s,
      bars,
      untimed: rows.length - bars.length,
    };
  });
}

/**
 * The run a timeline shows best when none is named: among the counted runs of the reference
 * method (else of any method), the one with the most iterations, then probes, then builds; ties go
 * to the earliest run id.
 * @example const run = showcaseRun(analysis); if (run) await runTimeline(analysis.settings.files[0], run.run_id);
 */
export function showcaseRun(analysis: Analysis): RunRow | undefined {
  const candidates = analysis.runs.filter(counted);
  const reference = candidates.filter((r) => r.method === analysis.settings.reference);
  return [...(reference.length ? reference : candidates)].sort(
    (a, b) =>
      b.iterations - a.iterations || b.probes - a.probes || b.builds - a.builds || a.run_id.localeCompare(b.run_id),
  )[0];
}
