/**
 * Figures of each method over the study: pass rate, time to pass, and what a passed run costs.
 * Every number comes from the analysis as the report prints it; these functions only lay it out.
 */
import type { Analysis, MethodKind } from '../analysis/index.ts';
import { counted } from '../analysis/index.ts';
import type { Figure, Rows, Skipped } from './figure.ts';
import { INK, methodScale } from './palette.ts';

const KIND_ORDER: readonly MethodKind[] = ['reference', 'compared', 'seeded_fault', 'fault_check', 'codesign'];

/** Methods in reading order: the reference, then the others by kind and name. */
export function methodOrder(analysis: Analysis, methods: Iterable<string>): string[] {
  const kindRank = (m: string) => KIND_ORDER.indexOf(analysis.kinds[m] ?? 'compared');
  return [...new Set(methods)].sort((a, b) => kindRank(a) - kindRank(b) || a.localeCompare(b));
}

/** A y encoding of methods in reading order, and the colour encoding that gives each its study-wide colour. */
export function methodEncodings(analysis: Analysis, order: readonly string[]) {
  return {
    y: { field: 'method', type: 'nominal', sort: [...order], title: null },
    color: {
      field: 'method',
      type: 'nominal',
      scale: methodScale(order, Object.keys(analysis.kinds)),
      legend: null,
    },
  } as const;
}

const ALL_TASKS = 'all tasks';

/** Pass rate with its Wilson 95% interval, per method over all tasks and per task. */
export function passRateFigure(analysis: Analysis): Figure | Skipped {
  const name = 'pass_rate';
  const methods = analysis.methods.filter((m) => m.pass_rate);
  if (!methods.length) return { name, skipped: 'no counted bring-up runs' };
  const row = (scope: string, method: string, rate: NonNullable<(typeof methods)[number]['pass_rate']>) => ({
    scope,
    method,
    passed: rate.successes,
    runs: rate.n,
    rate: rate.rate,
    lo: rate.lo,
    hi: rate.hi,
  });
  const rows: Rows = [
    ...methods.map((m) => row(ALL_TASKS, m.method, m.pass_rate!)),
    ...analysis.cells.flatMap((c) => (c.pass_rate ? [row(c.task, c.method, c.pass_rate)] : [])),
  ];
  const order = methodOrder(
    analysis,
    methods.map((m) => m.method),
  );
  const scopes = [ALL_TASKS, ...new Set(analysis.cells.map((c) => c.task))];
  const enc = methodEncodings(analysis, order);
  const x = { type: 'quantitative', scale: { domain: [0, 1] }, axis: { format: '%', tickCount: 3 } } as const;
  return {
    name,
    title: 'Pass rate by method',
    caption:
      'Share of runs that passed, over all tasks and per task, with Wilson 95% intervals. Replaced and unfinished runs are left out.',
    datasets: { pass_rate: rows },
    spec: {
      title: { text: 'Pass rate by method', subtitle: 'passed runs / runs, Wilson 95% interval' },
      data: { name: 'pass_rate' },
      facet: { column: { field: 'scope', type: 'nominal', sort: scopes, title: null } },
      spec: {
        width: 150,
        height: { step: 18 },
        layer: [
          {
            mark: { type: 'rule', strokeWidth: 2 },
            encoding: { ...enc, x: { ...x, field: 'lo', title: 'pass rate' }, x2: { field: 'hi' } },
          },
          {
            mark: { type: 'point', filled: true, size: 60, opacity: 1 },
            encoding: {
              ...enc,
              x: { ...x, field: 'rate', title: 'pass rate' },
              tooltip: [{ field: 'method' }, { field: 'scope' }, { field: 'passed' }, { field: 'runs' }],
            },
          },
        ],
      },
      resolve: { scale: { x: 'shared' } },
    } as never,
  };
}

/** Deterministic jitter in [-0.3, 0.3] from a run id, so points of one method do not overlap. */
function jitter(runId: string): number {
  let h = 0;
  for (let i = 0; i < runId.length; i++) h = (h * 31 + runId.charCodeAt(i)) % 1000003;
  return ((h % 1000) / 1000 - 0.5) * 0.6;
}

