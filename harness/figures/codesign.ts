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
            title: 'best finish time (simulated)',
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

/**
 * The area-time trade-off: every design a search simulated to a pass, by its cache area and finish
 * time; the dashed line joins the designs no other passing design beats on both (the Pareto front
 * over every search of the task).
 */
export function codesignParetoFigure(analysis: Analysis): Figure | Skipped {
  const name = 'codesign_pareto';
  const designs = analysis.codesign.searches
    .filter((s) => !s.replaced)
    .flatMap((s) =>
      s.passed.flatMap((p) =>
        p.area_um2 === null
          ? []
          : [
              {
                kind: 'design',
                task: s.task,
                method: s.method,
                run_id: s.run_id,
                area_um2: p.area_um2,
                sim_time: p.sim_time,
              },
            ],
      ),
    );
  if (!designs.length) return { name, skipped: 'no co-design search simulated a design to a pass' };
  const front: Array<Record<string, string | number>> = [];
  for (const task of new Set(designs.map((d) => d.task))) {
    let soonest = Infinity;
    const byArea = designs
      .filter((d) => d.task === task)
      .sort((a, b) => a.area_um2 - b.area_um2 || a.sim_time - b.sim_time);
    for (const d of byArea)
      if (d.sim_time < soonest) {
        soonest = d.sim_time;
        front.push({ kind: 'front', task, area_um2: d.area_um2, sim_time: d.sim_time });
      }
  }
  const methods = [...new Set(designs.map((d) => d.method))].sort();
  const x = { field: 'area_um2', type: 'quantitative', title: 'cache area, all tiles (µm²)', scale: { zero: false } };
  const y = { field: 'sim_time', type: 'quantitative', title: 'finish time (simulated)', scale: { zero: false } };
  return {
    name,
    title: 'Co-design: cache area against finish time',
    caption:
      'Each point is a design a search simulated to a pass (a design over the area budget is never built). The dashed line is the Pareto front over every search of the task: no passing design is both smaller and sooner than a design on it.',
    datasets: { designs: [...designs, ...front] },
    spec: {
      title: { text: 'Co-design: area against finish time', subtitle: 'Pareto front over every search of the task' },
      data: { name: 'designs' },
      facet: { column: { field: 'task', type: 'nominal', title: null } },
      resolve: { scale: { x: 'independent', y: 'independent' } },
      spec: {
        width: 240,
        height: 180,
        layer: [
          {
            transform: [{ filter: "datum.kind === 'front'" }],
            mark: { type: 'line', interpolate: 'step-after', color: '#888', strokeDash: [4, 3] },
            encoding: { x, y },
          },
          {
            transform: [{ filter: "datum.kind === 'design'" }],
            mark: { type: 'point', size: 40, strokeWidth: 1.5, filled: true },
            encoding: {
              x,
              y,
              color: {
                field: 'method',
                type: 'nominal',
                scale: methodScale(methods, Object.keys(analysis.kinds)),
                title: 'strategy',
              },
              tooltip: [{ field: 'run_id' }, { field: 'method' }, { field: 'area_um2' }, { field: 'sim_time' }],
            },
          },
        ],
      },
    } as never,
  };
}
