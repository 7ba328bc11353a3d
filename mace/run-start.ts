/**
 * How every run begins, whoever runs it (the loop, or a harness method that is not the loop): the
 * run row with its labels and the project's provenance, then the checks made before any build.
 */
import type { Checkout } from './checkouts.ts';
import { prepareCore } from './generic-core.ts';
import { verifyChecksums } from './openpiton/workloads.ts';
import { projectProvenance } from './provenance.ts';
import type { LoopOptions, MaceSpec, RunStatus } from './spec.ts';
import type { Store } from './store/store.ts';
import { startRun, type NewRun } from './store/writers.ts';

/** Who a run is, for the harness: recorded in the runs table (meta is merged with the provenance). */
export type RunLabels = Pick<NewRun, 'method' | 'task' | 'repeat' | 'seed' | 'jobKey' | 'suiteHash' | 'fault'> & {
  readonly meta?: Readonly<Record<string, unknown>>;
};

export interface RunStart {
  readonly runId: string;
  readonly spec: MaceSpec;
  readonly labels: RunLabels;
  /** Loop options, for loop runs only. */
  readonly options?: LoopOptions;
  readonly backend: string | null;
  readonly model: string | null;
}

/** Record the run as `running` (startRun makes it method `mace` unless the labels say otherwise). */
export async function recordRunStart(store: Store, start: RunStart): Promise<void> {
  const { spec, labels } = start;
  await startRun(store, {
    ...labels,
    runId: start.runId,
    objective: spec.objective,
    core: spec.core,
    mesh: spec.target_mesh,
    workloads: spec.workloads,
    spec,
    options: start.options,
    backend: start.backend,
    model: start.model,
    meta: { ...projectProvenance(), ...(labels.meta ?? {}) },
  });
}

export interface RequirementProblem {
  readonly status: Extract<RunStatus, 'checksum_mismatch' | 'unsupported_core'>;
  readonly reason: string;
}

/**
 * What is checked before anything is built: the gate programs against CHECKSUMS, then that every
 * checkout can build the core (scaffolding a Generic Tile core's wrapper when it can).
 */
export async function requirementProblem(
  spec: MaceSpec,
  workloadsDir: string,
  checkouts: readonly Checkout[],
): Promise<RequirementProblem | undefined> {
  const problems = await verifyChecksums(workloadsDir);
  if (problems.length)
    return { status: 'checksum_mismatch', reason: `gate workloads do not match CHECKSUMS: ${problems.join('; ')}` };
  const unsupported = prepareCore(
    spec,
    checkouts.map((c) => c.root),
  );
  return unsupported ? { status: 'unsupported_core', reason: unsupported } : undefined;
}
