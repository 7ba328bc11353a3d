/**
 * The loop's own time per iteration: everything but the simulated builds and runs (planning, the
 * plan check, the fast path, scheduling, failure analysis with the scripted agent, and recording
 * every step in DuckDB). Runs N offline loops of a PicoRV32 2x2 objective that needs one re-plan,
 * on offline checkouts at speed 0 with a plain shell, and subtracts the time spent inside the
 * adapter's build and run calls (starting bash and the model's sims, and the source fingerprint a
 * build checks before reusing a model) from each run's wall time.
 *
 *   node --import tsx bench/loop.ts [--loops 10]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

const { values } = parseArgs({ options: { loops: { type: 'string', default: '10' } } });
const loops = Number(values.loops);
const home = mkdtempSync(join(tmpdir(), 'mace-bench-loop-'));
try {
  const roots = await defaultOfflineRoots(1, { home, speed: 0 });
  let adapterMs = 0;
  const timed = async <T>(work: Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await work;
    } finally {
      adapterMs += performance.now() - started;
    }
  };
  const checkouts: Checkout[] = openCheckouts(roots, 'pico', { loginShell: false }).map((c) => ({
    ...c,
    build: (config, options) => timed(c.build(config, options)),
    run: (config, test, options) => timed(c.run(config, test, options)),
  }));
  const store = await Store.open(join(home, 'bench.duckdb'));
  const backend = await makeBackend(parseLlmSpec({ backend: 'scripted' }));
  const spec = makeSpec({
    workloads: ['addi.S'],
    objective: 'Verify addi.S passes on a 2x2 pico mesh.',
    core: 'pico',
    target_mesh: [2, 2],
    budget: { max_iterations: 3 },
  });

  const perIteration: number[] = [];
  const stepShare: number[] = [];
  for (let i = 0; i < loops; i++) {
    adapterMs = 0;
    const started = performance.now();
    const outcome = await runMaceLoop({
      spec,
      checkouts,
      store,
      workloadsDir: WORKLOADS_DIR,
      llm: (runId) => new RunLlm(backend, { runId, seed: i, store }),
    });
    const wallMs = performance.now() - started;
    perIteration.push((wallMs - adapterMs) / outcome.summary.iterations);
    stepShare.push(adapterMs);
    if (outcome.status !== 'passed') throw new Error(`loop ${i} ended ${outcome.status}: ${outcome.reason}`);
  }
  const sorted = [...perIteration].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const mean = perIteration.reduce((a, b) => a + b, 0) / perIteration.length;
  console.log(
    `loops: ${loops} (2 iterations each: a timeout, then a pass), one offline checkout, speed 0, plain shell`,
  );
  console.log(
    `harness time per iteration: median ${median.toFixed(1)} ms, mean ${mean.toFixed(1)} ms, min ${sorted[0]!.toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms`,
  );
  console.log(
    `time inside the adapter per loop (excluded): median ${[...stepShare].sort((a, b) => a - b)[Math.floor(loops / 2)]!.toFixed(0)} ms`,
  );
} finally {
  await closeAllStores();
  rmSync(home, { recursive: true, force: true });
}
