/**
 * Figures of methods against the reference: each ablation's paired per-task differences with the
 * signed-rank test, and recovery from each seeded fault with the stage that caught it.
 */
import { CATCH_STAGES, type Analysis } from '../analysis/index.ts';
import type { Figure, Rows, Skipped } from './figure.ts';
import { methodEncodings, methodOrder } from './methods.ts';
import { INK, categoryScale } from './palette.ts';

const formatP = (p: number) => (p < 0.001 ? p.toExponential(1) : p.toFixed(3));

/** Each ablation (a method whose loop options differ from the reference's) against the reference, task by task. */
export function ablationFigure(analysis: Analysis): Figure | Skipped {
  const name = 'ablations';
  const ref = analysis.settings.reference;
  const ablations = analysis.comparisons.filter((c) => c.changes.length && c.tasks);
  if (!ablations.length) return { name, skipped: `no method with changed loop options shares a task with ${ref}` };
  const pText = (c: (typeof ablations)[number]) =>
    `p = ${formatP(c.test.p)}${c.p_holm === null ? '' : `, Holm ${formatP(c.p_holm)}`}`;
  const perTask: Rows = ablations.flatMap((c) =>
    c.per_task.map((t) => ({
      method: c.method,
      task: t.task,
      method_s: t.method_s,
      reference_s: t.reference_s,
      difference_s: t.method_s - t.reference_s,
    })),
  );
  const summary: Rows = ablations.map((c) => ({
    method: c.method,
    changes: c.changes.join(', '),
    tasks: c.tasks,
    non_zero: c.test.n,
    median_s: c.time_difference_s.median,
    lo: c.time_difference_s.ci?.lo ?? null,
    hi: c.time_difference_s.ci?.hi ?? null,
    w_plus: c.test.wPlus,
    p: c.test.p,
    p_holm: c.p_holm,
    p_text: pText(c),
  }));
  const order = methodOrder(
    analysis,
    ablations.map((c) => c.method),
  );
  const enc = methodEncodings(analysis, order);
  const y = enc.y;
  const x = { type: 'quantitative', title: `time to pass, ablation − ${ref} (s, per task)` } as const;
  const few = ablations.filter((c) => c.test.n < analysis.settings.min_tasks_for_significance).length;
  return {
    name,
    title: `Ablations against ${ref}`,
    caption:
      `Each point is a task: the ablation's median time to pass minus ${ref}'s (failures at budget). ` +
      `Black: the median difference with a bootstrap 95% interval. p: exact two-sided Wilcoxon signed-rank test over tasks, Holm-adjusted in brackets.` +
      (few
        ? ` ${few} ablation(s) have fewer than ${analysis.settings.min_tasks_for_significance} non-zero pairs: p < 0.05 is out of reach.`
        : ''),
    datasets: { per_task: perTask, summary },
    spec: {
      title: { text: `Ablations against ${ref}`, subtitle: 'per-task paired differences; > 0: slower than full MACE' },
      width: 420,
      height: { step: 28 },
      layer: [
        {
          data: { values: [{ zero: 0 }] },
          mark: { type: 'rule', color: '#888888', strokeDash: [4, 3] },
          encoding: { x: { field: 'zero', type: 'quantitative' } },
        },
        {
          data: { name: 'summary' },
          mark: { type: 'rule', color: INK, strokeWidth: 1.5 },
          encoding: { y, x: { ...x, field: 'lo' }, x2: { field: 'hi' } },
        },
        {
          data: { name: 'per_task' },
          mark: { type: 'point', filled: true, size: 50, opacity: 0.85 },
          encoding: {
            y,
            color: enc.color,
            x: { ...x, field: 'difference_s' },
            tooltip: [{ field: 'task' }, { field: 'method_s', format: '.1f' }, { field: 'reference_s', format: '.1f' }],
          },
        },
        {
          data: { name: 'summary' },
          mark: { type: 'tick', thickness: 3, size: 22, color: INK },
          encoding: { y, x: { ...x, field: 'median_s' } },
        },
        {
          data: { name: 'summary' },
          mark: { type: 'text', align: 'left', baseline: 'middle', dx: 10, fontSize: 11, color: INK },
          encoding: { y, x: { value: 'width' }, text: { field: 'p_text' } },
        },
      ],
    } as never,
  };
}

