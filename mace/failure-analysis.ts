/**
 * What the loop does with a failed iteration: diagnose the first failed task (by triage's LLM call,
 * by handing the raw evidence on, or not at all, as LoopOptions.triage says), record the failure,
 * and add a note to the feedback history every later plan reads.
 */
import type { Diagnosis } from './directives.ts';
import { rawNote, replanNote } from './feedback.ts';
import type { TaskResult } from './integrator.ts';
import type { RunLlm } from './run-llm.ts';
import type { LoopOptions, MaceSpec } from './spec.ts';
import type { Store } from './store/store.ts';
import { recordFailure, type FailureStage } from './store/writers.ts';
import { triage, TriageError, UNKNOWN_DIAGNOSIS } from './triage.ts';

/** What a run has learned from its failures, carried from one iteration to the next. */
export interface RunMemory {
  /** Notes for the planner, oldest first. */
  readonly feedback: string[];
  /** Design keys that failed in this run (failed probes included). */
  readonly failedDesigns: Set<string>;
  /** Change sets narrowing showed break the design. */
  readonly badChangeSets: string[][];
}

export interface FailureAnalysis {
  readonly taskId: string;
  readonly diagnosis: Diagnosis;
  readonly stage: FailureStage;
  /** The note added to the feedback history, if any. */
  readonly note: string | undefined;
}

export interface FailureInput {
  readonly spec: MaceSpec;
  readonly options: LoopOptions;
  readonly llm: RunLlm;
  readonly store: Store;
  readonly runId: string;
  readonly iteration: number;
  readonly failed: TaskResult;
  readonly memory: RunMemory;
  readonly signal?: AbortSignal;
}

export async function analyseFailure(input: FailureInput): Promise<FailureAnalysis> {
  const { spec, options, failed, memory } = input;
  let diagnosis: Diagnosis;
  let stage: FailureStage;
  let note: string | undefined;

  if (options.triage === 'off') {
    diagnosis = { diagnosis: 'not_triaged', fix: '' };
    stage = 'not_triaged';
  } else if (options.triage === 'raw') {
    diagnosis = { diagnosis: 'raw_evidence', fix: '' };
    stage = 'raw_evidence';
    note = rawNote(failed);
  } else {
    try {
      diagnosis = await triage({ spec, result: failed, rtlEdits: options.rtl_edits }, input.llm, {
        iteration: input.iteration,
        signal: input.signal,
      });
    } catch (error) {
      if (!(error instanceof TriageError)) throw error;
      diagnosis = UNKNOWN_DIAGNOSIS;
    }
    stage = 'triage';
    note = replanNote({ spec, result: failed, diagnosis, fromProbes: false, rawEvidence: options.raw_evidence });
  }

  if (note) memory.feedback.push(note);
  await recordFailure(input.store, {
    runId: input.runId,
    iteration: input.iteration,
    taskId: failed.task.id,
    diagnosis: diagnosis.diagnosis,
    fix: diagnosis.fix,
    stage,
    feedback: note ?? null,
  });
  return { taskId: failed.task.id, diagnosis, stage, note };
}
