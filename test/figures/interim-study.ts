/**
 * A stand-in for the quickstart suite until `mace suite run` exists: real MACE loops on offline
 * checkouts with the scripted agent, over a few tasks × methods (full MACE, a one-shot baseline, four ablations, a seeded
 * fault) × repeats, written to one database. It records what the suite will: method, task, repeat,
 * seed, fault and loop options on every run.
 *
 *   node --import tsx test/figures/interim-study.ts OUT.duckdb [--speed 0.01]
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openCheckouts } from '../../mace/checkouts.ts';
import { makeBackend, parseLlmSpec } from '../../mace/llm/factory.ts';
import { RunLlm } from '../../mace/llm/recorder.ts';
import { defaultOfflineRoots } from '../../mace/openpiton/offline/index.ts';
import { runMaceLoop } from '../../mace/orchestrator.ts';
import { WORKLOADS_DIR } from '../../mace/paths.ts';
import { makeSpec, type LoopOptions, type MaceSpec, type Task } from '../../mace/spec.ts';
import { Store } from '../../mace/store/store.ts';

const BIST = 'CONFIG_DISABLE_BIST_CLEAR';

const TASKS: Record<string, MaceSpec> = {
  pico_2x2_addi: makeSpec({
    workloads: ['addi.S'],
    objective: `Verify the gate workloads pass on a 2x2 pico mesh in a single task. That task needs the ${BIST} RTL define.`,
    core: 'pico',
    target_mesh: [2, 2],
    budget: { max_iterations: 3, max_wall_s: 600 },
  }),
  pico_2x2_mem: makeSpec({
    workloads: ['addi.S', 'lw.S', 'sw.S'],
    objective: `Verify the gate workloads pass on a 2x2 pico mesh. The design needs the ${BIST} RTL define.`,
    core: 'pico',
    target_mesh: [2, 2],
    budget: { max_iterations: 3, max_wall_s: 600 },
  }),
  ariane_2x2_barrier: makeSpec({
    workloads: ['barrier_atomic_rv64.S'],
    objective: 'Verify the barrier gate workload passes on a 2x2 ariane mesh.',
    core: 'ariane',
    target_mesh: [2, 2],
    budget: { max_iterations: 3, max_wall_s: 600 },
  }),
};

interface Method {
  readonly options?: Partial<LoopOptions>;
  readonly fault?: string;
  readonly cores?: readonly string[];
  /** Overrides the task's iteration budget. */
  readonly iterations?: number;
}

/** Drop the BIST define from every task of the first plan (the suite's drop_bist fault). */
const dropBist = (iteration: number, tasks: Task[]): Task[] =>
  iteration > 0 ? tasks : tasks.map((t) => ({ ...t, config_rtl: (t.config_rtl ?? []).filter((d) => d !== BIST) }));

const METHODS: Record<string, Method> = {
  mace: {},
  one_shot: { options: { triage: 'off', post_mortem: false }, iterations: 1 },
  no_plan_check: { options: { plan_check: false } },
  no_narrowing: { options: { narrowing: false } },
  triage_off: { options: { triage: 'off' } },
  no_fast_path: { options: { fast_path: false } },
  seeded_drop_bist: { fault: 'drop_bist', cores: ['pico'] },
};

const REPEATS = 2;

async function main(): Promise<void> {
  const [out, ...rest] = process.argv.slice(2);
  if (!out) throw new Error('usage: interim-study.ts OUT.duckdb [--speed S]');
  const speed = rest[0] === '--speed' ? Number(rest[1]) : 0.01;
  const home = resolve('.mace/interim');
  mkdirSync(join(home, 'home'), { recursive: true });
  rmSync(out, { force: true });
  const store = await Store.open(out);
  const roots = await defaultOfflineRoots(2, { home, speed });
  const backend = await makeBackend(
    parseLlmSpec({
      backend: 'scripted',
      scripted: { mistakes: { unknown_define: 0.3, drop_objective_define: 0.5, l15_zero: 0.3, oversized_cache: 0.3 } },
    }),
  );
  let seed = 0;
  for (const [task, spec] of Object.entries(TASKS)) {
    for (const [method, m] of Object.entries(METHODS)) {
      if (m.cores && !m.cores.includes(spec.core)) continue;
      for (let repeat = 0; repeat < REPEATS; repeat++) {
        const runSeed = ++seed;
        const outcome = await runMaceLoop({
          spec: m.iterations ? { ...spec, budget: { ...spec.budget, max_iterations: m.iterations } } : spec,
          store,
          checkouts: openCheckouts(roots, spec.core, { loginShell: false }),
          workloadsDir: WORKLOADS_DIR,
          options: m.options,
          labels: {
            method,
            task,
            repeat,
            seed: runSeed,
            fault: m.fault ?? null,
            jobKey: `${task}/${method}/${repeat}`,
          },
          planHook: m.fault ? dropBist : undefined,
          llm: (runId) => new RunLlm(backend, { runId, seed: runSeed, store }),
        });
        console.log(`${task} ${method} #${repeat}: ${outcome.status}`);
      }
    }
  }
}

await main();
