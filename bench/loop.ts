/**
 * The loop's own time per iteration: everything but the simulated builds and runs (planning and its
 * retries, the plan check, the fast path, scheduling, failure analysis with the scripted agent, and
 * recording every step in DuckDB). Runs N offline loops on one offline checkout at speed 0 with a
 * plain shell, and subtracts the time spent inside the adapter's build and run calls (starting bash
 * and the model's sims, and the source fingerprint a build checks before reusing a model). The
 * per-run setup (recording the run, checksums, checkout provenance, the final summary) is printed
 * on its own, and so are the store's commits: an iteration commits while the next one builds, so
 * its commit is not in the harness time unless it outlasts the builds.
 *
 *   node --import tsx bench/loop.ts [--loops 10] [--iterations 4]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openCheckouts, type Checkout } from '../mace/checkouts.ts';
import { makeBackend, parseLlmSpec } from '../mace/llm/factory.ts';
import { RunLlm } from '../mace/llm/recorder.ts';
import { defaultOfflineRoots } from '../mace/openpiton/offline/index.ts';
import { runMaceLoop } from '../mace/orchestrator.ts';
import { WORKLOADS_DIR } from '../mace/paths.ts';
import { makeSpec } from '../mace/spec.ts';
import { closeAllStores, Store } from '../mace/store/store.ts';

const { values } = parseArgs({
  options: { loops: { type: 'string', default: '10' }, iterations: { type: 'string', default: '4' } },
});
const loops = Number(values.loops);
const home = mkdtempSync(join(tmpdir(), 'mace-bench-loop-'));

/** Wall time and time inside the adapter, accumulated between marks. */
let adapterMs = 0;
const timed = async <T>(work: Promise<T>): Promise<T> => {
  const started = performance.now();
  try {
    return await work;
  } finally {
    adapterMs += performance.now() - started;
  }
};
let mark = { at: 0, adapter: 0 };
const since = () => {
  const now = { at: performance.now(), adapter: adapterMs };
  const own = now.at - mark.at - (now.adapter - mark.adapter);
  mark = now;
  return own;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

try {
  const roots = await defaultOfflineRoots(1, { home, speed: 0 });
  const checkouts: Checkout[] = openCheckouts(roots, 'pico', { loginShell: false }).map((c) => ({
    ...c,
    build: (config, options) => timed(c.build(config, options)),
    run: (config, test, options) => timed(c.run(config, test, options)),
  }));
  const store = await Store.open(join(home, 'bench.duckdb'));
  const commitMs: number[] = [];
  const write = store.write.bind(store);
  store.write = async (fn) => {
    const started = performance.now();
    try {
      return await write(fn);
    } finally {
      commitMs.push(performance.now() - started);
    }
  };
  const backend = await makeBackend(parseLlmSpec({ backend: 'scripted' }));
  // Triage off: the planner repeats itself, the plan check sends the repeat back, and the design
  // (no CONFIG_DISABLE_BIST_CLEAR) times out every iteration: full iterations with retries.
  const spec = makeSpec({
    workloads: ['addi.S'],
    objective: 'Verify addi.S passes on a 2x2 pico mesh.',
    core: 'pico',
    target_mesh: [2, 2],
    budget: { max_iterations: Number(values.iterations) },
  });

  const iterationMs: number[] = [];
  const setupMs: number[] = [];
  const adapterPerRun: number[] = [];
  for (let i = 0; i < loops; i++) {
    let setup = 0;
    adapterMs = 0;
    mark = { at: performance.now(), adapter: 0 };
    const outcome = await runMaceLoop({
      spec,
      checkouts,
      store,
      workloadsDir: WORKLOADS_DIR,
      options: { triage: 'off', post_mortem: false },
      llm: (runId) => new RunLlm(backend, { runId, seed: i, store }),
      events: {
        onIterationStart: (iteration) => {
          if (iteration === 0) setup += since();
        },
        onIteration: () => iterationMs.push(since()),
      },
    });
    setup += since();
    setupMs.push(setup);
    adapterPerRun.push(adapterMs);
    if (outcome.status !== 'budget_exceeded') throw new Error(`loop ${i} ended ${outcome.status}: ${outcome.reason}`);
  }
  console.log(
    `${loops} loops of ${values.iterations} iterations (plan, plan-check retries, a build and a run each), one offline checkout, speed 0, plain shell`,
  );
  console.log(
    `harness time per iteration: median ${median(iterationMs).toFixed(1)} ms (min ${Math.min(...iterationMs).toFixed(1)}, max ${Math.max(...iterationMs).toFixed(1)}, n ${iterationMs.length})`,
  );
  console.log(
    `per-run setup and finish (record, checksums, provenance, summary): median ${median(setupMs).toFixed(0)} ms`,
  );
  console.log(`time inside the adapter per run (excluded): median ${median(adapterPerRun).toFixed(0)} ms`);
  console.log(
    `store writes (each iteration's commit among them, overlapping the next iteration's builds): median ${median(commitMs).toFixed(1)} ms, n ${commitMs.length}`,
  );
  console.log(`load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`);
} finally {
  await closeAllStores();
  rmSync(home, { recursive: true, force: true });
}
