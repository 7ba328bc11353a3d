/**
 * The loop's view of a checkout: build and run through the adapter, with a replay tag on every step.
 * A recording checkout stores each step's result under its tag; a replay checkout answers from a
 * recorded run, so the loop reproduces that run's decisions with no build and no simulation.
 */
import type { Deadline } from './budget.ts';
import type { BuildArtifact, BuildOptions, RunOptions, RunResult } from './openpiton/artifacts.ts';
import { makeConfig, type PitonConfig } from './openpiton/config.ts';
import { applyFiles, restorePending } from './openpiton/edits.ts';
import type { CoreKind } from './openpiton/geometry.ts';
import { restoreUnitTestScaffold } from './openpiton/unit-test.ts';
import { budgetExhaustedBuild } from './openpiton/unstarted.ts';
import { Workspace, type WorkspaceOptions } from './openpiton/workspace.ts';
import type { LoopOptions } from './spec.ts';
import type { Store } from './store/store.ts';

export interface StepTag {
  /** `<run_id>/iter<N>/<task_id>/<phase>`; phase build, run or run:<workload>. */
  readonly tag?: string;
}

export interface Checkout {
  /** The checkout root, or a label for a checkout that has none (replay). */
  readonly root: string;
  build(config: PitonConfig, options?: BuildOptions & StepTag): Promise<BuildArtifact>;
  run(config: PitonConfig, test: string, options?: RunOptions & StepTag): Promise<RunResult>;
  /** Commits, diffs and untracked files of the checkout, with the Verilator version (provenance, reuse). */
  sourceFingerprint?(): Promise<string>;
  verilatorVersion?(): Promise<string>;
  /** Write RTL edits into the checkout with a crash-safe backup; the result restores them. */
  applyEdits?(files: ReadonlyMap<string, string>): () => void;
  close?(): void | Promise<void>;
}

/** A checkout on disk, through the adapter: the loop's view of a Workspace for one core. */
export function workspaceCheckout(workspace: Workspace, core: CoreKind): Checkout {
  return {
    root: workspace.root,
    build: (config, options) => workspace.build(config, options),
    run: (config, test, options) => workspace.run(config, test, options),
    verilatorVersion: () => workspace.verilatorVersion(core),
    sourceFingerprint: async () => workspace.sourceFingerprint(await workspace.verilatorVersion(core)),
    applyEdits: (files) => applyFiles(workspace.root, files),
    close: () => workspace.close(),
  };
}

/** What a build within a run's budget needs to know. */
export interface BuildBudget {
  readonly deadline: Deadline;
  readonly options: Pick<LoopOptions, 'reuse_builds'>;
  readonly signal?: AbortSignal;
}

/** Build on a checkout with the time the run has left; a build that would start after the budget does not start. */
export async function buildWithinBudget(
  checkout: Checkout,
  config: PitonConfig,
  run: BuildBudget,
  tag?: string,
): Promise<BuildArtifact> {
  if (run.deadline.passed()) return budgetExhaustedBuild(config);
  return checkout.build(config, {
    clean: !run.options.reuse_builds,
    timeoutS: run.deadline.buildTimeoutS(),
    signal: run.signal,
    ...(tag ? { tag } : {}),
  });
}

/** Open each root as a checkout, undoing any RTL edit or unit-test scaffold a crash left applied. */
export function openCheckouts(roots: readonly string[], core: CoreKind, options: WorkspaceOptions = {}): Checkout[] {
  return roots.map((root) => {
    restorePending(root);
    restoreUnitTestScaffold(root);
    return workspaceCheckout(new Workspace(root, options), core);
  });
}

/** Records every tagged step of a checkout into the store's step_results table. */
export function recordingCheckout(checkout: Checkout, store: Store, runId: string): Checkout {
  // Step results share the commit of the iteration (or probes) they belong to.
  const save = (tag: string | undefined, kind: 'build' | 'run', result: BuildArtifact | RunResult) => {
    if (!tag) return;
    store.later((tx) =>
      tx.insert('step_results', { run_id: runId, tag, kind, checkout: checkout.root, result, recorded_at: new Date() }),
    );
  };
  return {
    root: checkout.root,
    async build(config, options) {
      const artifact = await checkout.build(config, options);
      save(options?.tag, 'build', artifact);
      return artifact;
    },
    async run(config, test, options) {
      const result = await checkout.run(config, test, options);
      save(options?.tag, 'run', result);
      return result;
    },
    sourceFingerprint: checkout.sourceFingerprint?.bind(checkout),
    verilatorVersion: checkout.verilatorVersion?.bind(checkout),
    applyEdits: checkout.applyEdits?.bind(checkout),
    close: checkout.close?.bind(checkout),
  };
}

export class ReplayMissing extends Error {
  override name = 'ReplayMissing';
}

/**
 * A checkout that answers from the step results recorded by run `sourceRunId`. Tags of the replaying
 * run carry its own run id; the prefix is swapped for the recorded one. `root` names a checkout on
 * disk whose sources the plan check reads (its define index); nothing is built or run there.
 */
export function replayCheckout(store: Store, sourceRunId: string, root = `replay:${sourceRunId}`): Checkout {
  const lookup = async (tag: string | undefined, kind: 'build' | 'run') => {
    if (!tag) throw new ReplayMissing('a replayed step needs a replay tag');
    const recorded = `${sourceRunId}${tag.slice(tag.indexOf('/'))}`;
    const row = await store.read((q) =>
      q.one<{ result: string }>('SELECT result FROM step_results WHERE run_id = $1 AND tag = $2 AND kind = $3', [
        sourceRunId,
        recorded,
        kind,
      ]),
    );
    if (!row) throw new ReplayMissing(`run ${sourceRunId} recorded no ${kind} step under tag ${recorded}`);
    return reviveDates(JSON.parse(row.result) as Record<string, unknown>);
  };
  return {
    root,
    async build(config, options) {
      const recorded = (await lookup(options?.tag, 'build')) as unknown as BuildArtifact;
      return { ...recorded, config: makeConfig({ ...(recorded.config as object) }) };
    },
    async run(_config, _test, options) {
      return (await lookup(options?.tag, 'run')) as unknown as RunResult;
    },
  };
}

function reviveDates(value: Record<string, unknown>): Record<string, unknown> {
  const out = { ...value };
  for (const key of ['startedAt', 'finishedAt'])
    if (typeof out[key] === 'string') out[key] = new Date(out[key] as string);
  return out;
}
