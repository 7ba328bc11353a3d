/**
 * Plan replay: the loop's plan check run again over every plan a results database recorded, with no
 * LLM call and no build, and what turning the plan check or the fast path on or off would have
 * changed over the same recorded plans.
 *
 * How it counts, iteration by iteration (each recorded iteration on its own: what would have
 * followed a different decision needs the LLM, so it is not simulated):
 * - The looks. Each planner reply (phases plan and plan_retry) is parsed with the loop's own
 *   planFromReply and checked with the loop's own checkedPlan, against the run's history as recorded
 *   before that iteration (configurations that failed, failed probes, change sets narrowing blamed,
 *   RTL edits carried) and the define index and files of the checkout given. Where the run had the
 *   check on, each look is compared with the plan_checks row it wrote.
 * - The counterfactual. The run's recorded options with some changed (by default plan_check on).
 *   The plan the iteration ran comes from its last usable reply; turning the check off runs the
 *   first usable reply instead (the retries existed only because of the check). A plan the check
 *   rejects is taken to come back with its other tasks unchanged. The fast path then collapses the
 *   plan if it is one design. Recorded builds (task rows) are matched to that plan by task id.
 * - Saved builds: a recorded build the counterfactual does not make. A rejected build that failed
 *   is saved; one that passed is not (the plan would have come back and been built again) and is
 *   counted as rejected_passed. A build the fast path collapses is saved whatever its outcome.
 * - Saved machine time: those builds' build and simulation seconds (a reused build counts what it
 *   took), plus the iteration's narrowing probes when every failed build of the iteration is saved.
 * - Saved LLM dollars: the calls those builds caused: their own task or rtl calls (with the fast path
 *   turned on, every task call of the iteration, since the fast path runs plans without them), and
 *   the iteration's triage calls when every failed build of the iteration is saved. The re-plan that
 *   followed is not counted: a plan retry would have taken its place.
 * - Saved dollars: LLM dollars plus machine seconds at the hourly rate (the report's).
 * - Added builds: builds the counterfactual makes that the record lacks (the fast path turned off
 *   brings back the tasks it collapsed). One of the same design as a recorded build of the iteration
 *   is priced at that build's simulation time, plus its build time when builds are not reused;
 *   others are counted as unpriced. Turning the fast path off also brings back a task call per task.
 * - Caught builds (the check turned off): builds the counterfactual makes of tasks the check
 *   rejects or changes, which the check kept from being built.
 * - An iteration whose recorded plan is not what the recorded options make of its replies (a seeded
 *   fault's plan hook, a check at the time that differs from this one, no planner reply) is left as
 *   recorded and counted as unmatched.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../../mace/errors.ts';
import { changeSet, PLAN_RULES, type PlanRule } from '../../mace/plan-check.ts';
import { configForTask, designKey, referenceConfig, undoChanges } from '../../mace/design.ts';
import { collapseSingleDesign } from '../../mace/fast-path.ts';
import { requiredDefines } from '../../mace/objective.ts';
import { defineIndex, modulePathProblem } from '../../mace/openpiton/source-index.ts';
import { planFromReply, PlanningError } from '../../mace/planner.ts';
import { checkedPlan, type CheckedPlan, type PlanCheckInputs } from '../../mace/planning.ts';
import type { LoopOptions, MaceSpec, Task } from '../../mace/spec.ts';
import type { PlanCheckRow } from '../../mace/store/readers.ts';
import type { PlanCheckAction, PlanProblemRecord } from '../../mace/store/writers.ts';
import {
  probeChanges,
  readRecordedRuns,
  type BuiltTask,
  type RecordedIteration,
  type RecordedRun,
  type TaskDesign,
} from './replay-records.ts';
import { DEFAULT_HOURLY_USD } from './runs.ts';

/** The loop options a counterfactual may change. */
export const REPLAY_OPTIONS = ['plan_check', 'fast_path'] as const;
export type ReplayOption = (typeof REPLAY_OPTIONS)[number];
export type ReplayOverrides = Readonly<Partial<Record<ReplayOption, boolean>>>;

/** Without options, the replay asks what the plan check would have done. */
export const DEFAULT_REPLAY_OVERRIDES: ReplayOverrides = { plan_check: true };

