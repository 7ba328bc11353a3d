/**
 * The suite runner's own cost on a suite (the quickstart by default), run from scratch into a fresh
 * database on fresh offline checkouts:
 *
 * - planning: loading the suite, making the checkouts, their identity, reading what the database holds;
 * - per job, the runner's overhead: the job's time as the runner saw it (lease to release: opening
 *   the checkouts, clearing their build caches, planting a source fault, reading the job's cost back)
 *   minus the run's own recorded time (started_at to finished_at);
 * - the makespan against the ideal, the sum of job times divided by the number of checkouts, and the
 *   checkout time left idle.
 *
 *   node --import tsx bench/suite.ts [--suite suites/quickstart.yaml] [--keep DIR]
 *
 * The machine's load average is printed beside the figures: other processes on a shared machine
 * slow every job.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { median } from '../harness/analysis/stats.ts';
import { planSweep, runSweep } from '../harness/runner/sweep.ts';
import { loadSuite } from '../harness/suite/load.ts';
import { Store, closeAllStores } from '../mace/store/store.ts';

const { values: args } = parseArgs({
  options: { suite: { type: 'string', default: 'suites/quickstart.yaml' }, keep: { type: 'string' } },
});
const dir = args.keep ?? mkdtempSync(join(tmpdir(), 'mace-bench-suite-'));
process.env.MACE_HOME = join(dir, 'home');
const db = join(dir, 'bench.duckdb');
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

const loadAtStart = load();
const t0 = performance.now();
const suite = loadSuite(args.suite!);
const plan = await planSweep(suite, { db });
const planS = (performance.now() - t0) / 1000;
const jobS = new Map<string, number>();
const methodOf = new Map<string, string>();
const t1 = performance.now();
const outcome = await runSweep(
  plan,
  { db },
  {
    events: {
      jobFinish: (job, result) => {
        jobS.set(result.runId!, result.wallS);
        methodOf.set(result.runId!, job.method.name);
      },
    },
  },
);
const makespanS = (performance.now() - t1) / 1000;

const store = await Store.openForRead(db);
const runs = await store.read((q) =>
  q.all<{ run_id: string; wall_s: number }>(
    'SELECT run_id, (epoch_ms(finished_at) - epoch_ms(started_at)) / 1000.0 AS wall_s FROM runs',
  ),
);
const overheads = runs.map((r) => jobS.get(r.run_id)! - Number(r.wall_s));
// build_check re-simulates its accepted designs after its run is recorded: method work, not the runner's.
const runnerOnly = runs
  .filter((r) => methodOf.get(r.run_id) !== 'build_check')
  .map((r) => jobS.get(r.run_id)! - Number(r.wall_s));
const sumJobS = [...jobS.values()].reduce((a, b) => a + b, 0);
const checkouts = plan.setup.roots.length;
const ideal = sumJobS / checkouts;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const ms = (s: number) => `${(s * 1000).toFixed(0)} ms`;

console.log(
  `suite ${suite.name}: ${outcome.results.length} jobs on ${checkouts} checkouts (${plan.setup.description})`,
);
console.log(`machine: ${cpus().length} cores, load average ${loadAtStart} at start, ${load()} at end`);
console.log(`planning (load, checkouts, identity, resume state): ${planS.toFixed(2)} s`);
console.log(
  `runner overhead per job (job time − the run's own time): mean ${ms(mean(overheads))}, median ${ms(median(overheads)!)}, max ${ms(Math.max(...overheads))}`,
);
console.log(
  `  without build_check (its re-simulation runs after its run is recorded): mean ${ms(mean(runnerOnly))}, median ${ms(median(runnerOnly)!)}, max ${ms(Math.max(...runnerOnly))}`,
);
console.log(`job time: sum ${sumJobS.toFixed(1)} s, median ${median([...jobS.values()])!.toFixed(2)} s per job`);
console.log(
  `makespan ${makespanS.toFixed(1)} s against sum of job times / ${checkouts} checkouts = ${ideal.toFixed(1)} s ` +
    `(${((makespanS / ideal - 1) * 100).toFixed(1)}% over; ${(makespanS * checkouts - sumJobS).toFixed(1)} checkout-seconds idle)`,
);
console.log(`total wall, planning included: ${(planS + makespanS).toFixed(1)} s`);
await closeAllStores();
if (!args.keep) rmSync(dir, { recursive: true, force: true });
