/**
 * One run's timeline: its iterations, LLM calls, and the tasks and probes on each checkout, as bars
 * over the run's wall time.
 */
import { TIMELINE_KINDS, type RunTimeline } from '../analysis/index.ts';
import type { Figure, Rows, Skipped } from './figure.ts';
import { categoryScale } from './palette.ts';

const LANE_OF_KIND = { iteration: 'iterations', llm_call: 'LLM calls' } as const;

/** The last path component of a checkout (`/home/u/openpiton-2` → `openpiton-2`). */
const checkoutName = (checkout: string | null) =>
  checkout ? checkout.replace(/\/+$/, '').split('/').pop()! : 'checkout (not recorded)';

export function timelineFigure(timeline: RunTimeline | undefined): Figure | Skipped {
  const name = 'timeline';
  if (!timeline) return { name, skipped: 'no counted run to show' };
  if (!timeline.bars.length) return { name, skipped: `run ${timeline.run_id} recorded no start and finish times` };
  const bars: Rows = timeline.bars.map((b) => ({
    lane: b.kind === 'iteration' || b.kind === 'llm_call' ? LANE_OF_KIND[b.kind] : checkoutName(b.checkout),
    kind: b.kind,
    label: b.label,
    iteration: b.iteration,
    start_s: b.start_s,
    end_s: b.end_s,
    passed: b.passed,
    outcome: b.passed === null ? '' : b.passed ? 'passed' : b.kind === 'llm_call' ? 'call failed' : 'failed',
    build_reused: b.build_reused,
  }));
  const lanes = [...new Set(bars.map((b) => b.lane as string))].sort(
    (a, b) => laneRank(a) - laneRank(b) || a.localeCompare(b),
  );
  const subject = `${timeline.method}${timeline.task ? ` on ${timeline.task}` : ''}, ${timeline.status}`;
  return {
    name,
    title: `Timeline of run ${timeline.run_id}`,
    caption:
      `Run ${timeline.run_id} (${subject}): each bar spans a recorded start and finish, in seconds from the run's start; ` +
      'tasks and probes sit on the checkout they used. Pale bars failed.' +
      (timeline.untimed ? ` ${timeline.untimed} record(s) without times are left out.` : ''),
    datasets: { bars },
    spec: {
      title: { text: `Timeline of run ${timeline.run_id}`, subtitle: subject },
      data: { name: 'bars' },
      width: 560,
      height: { step: 26 },
      mark: { type: 'bar', cornerRadius: 2, height: { band: 0.7 } },
      encoding: {
        y: { field: 'lane', type: 'nominal', sort: lanes, title: null },
        x: { field: 'start_s', type: 'quantitative', title: 'seconds from the start of the run' },
        x2: { field: 'end_s' },
        color: {
          field: 'kind',
          type: 'nominal',
          scale: categoryScale(TIMELINE_KINDS),
          title: null,
          sort: [...TIMELINE_KINDS],
        },
        opacity: { condition: { test: 'datum.passed === false', value: 0.35 }, value: 0.95 },
        stroke: { value: '#555555' },
        strokeWidth: { value: 0.4 },
        tooltip: [
          { field: 'label' },
          { field: 'iteration' },
          { field: 'outcome' },
          { field: 'start_s', format: '.2f' },
          { field: 'end_s', format: '.2f' },
        ],
      },
    } as never,
  };
}

function laneRank(lane: string): number {
  return lane === LANE_OF_KIND.iteration ? 0 : lane === LANE_OF_KIND.llm_call ? 1 : 2;
}
