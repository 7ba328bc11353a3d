/**
 * What a failed task's build and simulation reported, in two sizes: the full evidence triage reads
 * (and the raw-evidence modes hand to the re-plan), and an ~800-character digest for the feedback
 * history that keeps the line naming the cause visible even when a diagnosis is wrong.
 */
import { EVIDENCE_TAIL_CHARS, failureEvidence as buildEvidence } from './openpiton/evidence.ts';
import type { TaskResult } from './integrator.ts';

export const DIGEST_CHARS = 800;

/** The run that decided the task: the last one (runs stop at the first failure). */
export function decidingRun(result: TaskResult) {
  return result.runs.at(-1);
}

/** The verdict the task's runs reached, as triage and the feedback state it. */
export function runVerdict(result: TaskResult): string {
  const run = decidingRun(result);
  if (!result.build.success || !run) return 'none';
  return run.verdict ?? (run.returncode === -1 ? 'killed, no verdict' : 'no verdict');
}

/** The full evidence of a failure (build flags, then the build's or the failing run's report). */
export function failureEvidence(result: TaskResult): string {
  const run = result.build.success ? decidingRun(result) : undefined;
  const evidence = buildEvidence(result.build, run ?? null);
  // sims reports a run it could not start (no diag, no model, no budget left) on stderr.
  return run?.stderr.trim()
    ? `${evidence}\n\nsims stderr (tail):\n${run.stderr.slice(-EVIDENCE_TAIL_CHARS)}`
    : evidence;
}

/**
 * The digest: the build's error lines, or the failing program's verdict, its first status line
 * and the end of its simulation log, with runs of near-identical lines collapsed.
 */
export function evidenceDigest(result: TaskResult, limit = DIGEST_CHARS): string {
  const { build } = result;
  let lines: string[];
  if (!build.success) {
    const errors = build.errors.length ? build.errors : lastLines(build.stderr.trim() ? build.stderr : build.stdout, 6);
    lines = [`build failed (${build.failureReason || 'unknown reason'}):`, ...errors];
  } else {
    const run = decidingRun(result);
    if (!run) return 'no simulation ran';
    const status = run.statusLog.split('\n').find((l) => l.trim()) ?? '(no status.log)';
    lines = [
      `${run.test}: verdict ${run.verdict ?? 'none'}`,
      status.trim(),
      ...lastLines(run.simLogTail || run.stdout, 12),
    ];
  }
  return clip(collapseSimilarLines(lines).join('\n'), limit);
}

/** Consecutive lines that differ only in their numbers become the first line and a count. */
export function collapseSimilarLines(lines: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const shape = lines[i]!.replace(/\d+/g, '#');
    let j = i + 1;
    while (j < lines.length && lines[j]!.replace(/\d+/g, '#') === shape) j++;
    out.push(j - i > 1 ? `${lines[i]} [and ${j - i - 1} similar line${j - i > 2 ? 's' : ''}]` : lines[i]!);
    i = j;
  }
  return out;
}

function lastLines(text: string, n: number): string[] {
  return text
    .split('\n')
    .map((l) => l.trimEnd())
    .filter(Boolean)
    .slice(-n);
}

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 3)}...`;
}
