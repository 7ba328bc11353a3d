/**
 * What a method is: one async function with the same signature for every method (the loop, the
 * baselines, the ablations, seeded faults and fault checks), plus what the runner must know before
 * it starts a job: how many checkouts it takes, whether it needs an LLM, whether it runs once per
 * task, and which tasks it applies to.
 */
import type { Checkout } from '../../mace/checkouts.ts';
import type { RunLlm } from '../../mace/llm/recorder.ts';
import type { LoopEvents, RunLabels } from '../../mace/orchestrator.ts';
import type { LoopOptions, MaceSpec, RunStatus, Task } from '../../mace/spec.ts';
import type { Store } from '../../mace/store/store.ts';
import type { SeededFault } from '../faults/seeded.ts';
import type { CodesignEntry } from '../suite/schema.ts';

/** The part of a suite task a method reads. */
export interface MethodTask {
  readonly id: string;
  readonly kind: 'bringup' | 'codesign';
  /** The loop's input, with the task's effective budget. */
  readonly spec: MaceSpec;
  /** The expert configuration as a config task (B0's design, and what fault checks break). */
  readonly expert: Task;
  /** A co-design task's search: its space, grid, budgets; null for a bring-up task. */
  readonly codesign: CodesignEntry | null;
}

export interface MethodContext {
  /** Drawn by the runner, so progress can name the run before it starts. */
  readonly runId: string;
  readonly task: MethodTask;
  /** The checkouts leased to this job, opened for the task's core; no other job uses them meanwhile. */
  readonly checkouts: readonly Checkout[];
  readonly store: Store;
  /** The run's LLM recorder (seeded with the job's seed); undefined for methods that use none. */
  readonly llm: ((runId: string) => RunLlm) | undefined;
  /** Loop options on top of the defaults: the method's own, then a study-defined method's overrides. */
  readonly options: Partial<LoopOptions>;
  /** Who the run is: method, task, repeat, seed, job key, suite hash, fault, provenance and labels. */
  readonly labels: RunLabels;
  readonly workloadsDir: string;
  /** Aborted on a second Ctrl-C: the run stops and is recorded as an error (run again on resume). */
  readonly signal: AbortSignal;
  readonly events?: LoopEvents;
}

export interface MethodOutcome {
  readonly runId: string;
  readonly status: Exclude<RunStatus, 'running'>;
  readonly reason?: string;
}

export interface Method {
  readonly name: string;
  /** One line: what the method is and what it leaves out. */
  readonly summary: string;
  /** Checkouts one job takes: one, or every checkout the study allows a job (checkouts.per_job). */
  readonly checkouts: 'one' | 'all';
  readonly usesLlm: boolean;
  /** Runs through runMaceLoop with loop options, recorded in runs.options (the ablation table reads them). */
  readonly loop: boolean;
  /** Whether a study-defined method may build on it with option overrides. */
  readonly takesOptions: boolean;
  /** Runs `once_repeats` times per task (a deterministic method) instead of `repeats`. */
  readonly once: boolean;
  /** The loop options that make this method what it is (ablations); empty for the full loop. */
  readonly options: Partial<LoopOptions>;
  readonly fault?: SeededFault;
  applies(task: MethodTask): boolean;
  run(ctx: MethodContext): Promise<MethodOutcome>;
}

/** Every bring-up method runs on bring-up tasks only; co-design tasks belong to the co-design searches. */
export const isBringup = (task: MethodTask): boolean => task.kind === 'bringup';
export const isCodesign = (task: MethodTask): boolean => task.kind === 'codesign';