const SWITCH_VALUES: Readonly<Record<string, boolean>> = { true: true, on: true, false: false, off: false };

/**
 * Counterfactual options as the CLI takes them: `name=value` pairs separated by commas, each name a
 * REPLAY_OPTIONS entry and each value true, false, on or off.
 * @example parseReplayOptions('plan_check=off,fast_path=on') // { plan_check: false, fast_path: true }
 */
export function parseReplayOptions(text: string): ReplayOverrides {
  const out: Partial<Record<ReplayOption, boolean>> = {};
  for (const item of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [name, value, extra] = item.split('=').map((s) => s.trim());
    if (!(REPLAY_OPTIONS as readonly string[]).includes(name!))
      throw new InputError(
        `--options: unknown option ${JSON.stringify(name)} in ${JSON.stringify(item)}; replay can change ${REPLAY_OPTIONS.join(', ')}`,
      );
    const on = value === undefined || extra !== undefined ? undefined : SWITCH_VALUES[value.toLowerCase()];
    if (on === undefined)
      throw new InputError(
        `--options: ${JSON.stringify(item)} should be ${name}=on or ${name}=off (true and false work too)`,
      );
    out[name as ReplayOption] = on;
  }
  if (!Object.keys(out).length)
    throw new InputError(`--options: no option given; write e.g. plan_check=off,fast_path=on`);
  return out;
}

/** The counterfactual in words, e.g. "plan_check off, fast_path on". */
export function describeOverrides(overrides: ReplayOverrides): string {
  return REPLAY_OPTIONS.filter((name) => overrides[name] !== undefined)
    .map((name) => `${name} ${overrides[name] ? 'on' : 'off'}`)
    .join(', ');
}

/** The OpenPiton checkout whose define index and files the check uses, and how it was chosen. */
export interface ReplayCheckout {
  readonly root: string;
  /** Shown beside the root, e.g. "the offline checkout" or "--piton-root". */
  readonly chosen: string;
}

export interface PlanReplayOptions {
  readonly checkout: ReplayCheckout;
  /** Loop options changed from each run's recorded ones (default DEFAULT_REPLAY_OVERRIDES). */
  readonly overrides?: ReplayOverrides;
  /** Dollars per machine hour (default the report's). */
  readonly hourlyUsd?: number;
}

/** One planner reply, checked again. */
export interface PlanLookReplay {
  readonly run_id: string;
  readonly iteration: number;
  readonly attempt: number;
  /** What the check does with the reply now (unusable: it holds no plan). */
  readonly action: PlanCheckAction;
  /** The rules that fire, in PLAN_RULES order. */
  readonly rules: readonly PlanRule[];
  readonly problems: readonly PlanProblemRecord[];
  readonly stripped: Readonly<Record<string, readonly string[]>>;
  readonly added: Readonly<Record<string, readonly string[]>>;
  /** The action recorded at the time: the plan_checks row, or accepted where the check found nothing and wrote none. */
  readonly recorded_action: PlanCheckAction | null;
  /** Whether the replay finds what the record shows; null where the run had the check off. */
  readonly agrees: boolean | null;
}

/** What each iteration's counterfactual adds up (see iterationCost). */
const COST_COUNTS = [
  'saved_builds',
  'rejected_builds',
  'collapsed_builds',
  'rejected_passed',
  'saved_machine_s',
  'saved_llm_usd',
  'added_builds',
  'added_machine_s',
  'unpriced_builds',
  'added_task_calls',
  'caught_builds',
] as const;

/** The numbers of a replayed run; the total sums them. */
export const REPLAY_COUNTS = [
  'iterations',
  'replies',
  'unusable',
  'rejected',
  'stripped',
  'added',
  'disagreements',
  'builds',
  ...COST_COUNTS,
  'saved_usd',
  'unmatched_iterations',
] as const;
export type ReplayCount = (typeof REPLAY_COUNTS)[number];

