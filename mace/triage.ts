/**
 * Triage: one LLM call that diagnoses a failed task. The prompt leads with the objective (it can
 * name what a build needs), then the task, its outcome, its flags and changes from the reference,
 * the evidence, what the next plan may change, and the probes' note when narrowing settled nothing.
 */
import { changesFromReference, describeChanges } from './design.ts';
import { parseDiagnosis, type Diagnosis } from './directives.ts';
import { failureEvidence, runVerdict } from './evidence.ts';
import type { TaskResult } from './integrator.ts';
import type { LlmTool } from './llm/types.ts';
import type { RunLlm } from './llm/recorder.ts';
import type { MaceSpec } from './spec.ts';

export const RTL_DIFF_CHARS = 3000;
const AGENT_REPLY_CHARS = 600;

/** What the next plan may change, without and with RTL edits. */
export const ACTIONS_NO_RTL =
  'The next plan can change only the build configuration: RTL defines (CONFIG_RTL) and cache sizes and associativities (CACHES). ' +
  'It cannot edit any source file. If no configuration can fix this failure, label it needs_rtl_change.';
export const ACTIONS_RTL =
  'The next plan can change the build configuration (RTL defines, cache sizes and associativities) and can also edit files under piton/design/ with an rtl task.';

export class TriageError extends Error {
  override name = 'TriageError';
}

/** Recorded when triage's reply holds no DIAGNOSIS line. */
export const UNKNOWN_DIAGNOSIS: Diagnosis = { diagnosis: 'unknown', fix: 'retry with more context' };

export interface TriageInput {
  readonly spec: MaceSpec;
  readonly result: TaskResult;
  readonly rtlEdits: boolean;
  /** The diff of the RTL edits the failed build carried, if any. */
  readonly rtlDiff?: string;
  /** The probes' note, when narrowing ran and settled nothing. */
  readonly narrowingNote?: string;
}

export function buildTriagePrompt(input: TriageInput): string {
  const { spec, result } = input;
  const task = result.task;
  const parts = [
    `Objective: ${spec.objective.trim()}`,
    `Core: ${spec.core}. Target mesh: ${spec.target_mesh[0]}x${spec.target_mesh[1]}. Gate workloads: ${spec.workloads.join(', ')}.`,
    `Task ${task.id} (${task.kind}: ${task.instruction}) failed its verification gate.`,
    `Build succeeded: ${result.build.success}\nRun verdict: ${runVerdict(result)}`,
    `Changes from the defaults: ${describeChanges(changesFromReference(spec, result.config))}`,
    failureEvidence(result),
  ];
  if (input.rtlDiff) parts.push(`RTL edits this build carried (diff):\n${input.rtlDiff.slice(0, RTL_DIFF_CHARS)}`);
  else if (task.kind === 'rtl' && result.agentReply !== undefined) {
    parts.push(
      `The rtl task's agent made no edit. Its reply began: ${JSON.stringify(result.agentReply.slice(0, AGENT_REPLY_CHARS))}`,
    );
  }
  parts.push(input.rtlEdits ? ACTIONS_RTL : ACTIONS_NO_RTL);
  parts.push('Each change from the defaults is a candidate cause: rule it out before you blame the design.');
  if (input.narrowingNote) parts.push(input.narrowingNote);
  parts.push(
    [
      'Diagnose why the task failed and say what to try next. End your reply with exactly these two lines:',
      'DIAGNOSIS: <a short label, e.g. test_bug, config_error, timeout, maxcycles, rtl_suspect, testbench_mismatch>',
      'FIX: <a short, concrete instruction for what to try next>',
    ].join('\n'),
  );
  return parts.join('\n\n');
}

/** One triage call. Throws TriageError when the reply has no DIAGNOSIS line; LLMCallFailed propagates. */
export async function triage(
  input: TriageInput,
  llm: RunLlm,
  call: { readonly iteration: number; readonly tools?: readonly LlmTool[]; readonly signal?: AbortSignal },
): Promise<Diagnosis> {
  const reply = await llm.call({
    phase: 'triage',
    prompt: buildTriagePrompt(input),
    iteration: call.iteration,
    taskId: input.result.task.id,
    tools: call.tools,
    signal: call.signal,
  });
  const diagnosis = parseDiagnosis(reply.text);
  if (!diagnosis)
    throw new TriageError(`triage's reply has no DIAGNOSIS: line: ${JSON.stringify(reply.text.slice(0, 200))}`);
  return diagnosis;
}
