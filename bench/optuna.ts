/**
 * What the Optuna bridge costs: the time to open a study (start Python, import optuna, create the
 * study) and the time per ask and per tell over a TPE search the size of a co-design run, on a space
 * shaped like the co-design one (sizes and ways of four caches, and the network).
 *
 *   node --import tsx bench/optuna.ts [trials] [repeats]
 */
import { loadavg } from 'node:os';
import { OptunaStudy, type KnobValue } from '../mace/codesign/optuna.ts';

const trials = Number(process.argv[2] ?? 40);
const repeats = Number(process.argv[3] ?? 3);
const knobs = [
  ...['l1i', 'l1d', 'l15', 'l2'].flatMap((cache) => [
    { name: `${cache}_size`, values: [4096, 8192, 16384, 32768, 65536] },
    { name: `${cache}_ways`, values: [1, 2, 4, 8] },
  ]),
  { name: 'network', values: ['2dmesh', 'xbar'] },
];

/** A smooth objective with a known optimum, so TPE does the work it would in a real search. */
function objective(params: Record<string, KnobValue>): number {
  return knobs.reduce((sum, knob) => sum + Math.abs(knob.values.indexOf(params[knob.name] as never) - 1), 0);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

console.log(`load average ${loadavg()[0]!.toFixed(2)}; ${knobs.length} knobs, ${trials} trials, ${repeats} repeats`);
const HEADINGS = ['repeat', 'open ms', 'ask ms', 'ask ms, last 10', 'tell ms', 'total s', 'best'];
const WIDTHS = HEADINGS.map((heading) => heading.length);
console.log(`${HEADINGS.join(' ')}   (ask and tell: medians)`);
for (let r = 0; r < repeats; r++) {
  let started = performance.now();
  const study = await OptunaStudy.open({ knobs, seed: r });
  const openMs = performance.now() - started;
  const asks: number[] = [];
  const tells: number[] = [];
  let best = Infinity;
  for (let i = 0; i < trials; i++) {
    started = performance.now();
    const { trial, params } = await study.ask();
    asks.push(performance.now() - started);
    const value = objective(params);
    best = Math.min(best, value);
    started = performance.now();
    await study.tell(trial, value);
    tells.push(performance.now() - started);
  }
  await study.close();
  const total = (openMs + asks.reduce((a, b) => a + b) + tells.reduce((a, b) => a + b)) / 1000;
  const cells = [r, openMs.toFixed(0), median(asks).toFixed(1), median(asks.slice(-10)).toFixed(1)];
  cells.push(median(tells).toFixed(1), total.toFixed(2), best);
  console.log(cells.map((cell, i) => String(cell).padEnd(WIDTHS[i]!)).join(' '));
}