/**
 * Field meanings: iterations recorded; planner replies replayed; unusable replies (no plan); replies
 * the check sends back or keeps with problems; defines stripped and added over the replies; looks
 * that differ from the record; recorded builds (task rows); saved builds (rejected failed + collapsed);
 * rejected builds that passed (not saved); machine seconds, LLM dollars and dollars saved; builds
 * added, their estimated machine seconds, those left unpriced, and task calls added; builds of tasks
 * the check caught; iterations left as recorded. See the module comment for each rule.
 */
export type ReplayCounts = Readonly<Record<ReplayCount, number>> & {
  /** Problems per rule over the replies. */
  readonly rules: Readonly<Record<PlanRule, number>>;
};

export interface PlanReplayRun extends ReplayCounts {
  readonly run_id: string;
  readonly task: string | null;
  readonly method: string | null;
  readonly status: string;
  readonly fault: string | null;
  /** The run's own options (the defaults where it recorded none). */
  readonly recorded: { readonly plan_check: boolean; readonly fast_path: boolean };
  /** The counterfactual's. */
  readonly replayed: { readonly plan_check: boolean; readonly fast_path: boolean };
  /** Why the run was not replayed (its spec cannot be read), else null. */
  readonly skipped: string | null;
}

export interface PlanReplayTotal extends ReplayCounts {
  readonly runs: number;
  readonly skipped_runs: number;
}

export interface PlanReplay {
  readonly settings: {
    readonly file: string;
    readonly checkout: ReplayCheckout;
    readonly overrides: ReplayOverrides;
    readonly hourly_usd: number;
  };
  readonly runs: readonly PlanReplayRun[];
  readonly total: PlanReplayTotal;
  readonly looks: readonly PlanLookReplay[];
}

/**
 * Replay every recorded plan of a results database through the plan check, and count what the
 * counterfactual options change.
 * @example
 *   const checkout = { root: '/opt/openpiton', chosen: '--piton-root' };
 *   const replay = await replayPlans('runs/ablations.duckdb', { checkout, overrides: { plan_check: false } });
 *   replay.runs.map((r) => [r.run_id, r.caught_builds]);
 */
export async function replayPlans(path: string, options: PlanReplayOptions): Promise<PlanReplay> {
  return replayRecorded(path, await readRecordedRuns(path), options);
}

/** replayPlans over runs already read from `path` (readRecordedRuns), so several counterfactuals read it once. */
export function replayRecorded(path: string, recorded: readonly RecordedRun[], options: PlanReplayOptions): PlanReplay {
  const overrides = options.overrides ?? DEFAULT_REPLAY_OVERRIDES;
  const hourlyUsd = options.hourlyUsd ?? DEFAULT_HOURLY_USD;
  const root = options.checkout.root;
  if (!existsSync(join(root, 'piton', 'design')))
    throw new InputError(
      `${root} is not an OpenPiton checkout (it has no piton/design folder); give one with --piton-root`,
    );
  const checkout = {
    index: defineIndex(root),
    modulePathProblem: (modulePath: string) => modulePathProblem(root, modulePath),
  };
  const looks: PlanLookReplay[] = [];
  const runs = recorded.map((run) => {
    const replayed = replayRun(run, { ...checkout, overrides, hourlyUsd });
    looks.push(...replayed.looks);
    return replayed.row;
  });
  return {
    settings: { file: path, checkout: options.checkout, overrides, hourly_usd: hourlyUsd },
    runs,
    total: totalOf(runs),
    looks,
  };
}

interface ReplayEnv {
  readonly index: ReadonlySet<string>;
  readonly modulePathProblem: (path: string) => string | undefined;
  readonly overrides: ReplayOverrides;
  readonly hourlyUsd: number;
}

type Counter = Record<ReplayCount, number> & { rules: Record<PlanRule, number> };

function emptyCounts(): Counter {
  const counts = Object.fromEntries(REPLAY_COUNTS.map((k) => [k, 0])) as Record<ReplayCount, number>;
  return { ...counts, rules: Object.fromEntries(PLAN_RULES.map((r) => [r, 0])) as Record<PlanRule, number> };
}

function totalOf(runs: readonly PlanReplayRun[]): PlanReplayTotal {
  const total = emptyCounts();
  for (const run of runs) {
    for (const key of REPLAY_COUNTS) total[key] += run[key];
    for (const rule of PLAN_RULES) total.rules[rule] += run.rules[rule];
  }
  return { ...total, runs: runs.length, skipped_runs: runs.filter((r) => r.skipped !== null).length };
}

