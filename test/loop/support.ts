/**
 * Builders for end-to-end loop tests: offline checkouts (the embedded default, the same code path
 * as a real checkout), the scripted agent, and a results store in a temporary folder.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openCheckouts, type Checkout } from '../../mace/checkouts.ts';
import { makeBackend, parseLlmSpec } from '../../mace/llm/factory.ts';
import { RunLlm } from '../../mace/llm/recorder.ts';
import type { MistakeRates } from '../../mace/llm/scripted/index.ts';
import type { LlmBackend } from '../../mace/llm/types.ts';
import { defaultOfflineRoots } from '../../mace/openpiton/offline/index.ts';
import { runMaceLoop, type LoopInput, type LoopOutcome } from '../../mace/orchestrator.ts';
import { makeSpec, type LoopOptions, type MaceSpec, type MaceSpecInput } from '../../mace/spec.ts';
import { runTrace, type RunTrace } from '../../mace/store/readers.ts';
import { Store } from '../../mace/store/store.ts';
import { WORKLOADS_DIR } from '../../mace/paths.ts';
import { tempDir } from '../helpers.ts';

export const WORKLOADS = WORKLOADS_DIR;

export const PICO_OBJECTIVE =
  'Verify the gate workloads pass on a 2x2 pico mesh in a single task. That task needs the CONFIG_DISABLE_BIST_CLEAR RTL define.';

export function picoSpec(extra: Partial<MaceSpecInput> = {}): MaceSpec {
  return makeSpec({
    workloads: ['addi.S'],
    objective: PICO_OBJECTIVE,
    core: 'pico',
    target_mesh: [2, 2],
    budget: { max_iterations: 3 },
    ...extra,
  });
}

export function arianeSpec(extra: Partial<MaceSpecInput> = {}): MaceSpec {
  return makeSpec({
    workloads: ['barrier_atomic_rv64.S'],
    objective: 'Verify the barrier gate workload passes on a 2x2 ariane mesh.',
    core: 'ariane',
    target_mesh: [2, 2],
    budget: { max_iterations: 3 },
    ...extra,
  });
}

/** A folder of offline checkouts shared by one test file (model speed 0: no simulated waiting). */
export class OfflineLab {
  readonly dir = tempDir('mace-loop-');
  private roots: Promise<string[]> | undefined;

  checkoutRoots(count = 2): Promise<string[]> {
    this.roots ??= defaultOfflineRoots(2, { home: this.dir, speed: 0 });
    return this.roots.then((roots) => roots.slice(0, count));
  }

  /** The login shell reads this HOME's (empty) profile, not the developer's. */
  async checkouts(core: MaceSpec['core'], count = 2): Promise<Checkout[]> {
    const home = join(this.dir, 'home');
    mkdirSync(home, { recursive: true });
    return openCheckouts(await this.checkoutRoots(count), core, { env: { HOME: home } });
  }

  private opened: Promise<Store> | undefined;

  /** The lab's results database. */
  db(): Promise<Store> {
    this.opened ??= Store.open(join(this.dir, 'runs.duckdb'));
    return this.opened;
  }

  scripted(mistakes: MistakeRates = {}): Promise<LlmBackend> {
    return makeBackend(parseLlmSpec({ backend: 'scripted', scripted: { mistakes } }));
  }

  /** Run one loop on the offline checkouts with the scripted agent (or the given backend). */
  async run(
    spec: MaceSpec,
    extra: Partial<Omit<LoopInput, 'llm'>> & {
      options?: Partial<LoopOptions>;
      mistakes?: MistakeRates;
      backend?: LlmBackend;
      seed?: number;
      checkoutCount?: number;
    } = {},
  ): Promise<{ outcome: LoopOutcome; trace: RunTrace; store: Store }> {
    const store = extra.store ?? (await this.db());
    const backend = extra.backend ?? (await this.scripted(extra.mistakes));
    const outcome = await runMaceLoop({
      spec,
      store,
      checkouts: extra.checkouts ?? (await this.checkouts(spec.core, extra.checkoutCount)),
      workloadsDir: extra.workloadsDir ?? WORKLOADS,
      llm: (runId) => new RunLlm(backend, { runId, seed: extra.seed ?? 1, store }),
      ...extra,
    });
    return { outcome, trace: (await runTrace(store, outcome.runId))!, store };
  }
}
