/**
 * Narrowing: before triage, rebuild a failed config or workload task with some of its changes from
 * the reference undone. The build is deterministic, so one passing probe names the change that
 * breaks the design (culprit); several passing single undos, or only the all-undone probe passing,
 * mean the changes break it together (combination); and probes that all fail clear the
 * configuration of blame (not_config).
 */
import type { Deadline } from './budget.ts';
import type { Checkout } from './checkouts.ts';
import {
  changeId,
  changesFromReference,
  describeChange,
  referenceConfig,
  undoChanges,
  undoInstruction,
  type Change,
} from './design.ts';
import { spread, executeTask, type ExecutionContext, type TaskResult } from './integrator.ts';
import type { MaceSpec } from './spec.ts';

/** Probed one at a time up to this many changes; more go straight to the all-undone probe. */
export const MAX_SINGLE_PROBES = 4;
/** A probe needs at least this much budget left, and twice the failed task's own build and run time. */
export const MIN_PROBE_BUDGET_S = 300;

export const NARROWING_VERDICTS = [
  'culprit',
  'combination',
  'not_config',
  'unresolved',
  'no_changes',
  'skipped',
] as const;
export type NarrowingVerdict = (typeof NARROWING_VERDICTS)[number];

export interface Probe {
  readonly index: number;
  readonly undone: readonly Change[];
  readonly result: TaskResult;
}

export interface Narrowing {
  readonly verdict: NarrowingVerdict;
  readonly changes: readonly Change[];
  readonly probes: readonly Probe[];
  /** The changes that break the design (culprit: one; combination: all). */
  readonly breaking: readonly Change[];
  /** The fix narrowing names when it settles the question; triage then does not run. */
  readonly fix: string | undefined;
  /** What the probes showed, for triage and the feedback history. */
  readonly note: string;
  /** Why narrowing did not probe (skipped, no_changes, unresolved). */
  readonly reason?: string;
}

export interface NarrowingInput {
  readonly spec: MaceSpec;
  readonly failed: TaskResult;
  readonly checkouts: readonly Checkout[];
  readonly deadline: Deadline;
  /** The iteration's execution settings; probes run with task prompts off. */
  readonly ctx: ExecutionContext;
  /** True when the failed build carried RTL edits: its flags do not describe it. */
  readonly carriedEdits: boolean;
}

/** Why a failure is not a configuration's to narrow, or undefined when it is. */
export function notNarrowable(failed: TaskResult, carriedEdits: boolean): string | undefined {
  if (failed.task.kind !== 'config' && failed.task.kind !== 'workload') return `task kind ${failed.task.kind}`;
  if (carriedEdits) return 'the build carried RTL edits';
  if (failed.build.failureReason === 'way_rule') return 'the build was refused under the way rule';
  if (!failed.build.success && failed.build.returncode === -1) return 'the build never ran to completion';
  return undefined;
}

