/**
 * Plan replay as a figure: per run, the builds and dollars the plan check and the fast path saved
 * (the run had them on) or would have saved (the run had them off). Every number is planSavings'
 * (harness/analysis/replay-savings.ts); this only lays it out.
 */
import type { Analysis, PlanSavings } from '../analysis/index.ts';
import type { Figure, Rows, Skipped } from './figure.ts';
import { methodEncodings, methodOrder } from './methods.ts';

const SWITCH_TITLES = { plan_check: 'plan check', fast_path: 'fast path' } as const;
const READINGS = ['saved (on in the run)', 'would have saved (off in the run)'] as const;
const PANELS = [
  { switch: 'plan_check', field: 'builds', title: 'builds', axis: { format: 'd', tickMinStep: 1 } },
  { switch: 'plan_check', field: 'usd', title: 'dollars', axis: { format: '$.2~g' } },
  { switch: 'fast_path', field: 'builds', title: 'builds', axis: { format: 'd', tickMinStep: 1 } },
  { switch: 'fast_path', field: 'usd', title: 'dollars', axis: { format: '$.2~g' } },
] as const;

/** What a dollar bar leaves out: every build (not priced) or some of them. */
function priceNote(s: PlanSavings['rows'][number]): string {
  if (!s.builds || !s.unpriced_builds) return '';
  return s.usd === null ? 'not priced' : `+${s.unpriced_builds} unpriced`;
}

/** Per run, builds and dollars the plan check and the fast path saved or would have saved, coloured by method. */
export function planReplayFigure(analysis: Analysis, savings: PlanSavings): Figure | Skipped {
  const name = 'plan_replay';
  if (!savings.rows.length) return { name, skipped: 'no counted run recorded a planner reply the check could read' };
  const order = methodOrder(
    analysis,
    savings.rows.map((s) => s.method),
  );
  const runLabel = (s: { method: string; run_id: string }) => `${s.method} · ${s.run_id}`;
  const runs = [...new Set(savings.rows.map(runLabel))];
  const runOrder = order.flatMap((m) => runs.filter((r) => r.startsWith(`${m} · `)));
  const rows: Rows = savings.rows.map((s) => ({
    ...s,
    run: runLabel(s),
    reading: READINGS[s.on ? 0 : 1],
    price_note: priceNote(s),
  }));
  const sum = (pick: (s: PlanSavings['rows'][number]) => number) => savings.rows.reduce((n, s) => n + pick(s), 0);
  const unpriced = sum((s) => s.unpriced_builds);
  const taskCalls = sum((s) => s.task_calls);
  const unmatched = sum((s) => (s.switch === 'plan_check' ? s.unmatched_iterations : 0));
  const enc = methodEncodings(analysis, order);
  const y = { field: 'run', type: 'nominal', sort: runOrder, title: null } as const;
  return {
    name,
    title: 'Plan replay: what the plan check and the fast path saved',
    caption:
      "Each run's recorded plans replayed through the loop's plan check, with each switch turned the other way from how the run had it (no LLM call, no build). " +
      'Solid: the run had it on, and the bar is what turning it off would have added (the builds the check caught, the builds the fast path collapsed away). ' +
      'Light: the run had it off, and the bar is what turning it on would have saved. ' +
      `Dollars are LLM dollars plus machine time at $${savings.hourly_usd}/h; ` +
      `${unpriced} build(s) have no price (the check's caught builds are designs never built, so none of them is priced)` +
      (taskCalls ? `, nor do the ${taskCalls} task call(s) the fast path spared` : '') +
      '.' +
      (unmatched
        ? ` ${unmatched} iteration(s) whose plan the recorded replies do not make (a seeded fault's hook) count nothing.`
        : '') +
      ' No bar: nothing saved.',
    datasets: { savings: rows },
    spec: {
      title: {
        text: 'Plan replay: builds and dollars saved, per run',
        subtitle: 'filled: the run had it on (what it saved); outlined: the run had it off (what it would have saved)',
      },
      data: { name: 'savings' },
      hconcat: PANELS.map((panel, i) => {
        // A panel of zeros still gets an axis that starts at the left.
        const empty = savings.rows.every((s) => s.switch !== panel.switch || !s[panel.field]);
        return {
          transform: [
            { filter: { field: 'switch', equal: panel.switch } },
            { calculate: `datum.${panel.field} === null ? 0 : datum.${panel.field}`, as: 'bar_end' },
          ],
          width: 130,
          height: { step: 14 },
          layer: [
            {
              // Outlined, not lighter: the palette has light colours of its own. No outline where
              // nothing was saved (it would draw a sliver at zero).
              mark: { type: 'bar', height: { band: 0.8 } },
              encoding: {
                strokeWidth: { condition: { test: 'datum.bar_end > 0', value: 1.5 }, value: 0 },
                color: enc.color,
                stroke: { ...enc.color, legend: null },
                y: { ...y, axis: i === 0 ? { labelLimit: 400 } : null },
                x: {
                  field: panel.field,
                  type: 'quantitative',
                  title: [SWITCH_TITLES[panel.switch], panel.title],
                  axis: { ...panel.axis, tickCount: 4 },
                  scale: empty ? { domain: [0, 1] } : { zero: true },
                },
                fillOpacity: {
                  field: 'reading',
                  type: 'ordinal',
                  sort: [...READINGS],
                  scale: { domain: [...READINGS], range: [1, 0.1] },
                  legend: { title: null, orient: 'bottom', direction: 'vertical', labelLimit: 400 },
                },
                tooltip: [
                  { field: 'run_id' },
                  { field: 'method' },
                  { field: 'task' },
                  { field: 'counterfactual' },
                  { field: 'builds' },
                  { field: 'unpriced_builds' },
                  { field: 'machine_s', format: '.1f' },
                  { field: 'usd', format: '$.4f' },
                  { field: 'task_calls' },
                ],
              },
            },
            ...(panel.field === 'usd'
              ? [
                  {
                    transform: [{ filter: "datum.price_note !== ''" }],
                    mark: { type: 'text', align: 'left', dx: 3, fontSize: 9, color: '#555555' },
                    encoding: {
                      y,
                      x: { field: 'bar_end', type: 'quantitative' },
                      text: { field: 'price_note' },
                    },
                  },
                ]
              : []),
          ],
        };
      }),
    } as never,
  };
}
