/**
 * Co-design searches: the best feasible finish time each search had found after every simulated
 * design, per task, one line per search coloured by strategy.
 */
import type { Analysis } from '../analysis/index.ts';
import type { Figure, Rows, Skipped } from './figure.ts';
import { methodScale } from './palette.ts';

export function codesignFigure(analysis: Analysis): Figure | Skipped {
  const name = 'codesign';
  const searches = analysis.codesign.searches.filter((s) => !s.replaced && s.curve.some((b) => b !== null));
  if (!searches.length) return { name, skipped: 'no co-design search found a feasible design' };
  const curves: Rows = searches.flatMap((s) =>
    s.curve.flatMap((best, i) =>
      best === null
        ? []
        : [{ run_id: s.run_id, task: s.task, method: s.method, simulations: i + 1, best_sim_time: best }],
    ),
  );
  const methods = [...new Set(searches.map((s) => s.method))].sort();
  return {
    name,
    title: 'Co-design: best finish time against simulations',
    caption:
      'Each line is one search: the best feasible simulated finish time it had found after each simulated design (rejected proposals cost no simulation).',
    datasets: { curves },
    spec: {
      title: { text: 'Co-design searches', subtitle: 'best feasible finish time after each simulated design' },
      data: { name: 'curves' },
      facet: { column: { field: 'task', type: 'nominal', title: null } },
      resolve: { scale: { y: 'independent' } },
      spec: {
        width: 220,
        height: 180,
        mark: { type: 'line', interpolate: 'step-after', point: { size: 14 }, strokeWidth: 1.5 },
        encoding: {
          x: { field: 'simulations', type: 'quantitative', title: 'simulations', axis: { tickMinStep: 1 } },
          y: {
            field: 'best_sim_time',
            type: 'quantitative',
            title: 'best finish time (cycles)',
            scale: { zero: false },
          },
          detail: { field: 'run_id' },
          color: {
            field: 'method',
            type: 'nominal',
            scale: methodScale(methods, Object.keys(analysis.kinds)),
            title: 'strategy',
          },
          tooltip: [{ field: 'run_id' }, { field: 'simulations' }, { field: 'best_sim_time' }],
        },
      },
    } as never,
  };
}