export async function narrow(input: NarrowingInput): Promise<Narrowing> {
  const { spec, failed } = input;
  const reference = referenceConfig(spec);
  const changes = changesFromReference(spec, failed.config);
  const settle = (verdict: NarrowingVerdict, probes: Probe[], breaking: Change[], reason?: string): Narrowing => {
    const fix =
      verdict === 'culprit'
        ? undoInstruction(breaking[0]!)
        : verdict === 'combination'
          ? 'return to the default configuration'
          : undefined;
    const ordered = [...probes].sort((a, b) => a.index - b.index);
    return {
      verdict,
      changes,
      probes: ordered,
      breaking,
      fix,
      note: probesNote(failed, verdict, changes, ordered, reason),
      reason,
    };
  };

  const skip = notNarrowable(failed, input.carriedEdits);
  if (skip) return settle('skipped', [], [], skip);
  if (!changes.length) return settle('no_changes', [], [], 'the failed design is the reference configuration');

  const ownTimeS = failed.build.wallTimeS + failed.runs.reduce((sum, r) => sum + r.wallTimeS, 0);
  const needS = Math.max(2 * ownTimeS, MIN_PROBE_BUDGET_S);
  const affordable = () => input.deadline.leftS() >= needS;
  const ctx: ExecutionContext = { ...input.ctx, taskPrompts: false, onTask: undefined };
  const probes: Probe[] = [];
  let nextIndex = 0;
  const probe = async (undone: readonly Change[], checkout: Checkout): Promise<Probe | undefined> => {
    if (!affordable()) return undefined;
    const index = nextIndex++;
    const task = { ...undoChanges(failed.task, undone, reference), deps: [] };
    const result = await executeTask(task, checkout, { ...ctx, tagTask: () => `probe${index}:${failed.task.id}` });
    const done = { index, undone, result };
    probes.push(done);
    return done;
  };

  if (changes.length <= MAX_SINGLE_PROBES) {
    const singles = await spread(changes, input.checkouts, (change, checkout) => probe([change], checkout));
    if (singles.some((p) => p === undefined) && !singles.some((p) => p?.result.passed)) {
      return settle(
        'unresolved',
        probes,
        [],
        `the budget left (${Math.round(input.deadline.leftS())} s) is under ${Math.round(needS)} s`,
      );
    }
    const passing = singles.filter((p): p is Probe => Boolean(p?.result.passed));
    // One passing undo names the culprit; several mean those changes break the design only together.
    if (passing.length === 1) return settle('culprit', probes, [...passing[0]!.undone]);
    if (passing.length > 1) return settle('combination', probes, passing.flatMap((p) => p.undone));
    // With one change, undoing it was the all-undone probe.
    if (changes.length === 1) return settle('not_config', probes, []);
  }
  const all = await probe(changes, input.checkouts[0]!);
  if (!all)
    return settle(
      'unresolved',
      probes,
      [],
      `the budget left (${Math.round(input.deadline.leftS())} s) is under ${Math.round(needS)} s`,
    );
  return all.result.passed ? settle('combination', probes, [...changes]) : settle('not_config', probes, []);
}

function outcome(result: TaskResult): string {
  if (result.passed) return 'passes';
  if (!result.build.success) return `still fails to build (${result.build.failureReason || 'unknown'})`;
  return `still fails (verdict ${result.runs.at(-1)?.verdict ?? 'none'})`;
}

/** The probes' note: what each rebuild undid and what it showed, and the verdict. */
export function probesNote(
  failed: TaskResult,
  verdict: NarrowingVerdict,
  changes: readonly Change[],
  probes: readonly Probe[],
  reason?: string,
): string {
  const lines = [
    `Narrowing rebuilt task ${failed.task.id} with its changes from the reference undone (${changes.map(describeChange).join('; ') || 'no changes'}):`,
  ];
  for (const p of probes) {
    const what =
      p.undone.length === changes.length && changes.length > 1
        ? 'all of them'
        : p.undone.map(describeChange).join(' + ');
    lines.push(`- undoing ${what}: ${outcome(p.result)}`);
  }
  const meaning: Record<NarrowingVerdict, string> = {
    culprit: 'one change breaks the design on its own',
    combination: 'no single change is to blame: the changes break the design together',
    not_config: 'the reference configuration fails too, so the cause is not one of these changes',
    unresolved: `the run's time ran out before the probes could settle it${reason ? ` (${reason})` : ''}`,
    no_changes: 'the failed design is the reference configuration, so there was nothing to undo',
    skipped: `this failure is not a configuration's to narrow${reason ? ` (${reason})` : ''}`,
  };
  lines.push(`Narrowing verdict: ${verdict}: ${meaning[verdict]}.`);
  return lines.join('\n');
}

/** The change ids of the changes that break the design, for the plan check's known_bad_change. */
export function breakingSet(narrowing: Narrowing): string[] {
  return narrowing.breaking.map(changeId).sort();
}