/** A usable reply and the check's look at it. */
interface Look {
  readonly attempt: number;
  readonly parsed: Task[] | null;
  readonly checked: CheckedPlan | null;
}

function replayRun(run: RecordedRun, env: ReplayEnv): { row: PlanReplayRun; looks: PlanLookReplay[] } {
  const recorded = { plan_check: run.options.plan_check, fast_path: run.options.fast_path };
  const replayed = { ...recorded, ...env.overrides };
  const counts = emptyCounts();
  const identity = { run_id: run.run_id, task: run.task, method: run.method, status: run.status, fault: run.fault };
  if ('error' in run.spec)
    return { row: { ...identity, ...counts, recorded, replayed, skipped: run.spec.error }, looks: [] };
  const spec = run.spec;
  const history = new RunHistory(spec, run.options);
  const looks: PlanLookReplay[] = [];
  const required = requiredDefines(spec.objective);

  for (const iteration of run.iterations) {
    const inputs: PlanCheckInputs = {
      defineIndex: env.index,
      requiredDefines: required,
      modulePathProblem: env.modulePathProblem,
      failedDesigns: history.failedDesigns,
      badChangeSets: history.badChangeSets,
      buildsOnEdits: (task) => task.kind === 'rtl' || history.edited,
    };
    const replies: Look[] = [];
    iteration.replies.forEach((call, attempt) => {
      if (call.reply === null) return; // a failed call: the run ended there
      const look = lookAt(call.reply, attempt, spec, run.options, inputs);
      replies.push(look);
      const shown = describeLook(run, iteration, look);
      looks.push(shown);
      counts.replies++;
      if (!look.checked) counts.unusable++;
      else {
        if (look.checked.problems.length) counts.rejected++;
        for (const problem of look.checked.problems) counts.rules[problem.rule]++;
        counts.stripped += Object.values(look.checked.stripped).flat().length;
        counts.added += Object.values(look.checked.added).flat().length;
      }
      if (shown.agrees === false) counts.disagreements++;
    });
    if (iteration.ran) {
      counts.iterations++;
      counts.builds += iteration.tasks.length;
      const cost = iterationCost(spec, run.options, replayed, iteration, replies.filter(isUsable));
      if (cost) for (const key of COST_COUNTS) counts[key] += cost[key];
      else counts.unmatched_iterations++;
    }
    history.learn(iteration);
  }
  counts.saved_usd = counts.saved_llm_usd + (counts.saved_machine_s / 3600) * env.hourlyUsd;
  return { row: { ...identity, ...counts, recorded, replayed, skipped: null }, looks };
}

function lookAt(reply: string, attempt: number, spec: MaceSpec, options: LoopOptions, inputs: PlanCheckInputs): Look {
  let parsed: Task[];
  try {
    parsed = planFromReply(reply).tasks;
  } catch (error) {
    if (error instanceof PlanningError) return { attempt, parsed: null, checked: null };
    throw error;
  }
  return { attempt, parsed, checked: checkedPlan(parsed, attempt, spec, options.rtl_edits, inputs) };
}

type UsableLook = Look & { readonly parsed: Task[]; readonly checked: CheckedPlan };
const isUsable = (look: Look): look is UsableLook => look.checked !== null;

function describeLook(run: RecordedRun, iteration: RecordedIteration, look: Look): PlanLookReplay {
  const row = iteration.checks.get(look.attempt);
  const base = { run_id: run.run_id, iteration: iteration.iteration, attempt: look.attempt };
  if (!look.checked) {
    return {
      ...base,
      action: 'unusable',
      rules: [],
      problems: [{ rule: 'no_plan', task: null, reason: 'the reply holds no usable plan' }],
      stripped: {},
      added: {},
      recorded_action: (row?.action as PlanCheckAction | undefined) ?? null,
      agrees: row ? row.action === 'unusable' : null,
    };
  }
  const { checked } = look;
  const rules = PLAN_RULES.filter((r) => checked.problems.some((p) => p.rule === r));
  // With the check off at the time, a usable reply was never looked at.
  const recordedAction = !run.options.plan_check ? null : ((row?.action as PlanCheckAction | undefined) ?? 'accepted');
  return {
    ...base,
    action: checked.action,
    rules,
    problems: checked.problems,
    stripped: checked.stripped,
    added: checked.added,
    recorded_action: recordedAction,
    agrees: !run.options.plan_check ? null : row ? sameLook(checked, rules, row) : !checked.recorded,
  };
}

