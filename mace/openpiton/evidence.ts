/**
 * The failure evidence triage reads: what a failed build or simulation reported, built only from
 * its artifacts (no files are read), so a recorded result gives the same text later.
 */
import type { BuildArtifact, RunResult } from './artifacts.ts';
import { simsFlags } from './config.ts';

/** Characters of error lines and of each log tail the evidence keeps. */
export const EVIDENCE_TAIL_CHARS = 1500;

/**
 * The build's flags; then, for a failed build, its failure reason, error lines and the end of its
 * stderr (its stdout when stderr is empty); otherwise, when a run exists, the end of its sim.log and
 * its status.log.
 */
export function failureEvidence(build: BuildArtifact, run: RunResult | null = null): string {
  const parts = [`Build flags: ${simsFlags(build.config).join(' ')}`];
  if (!build.success) {
    parts.push(`Build failure reason: ${build.failureReason}`);
    if (build.errors.length > 0) parts.push(`Build errors:\n${build.errors.join('\n').slice(0, EVIDENCE_TAIL_CHARS)}`);
    parts.push(`Build output (tail):\n${(build.stderr || build.stdout).slice(-EVIDENCE_TAIL_CHARS)}`);
  } else if (run) {
    parts.push(`Sim log (tail):\n${run.simLogTail.slice(-EVIDENCE_TAIL_CHARS)}`);
    parts.push(`Status log:\n${run.statusLog}`);
  }
  return parts.join('\n\n');
}
