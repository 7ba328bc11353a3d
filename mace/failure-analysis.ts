/**
 * What the loop does with a failed iteration: diagnose the first failed task (by triage's LLM call,
 * by handing the raw evidence on, or not at all, as LoopOptions.triage says), record the failure,
 * and add a note to the feedback history every later plan reads.
 */
import type { Deadline } from './budget.ts';
import type { Checkout } from './checkouts.ts';
import type { Diagnosis } from './directives.ts';
import { rawNote, replanNote } from './feedback.ts';
import type { ExecutionContext, TaskResult } from './integrator.ts';
import type { LlmTool } from './llm/types.ts';
import { diagnosticTools } from './diagnostic-tools.ts';
import { breakingSet, narrow, type Narrowing } from './narrowing.ts';
import { configForTask, designKey } from './design.ts';
import { simsFlags } from './openpiton/config.ts';
import type { RunLlm } from './llm/recorder.ts';
import type { LoopOptions, MaceSpec } from './spec.ts';
import type { Store } from './store/store.ts';
import { recordFailure, recordProbes, type FailureStage } from './store/writers.ts';
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
  readonly narrowing: Narrowing | undefined;
}

/** A unit_test build that fails on a port the real module lacks is the testbench's fault, not the module's. */
export const PINNOTFOUND = /%Error-PINNOTFOUND\b/;

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
  /** The run's open checkouts, budget and execution settings, for narrowing's probes. */
  readonly checkouts: readonly Checkout[];
  readonly deadline: Deadline;
  readonly ctx: ExecutionContext;
  /** The diff of RTL edits the failed build carried. */
  readonly rtlDiff?: string;
}

export async function analyseFailure(input: FailureInput): Promise<FailureAnalysis> {
  const { spec, options, failed, memory } = input;
  let diagnosis: Diagnosis;
  let stage: FailureStage;
  let note: string | undefined;
  let narrowing: Narrowing | undefined;

  if (options.triage === 'off') {
    diagnosis = { diagnosis: 'not_triaged', fix: '' };
    stage = 'not_triaged';
  } else if (options.triage === 'raw') {
    diagnosis = { diagnosis: 'raw_evidence', fix: '' };
    stage = 'raw_evidence';
    note = rawNote(failed);
  } else if (failed.task.kind === 'unit_test' && !failed.build.success && PINNOTFOUND.test(buildOutput(failed))) {
    diagnosis = {
      diagnosis: 'testbench_mismatch',
      fix: `Edit the scaffolded testbench of task '${failed.task.id}': its DUT instantiation connects a port the real module does not have (see the %Error-PINNOTFOUND lines). Fix the testbench's port connections, not the module.`,
    };
    stage = 'short_circuit';
    note = replanNote({ spec, result: failed, diagnosis, fromProbes: false, rawEvidence: options.raw_evidence });
  } else {
    if (options.narrowing) {
      narrowing = await narrow({
        spec,
        failed,
        checkouts: input.checkouts,
        deadline: input.deadline,
        ctx: input.ctx,
        carriedEdits: Boolean(input.rtlDiff),
      });
      await remember(input, narrowing);
    }
    const probesNote = narrowing && narrowing.probes.length ? narrowing.note : undefined;
    if (narrowing?.fix) {
      diagnosis = { diagnosis: 'config_change', fix: narrowing.fix };
      stage = 'narrowing';
      note = replanNote({
        spec,
        result: failed,
        diagnosis,
        fromProbes: true,
        narrowingNote: narrowing.note,
        rawEvidence: options.raw_evidence,
        rtlDiff: input.rtlDiff,
      });
    } else {
      try {
        diagnosis = await triage(
          { spec, result: failed, rtlEdits: options.rtl_edits, rtlDiff: input.rtlDiff, narrowingNote: probesNote },
          input.llm,
          { iteration: input.iteration, tools: failureTools(input), signal: input.signal },
        );
      } catch (error) {
        if (!(error instanceof TriageError)) throw error;
        diagnosis = UNKNOWN_DIAGNOSIS;
      }
      stage = 'triage';
      note = replanNote({
        spec,
        result: failed,
        diagnosis,
        fromProbes: false,
        narrowingNote: probesNote,
        rawEvidence: options.raw_evidence,
        rtlDiff: input.rtlDiff,
      });
    }
  }

  if (note) memory.feedback.push(note);
  await recordFailure(
    input.store,
    {
      runId: input.runId,
      iteration: input.iteration,
      taskId: failed.task.id,
      diagnosis: diagnosis.diagnosis,
      fix: diagnosis.fix,
      stage,
      narrowing: narrowing?.verdict ?? null,
      feedback: note ?? null,
    },
    'later',
  );
  return { taskId: failed.task.id, diagnosis, stage, note, narrowing };
}

/** The read-only diagnostic tools over the failed run, for a backend that takes tools. */
export function failureTools(input: Pick<FailureInput, 'llm' | 'failed'>): LlmTool[] | undefined {
  return input.llm.backend.takesTools ? diagnosticTools(input.failed) : undefined;
}

function buildOutput(result: TaskResult): string {
  return [...result.build.errors, result.build.stdout, result.build.stderr].join('\n');
}

/** Record the probes, and teach the plan check what they showed. */
async function remember(input: FailureInput, narrowing: Narrowing): Promise<void> {
  for (const probe of narrowing.probes) {
    if (!probe.result.passed) input.memory.failedDesigns.add(designKey(configForTask(input.spec, probe.result.task)));
  }
  if (narrowing.verdict === 'culprit' || narrowing.verdict === 'combination')
    input.memory.badChangeSets.push(breakingSet(narrowing));
  if (!narrowing.probes.length) return;
  await recordProbes(
    input.store,
    narrowing.probes.map((p) => ({
      runId: input.runId,
      iteration: input.iteration,
      probe: p.index,
      taskId: input.failed.task.id,
      undone: p.undone,
      passed: p.result.passed,
      buildSuccess: p.result.build.success,
      runVerdict: p.result.runs.at(-1)?.verdict ?? null,
      failureReason: p.result.build.failureReason || null,
      wallS: p.result.build.wallTimeS + p.result.runs.reduce((sum, r) => sum + r.wallTimeS, 0),
      simsFlags: simsFlags(p.result.config),
      buildId: p.result.build.buildId,
      checkout: p.result.checkout,
      startedAt: p.result.startedAt,
      finishedAt: p.result.finishedAt,
      verdict: narrowing.verdict,
    })),
    'later',
  );
}