function sameLook(checked: CheckedPlan, rules: readonly PlanRule[], row: PlanCheckRow): boolean {
  const sorted = (map: Readonly<Record<string, readonly string[]>> | null) =>
    JSON.stringify(
      Object.entries(map ?? {})
        .map(([k, v]) => [k, [...v].sort()])
        .sort(),
    );
  return (
    row.action === checked.action &&
    JSON.stringify([...(row.rules ?? [])].sort()) === JSON.stringify([...rules].sort()) &&
    sorted(row.stripped) === sorted(checked.stripped) &&
    sorted(row.added) === sorted(checked.added)
  );
}

type IterationCost = Record<(typeof COST_COUNTS)[number], number>;

/** The plan's design key per task; null for a task whose configuration cannot be built (a unit_test's). */
function keyOf(spec: MaceSpec, task: TaskDesign | null): string | null {
  if (!task) return null;
  try {
    return designKey(configForTask(spec, task));
  } catch {
    return null;
  }
}

/** The fast path's plan: the single task that replaces it, or the plan as it stands. */
function fastPath(spec: MaceSpec, tasks: readonly Task[]): readonly Task[] {
  const collapsed = collapseSingleDesign(spec, tasks);
  return collapsed ? [collapsed.kept] : tasks;
}

/** Task ids a look rejects: each task a problem names, every task for a problem of the whole plan. */
function rejectedIds(look: UsableLook): Set<string> {
  if (look.checked.action !== 'rejected') return new Set();
  const problems = look.checked.problems;
  return new Set(problems.some((p) => p.task === null) ? look.parsed.map((t) => t.id) : problems.map((p) => p.task!));
}

/** Task ids a look would change: rejected or kept with a problem, or a define stripped or added. */
function flaggedIds(look: UsableLook): Set<string> {
  const { problems, stripped, added } = look.checked;
  if (problems.some((p) => p.task === null)) return new Set(look.parsed.map((t) => t.id));
  return new Set([...problems.map((p) => p.task!), ...Object.keys(stripped), ...Object.keys(added)]);
}

function iterationCost(
  spec: MaceSpec,
  options: LoopOptions,
  replayed: { readonly plan_check: boolean; readonly fast_path: boolean },
  iteration: RecordedIteration,
  usable: readonly UsableLook[],
): IterationCost | undefined {
  const last = usable.at(-1);
  if (!last) return undefined;
  const checkedAtTheTime = options.plan_check ? last.checked.tasks : last.parsed;
  const ran = options.fast_path ? fastPath(spec, checkedAtTheTime) : checkedAtTheTime;
  if (!sameAsRecorded(spec, ran, iteration)) return undefined;

  let input = checkedAtTheTime;
  let rejected = new Set<string>();
  let flagged = new Set<string>();
  if (replayed.plan_check && !options.plan_check) {
    input = last.checked.tasks;
    rejected = rejectedIds(last);
  } else if (!replayed.plan_check && options.plan_check) {
    input = usable[0]!.parsed;
    flagged = flaggedIds(usable[0]!);
  }
  const kept = input.filter((t) => !rejected.has(t.id));
  const built = replayed.fast_path ? fastPath(spec, kept) : kept;
  const builtIds = new Set(built.map((t) => t.id));
  const rowIds = new Set(iteration.tasks.map((t) => t.task_id));

  const cost: IterationCost = Object.fromEntries(COST_COUNTS.map((k) => [k, 0])) as IterationCost;
  const saved = new Set<string>();
  for (const row of iteration.tasks) {
    if (builtIds.has(row.task_id)) continue;
    if (rejected.has(row.task_id)) {
      if (row.passed) {
        cost.rejected_passed++;
        continue;
      }
      cost.rejected_builds++;
    } else cost.collapsed_builds++;
    saved.add(row.task_id);
    cost.saved_machine_s += row.wall_s;
  }
  cost.saved_builds = saved.size;

  const failed = iteration.tasks.filter((t) => !t.passed);
  const failureSaved = failed.length > 0 && failed.every((t) => saved.has(t.task_id));
  const fastPathAdded = replayed.fast_path && !options.fast_path;
  for (const call of iteration.calls) {
    const ownCall = (call.phase === 'task' || call.phase === 'rtl') && saved.has(call.task_id ?? '');
    const promptOff = fastPathAdded && call.phase === 'task';
    if (ownCall || promptOff || (failureSaved && call.phase === 'triage')) cost.saved_llm_usd += call.usd;
  }
  if (failureSaved) cost.saved_machine_s += iteration.probes.reduce((sum, p) => sum + p.wall_s, 0);

  const rowsByKey = new Map<string, BuiltTask>();
  for (const row of iteration.tasks) {
    const key = keyOf(spec, row.design);
    if (key !== null && !rowsByKey.has(key)) rowsByKey.set(key, row);
  }
  for (const task of built) {
    if (flagged.has(task.id)) cost.caught_builds++;
    if (rowIds.has(task.id)) continue;
    cost.added_builds++;
    const twin = rowsByKey.get(keyOf(spec, task) ?? '');
    if (twin) cost.added_machine_s += (twin.run_s ?? 0) + (options.reuse_builds ? 0 : (twin.build_s ?? 0));
    else cost.unpriced_builds++;
  }
  if (!replayed.fast_path && options.fast_path && options.task_prompts)
    cost.added_task_calls = built.filter((t) => t.kind !== 'rtl').length;
  return cost;
}

