/**
 * The notes a failed iteration adds to the run's feedback history. Every later plan gets the whole
 * history, oldest first.
 */
import { changesFromReference, describeChanges } from './design.ts';
import type { Diagnosis } from './directives.ts';
import { evidenceDigest, failureEvidence, runVerdict } from './evidence.ts';
import type { TaskResult } from './integrator.ts';
import type { MaceSpec } from './spec.ts';

function taskLine(result: TaskResult): string {
  const task = result.task;
  return `Task ${task.id} (${task.instruction}) failed (build succeeded: ${result.build.success}, run verdict: ${runVerdict(result)}).`;
}

export interface NoteInput {
  readonly spec: MaceSpec;
  readonly result: TaskResult;
  readonly diagnosis: Diagnosis;
  /** True when narrowing's probes decided the diagnosis, not triage. */
  readonly fromProbes: boolean;
  readonly narrowingNote?: string;
  readonly rawEvidence: boolean;
  readonly rtlDiff?: string;
}

/** The note for a triaged (or narrowed) failure, full or one-line (raw_evidence off). */
export function replanNote(input: NoteInput): string {
  const { spec, result, diagnosis } = input;
  const changes = describeChanges(changesFromReference(spec, result.config));
  if (!input.rawEvidence) {
    return `Task ${result.task.id} (${result.task.instruction}) failed; changes from the defaults: ${changes}; diagnosis=${diagnosis.diagnosis}, suggested fix=${diagnosis.fix}`;
  }
  const lines = [
    taskLine(result),
    `Changes from the defaults: ${changes}`,
    `What the build and simulation reported: ${evidenceDigest(result)}`,
  ];
  if (input.rtlDiff) lines.push(`RTL edits this build carried:\n${input.rtlDiff.slice(0, 3000)}`);
  if (input.narrowingNote) lines.push(input.narrowingNote);
  lines.push(
    input.fromProbes
      ? `Diagnosis from the probes above: diagnosis=${diagnosis.diagnosis}, suggested fix=${diagnosis.fix}`
      : `Triage, an LLM's reading of this evidence: diagnosis=${diagnosis.diagnosis}, suggested fix=${diagnosis.fix}`,
  );
  return lines.join('\n');
}

/** The note under triage=raw: the outcome and the raw evidence triage would have read. */
export function rawNote(result: TaskResult): string {
  return `${taskLine(result)}\nThe raw evidence of this failure:\n${failureEvidence(result)}`;
}