/** Every counted run's time to pass (failures at their budget), with each method's median and interval. */
export function timeToPassFigure(analysis: Analysis): Figure | Skipped {
  const name = 'time_to_pass';
  const bringUp = new Set(analysis.methods.map((m) => m.method));
  const runs = analysis.runs.filter((r) => counted(r) && bringUp.has(r.method) && r.time_to_pass_s !== null);
  if (!runs.length) return { name, skipped: 'no counted bring-up runs' };
  const order = methodOrder(
    analysis,
    runs.map((r) => r.method),
  );
  const runRows: Rows = runs.map((r) => ({
    run_id: r.run_id,
    task: r.task,
    method: r.method,
    time_s: r.time_to_pass_s,
    outcome: r.passed ? 'passed' : `failed (${r.status}), at budget`,
    passed: r.passed,
    jitter: jitter(r.run_id),
  }));
  const summary: Rows = analysis.methods
    .filter((m) => m.time_to_pass.median_s !== null)
    .map((m) => ({
      method: m.method,
      median_s: m.time_to_pass.median_s,
      censored: m.time_to_pass.censored,
      lo: m.time_to_pass.ci?.lo ?? null,
      hi: m.time_to_pass.ci?.hi ?? null,
    }));
  const enc = methodEncodings(analysis, order);
  const x = { type: 'quantitative', title: 'time to pass (s)', scale: { zero: true } } as const;
  return {
    name,
    title: 'Time to pass by method',
    caption:
      'Each point is a run: its wall time when it passed; a cross marks a run that did not pass, placed at its wall-time budget (right-censored). ' +
      'Black: the median over all tasks with its percentile-bootstrap 95% interval; a hollow median lies on a failure.',
    datasets: { runs: runRows, summary },
    spec: {
      title: {
        text: 'Time to pass by method',
        subtitle: 'runs (× = failed, at budget); median with bootstrap 95% interval',
      },
      height: { step: 26 },
      width: 460,
      layer: [
        {
          data: { name: 'summary' },
          mark: { type: 'rule', color: INK, strokeWidth: 1.5 },
          encoding: { y: enc.y, x: { ...x, field: 'lo' }, x2: { field: 'hi' } },
        },
        {
          data: { name: 'runs' },
          mark: { type: 'point', size: 40, strokeWidth: 1.5 },
          encoding: {
            ...enc,
            x: { ...x, field: 'time_s' },
            yOffset: { field: 'jitter', type: 'quantitative', scale: { domain: [-0.5, 0.5] } },
            shape: {
              field: 'passed',
              type: 'nominal',
              scale: { domain: [true, false], range: ['circle', 'cross'] },
              legend: null,
            },
            opacity: { value: 0.8 },
            tooltip: [{ field: 'run_id' }, { field: 'task' }, { field: 'outcome' }, { field: 'time_s', format: '.1f' }],
          },
        },
        {
          data: { name: 'summary' },
          mark: { type: 'tick', thickness: 3, size: 22, color: INK },
          encoding: {
            y: enc.y,
            x: { ...x, field: 'median_s' },
            opacity: {
              field: 'censored',
              type: 'ordinal',
              sort: [false, true],
              scale: { domain: [false, true], range: [1, 0.35] },
              legend: null,
            },
          },
        },
      ],
    } as never,
  };
}

const COST_PANELS = [
  { panel: 'dollars', components: ['llm_usd', 'compute_usd'], titles: ['LLM', 'compute'], format: '$.2~g' },
  {
    panel: 'tokens',
    components: ['input_tokens', 'output_tokens', 'thinking_tokens'],
    titles: ['input', 'output', 'thinking'],
    format: '~s',
  },
  { panel: 'machine seconds', components: ['machine_s'], titles: ['builds, simulations, probes'], format: '~s' },
] as const;

/** LLM and compute dollars, tokens (thinking apart) and machine time per passed run, per method. */
export function costFigure(analysis: Analysis): Figure | Skipped {
  const name = 'cost';
  const withPass = analysis.methods.filter((m) => m.per_pass);
  if (!withPass.length) return { name, skipped: 'no method passed a run' };
  const order = methodOrder(
    analysis,
    withPass.map((m) => m.method),
  );
  const rows: Rows = withPass.flatMap((m) =>
    COST_PANELS.flatMap(({ panel, components, titles }) =>
      components.map((component, i) => ({
        method: m.method,
        passes: m.passed,
        panel,
        component,
        part: titles[i]!,
        part_rank: i,
        value: m.per_pass![component],
      })),
    ),
  );
  const noPass = analysis.methods.filter((m) => !m.per_pass).map((m) => m.method);
  const enc = methodEncodings(analysis, order);
  return {
    name,
    title: 'Cost per passed run',
    caption:
      "Each method's totals over all its runs (passed or not) divided by its passes: LLM and compute dollars " +
      `(machine time at $${analysis.settings.hourly_usd}/h), tokens with thinking apart, and machine seconds.` +
      (noPass.length ? ` Methods with no pass are left out: ${noPass.join(', ')}.` : ''),
    datasets: { cost: rows },
    spec: {
      title: {
        text: 'Cost per passed run',
        subtitle: "each method's totals over its runs / its passes; parts dark to light",
      },
      data: { name: 'cost' },
      hconcat: COST_PANELS.map(({ panel, titles, format }) => ({
        transform: [{ filter: { field: 'panel', equal: panel } }],
        width: 170,
        height: { step: 18 },
        mark: { type: 'bar', stroke: 'white', strokeWidth: 0.5 },
        encoding: {
          ...enc,
          y: { ...enc.y, axis: panel === COST_PANELS[0].panel ? {} : null },
          x: {
            field: 'value',
            type: 'quantitative',
            aggregate: 'sum',
            stack: 'zero',
            title: [panel, titles.join(' · ')],
            axis: { format, tickCount: 4 },
          },
          opacity: {
            field: 'part_rank',
            type: 'ordinal',
            sort: [0, 1, 2],
            scale: { domain: [0, 1, 2], range: [1, 0.55, 0.25] },
            legend: null,
          },
          order: { field: 'part_rank' },
          tooltip: [
            { field: 'method' },
            { field: 'part' },
            { field: 'value', format: panel === COST_PANELS[0].panel ? '$.4f' : ',.0f' },
          ],
        },
      })),
    } as never,
  };
}