/** Does the plan the recorded options make of the replies match the plan the iteration recorded? */
function sameAsRecorded(spec: MaceSpec, plan: readonly Task[], iteration: RecordedIteration): boolean {
  const same = (a: Task, b: Task) => a.id === b.id && a.kind === b.kind && keyOf(spec, a) === keyOf(spec, b);
  if (iteration.plan)
    return plan.length === iteration.plan.length && plan.every((t, k) => same(t, iteration.plan![k]!));
  // Without a recorded plan, the task rows stand in (in no particular order).
  const rows = new Map(iteration.tasks.map((r) => [r.task_id, r]));
  return plan.length === rows.size && plan.every((t) => rows.has(t.id));
}

/** What the loop had learned before an iteration's plan, rebuilt from the iterations recorded before it. */
class RunHistory {
  /** Design keys of failed config and workload builds, failed probes included. */
  readonly failedDesigns = new Set<string>();
  /** Change sets narrowing showed break the design. */
  readonly badChangeSets: string[][] = [];
  /** The next iteration starts from carried RTL edits. */
  edited = false;

  constructor(
    private readonly spec: MaceSpec,
    private readonly options: LoopOptions,
  ) {}

  learn(iteration: RecordedIteration): void {
    for (const row of iteration.tasks) {
      if (row.passed || (row.kind !== 'config' && row.kind !== 'workload')) continue;
      const key = keyOf(this.spec, row.design);
      if (key !== null) this.failedDesigns.add(key);
    }
    const reference = referenceConfig(this.spec);
    let blamed: { probe: number; set: string[] } | undefined;
    for (const probe of iteration.probes) {
      const failedRow = iteration.tasks.find((t) => t.task_id === probe.task_id);
      const undone = probeChanges(probe);
      if (!probe.passed && failedRow?.design) {
        const key = keyOf(this.spec, undoChanges(failedRow.design, undone, reference));
        if (key !== null) this.failedDesigns.add(key);
      }
      // The breaking set is what the first passing probe undid (a culprit's one change, or all of them).
      const settled = probe.verdict === 'culprit' || probe.verdict === 'combination';
      if (settled && probe.passed && (!blamed || probe.probe < blamed.probe))
        blamed = { probe: probe.probe, set: changeSet(undone) };
    }
    if (blamed) this.badChangeSets.push(blamed.set);
    const carried = iteration.tasks.some((t) => t.build_success && t.rtl_diff);
    this.edited = this.options.carry_edits && (this.edited || carried);
  }
}