/** Per seeded fault and method: the share of runs that recovered, and which stage caught the fault. */
export function recoveryFigure(analysis: Analysis): Figure | Skipped {
  const name = 'recovery';
  const rows = analysis.recovery.filter((r) => r.recovered);
  if (!rows.length) return { name, skipped: 'no seeded-fault runs' };
  const order = methodOrder(
    analysis,
    rows.map((r) => r.method),
  );
  const rowLabel = (fault: string, method: string) => `${fault}: ${method}`;
  const labels = [...rows]
    .sort((a, b) => a.fault.localeCompare(b.fault) || order.indexOf(a.method) - order.indexOf(b.method))
    .map((r) => rowLabel(r.fault, r.method));
  const recovered: Rows = rows.map((r) => ({
    fault: r.fault,
    method: r.method,
    row: rowLabel(r.fault, r.method),
    runs: r.runs,
    recovered: r.recovered!.successes,
    rate: r.recovered!.rate,
    lo: r.recovered!.lo,
    hi: r.recovered!.hi,
    iterations_to_recover: r.iterations_to_recover,
  }));
  const caught: Rows = rows.flatMap((r) =>
    CATCH_STAGES.filter((s) => r.caught_by[s] > 0).map((stage) => ({
      fault: r.fault,
      method: r.method,
      row: rowLabel(r.fault, r.method),
      stage,
      stage_rank: CATCH_STAGES.indexOf(stage),
      runs: r.caught_by[stage],
    })),
  );
  const enc = methodEncodings(analysis, order);
  const y = { field: 'row', type: 'nominal', sort: labels, title: null } as const;
  const rate = {
    type: 'quantitative',
    scale: { domain: [0, 1] },
    axis: { format: '%', tickCount: 3 },
    title: 'recovered',
  } as const;
  return {
    name,
    title: 'Recovery from seeded faults',
    caption:
      'The first plan of each run was broken by the fault. Left: share of runs that still passed, with Wilson 95% intervals. ' +
      "Right: the stage that caught iteration 0's failure: a plan check that rejected or changed the plan, else the stage recorded on its failures.",
    datasets: { recovered, caught },
    spec: {
      title: {
        text: 'Recovery from seeded faults',
        subtitle: 'recovered runs, and the stage that caught the broken first plan',
      },
      resolve: { scale: { color: 'independent' } },
      hconcat: [
        {
          data: { name: 'recovered' },
          width: 170,
          height: { step: 22 },
          layer: [
            {
              mark: { type: 'rule', strokeWidth: 2 },
              encoding: { y, color: enc.color, x: { ...rate, field: 'lo' }, x2: { field: 'hi' } },
            },
            {
              mark: { type: 'point', filled: true, size: 60, opacity: 1 },
              encoding: {
                y,
                color: enc.color,
                x: { ...rate, field: 'rate' },
                tooltip: [{ field: 'recovered' }, { field: 'runs' }, { field: 'iterations_to_recover' }],
              },
            },
          ],
        },
        {
          data: { name: 'caught' },
          width: 170,
          height: { step: 22 },
          mark: { type: 'bar', stroke: 'white', strokeWidth: 0.5 },
          encoding: {
            y: { ...y, axis: null },
            x: {
              field: 'runs',
              type: 'quantitative',
              aggregate: 'sum',
              stack: 'zero',
              title: 'runs caught by',
              axis: { tickMinStep: 1 },
            },
            color: {
              field: 'stage',
              type: 'nominal',
              scale: categoryScale(
                CATCH_STAGES,
                CATCH_STAGES.filter((s) => rows.some((r) => r.caught_by[s] > 0)),
              ),
              title: 'caught by',
              sort: [...CATCH_STAGES],
            },
            order: { field: 'stage_rank' },
            tooltip: [{ field: 'method' }, { field: 'stage' }, { field: 'runs' }],
          },
        },
      ],
    } as never,
  };
}
