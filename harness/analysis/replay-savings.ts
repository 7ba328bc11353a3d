/**
 * What the plan check and the fast path saved, run by run: each run replayed with one of the two
 * switched the other way from how it ran (see plan-replay.ts for how a replay counts).
 *
 * - Switched on in the run: the replay with it off says what it kept from happening. For the plan
 *   check, the builds it caught (tasks it rejected or changed), which are not priced: they are
 *   designs never built. For the fast path, the builds it collapsed away, priced at a recorded twin's
 *   machine time where there is one, and the task calls it spared (not priced: never made).
 * - Switched off in the run: the replay with it on says what it would have saved: saved builds and
 *   saved dollars (LLM dollars plus machine time at the hourly rate).
 */
import { defaultOfflineRoots } from '../../mace/openpiton/offline/index.ts';
import {
  REPLAY_OPTIONS,
  replayRecorded,
  type PlanReplayRun,
  type ReplayCheckout,
  type ReplayOption,
} from './plan-replay.ts';
import { readRecordedRuns } from './replay-records.ts';
import { counted, type RunRow } from './runs.ts';

/**
 * The checkout plan replay reads: `pitonRoot` when given, else the loop's offline checkout (created
 * on first use).
 */
export async function chooseReplayCheckout(pitonRoot?: string): Promise<ReplayCheckout> {
  return pitonRoot
    ? { root: pitonRoot, chosen: '--piton-root' }
    : { root: (await defaultOfflineRoots(1))[0]!, chosen: "the loop's offline checkout; --piton-root picks another" };
}

/** One switch of one run: what it saved (on in the run) or would have saved (off in the run). */
export interface SwitchSaving {
  readonly run_id: string;
  readonly task: string;
  readonly method: string;
  readonly status: string;
  readonly switch: ReplayOption;
  /** Whether the run had the switch on. */
  readonly on: boolean;
  /** The counterfactual replayed, e.g. "plan_check off". */
  readonly counterfactual: string;
  /** Builds caught (the check on), collapsed away (the fast path on) or that would have been saved (off). */
  readonly builds: number;
  /** Of those, builds with no price. */
  readonly unpriced_builds: number;
  /** Machine seconds of the priced builds (and probes, where a whole failure is saved); null when none is priced. */
  readonly machine_s: number | null;
  /** LLM dollars of the calls those builds caused; null when not priced. */
  readonly llm_usd: number | null;
  /** llm_usd plus machine_s at the hourly rate; null when nothing is priced. */
  readonly usd: number | null;
  /** Task calls the fast path spared (not in usd). */
  readonly task_calls: number;
  /** Iterations left as recorded by the replay (see plan-replay.ts), which count nothing. */
  readonly unmatched_iterations: number;
}

export interface PlanSavings {
  readonly checkout: ReplayCheckout;
  readonly hourly_usd: number;
  /** Two rows per counted run with a usable planner reply: one per switch, runs in the analysis's order. */
  readonly rows: readonly SwitchSaving[];
}

/** The counterfactual of a switch set to `on`. */
const flipped = (option: ReplayOption, on: boolean) => ({ [option]: on }) as const;

function saving(run: RunRow, option: ReplayOption, on: boolean, r: PlanReplayRun, hourlyUsd: number): SwitchSaving {
  const base = {
    run_id: run.run_id,
    task: run.task,
    method: run.method,
    status: run.status,
    switch: option,
    on,
    counterfactual: `${option} ${on ? 'off' : 'on'}`,
    unmatched_iterations: r.unmatched_iterations,
  };
  if (!on)
    return {
      ...base,
      builds: r.saved_builds,
      unpriced_builds: 0,
      machine_s: r.saved_machine_s,
      llm_usd: r.saved_llm_usd,
      usd: r.saved_usd,
      task_calls: 0,
    };
  if (option === 'plan_check')
    return {
      ...base,
      builds: r.caught_builds,
      unpriced_builds: r.caught_builds,
      machine_s: null,
      llm_usd: null,
      usd: null,
      task_calls: 0,
    };
  const priced = r.added_builds - r.unpriced_builds;
  return {
    ...base,
    builds: r.added_builds,
    unpriced_builds: r.unpriced_builds,
    machine_s: priced ? r.added_machine_s : null,
    llm_usd: null,
    usd: priced ? (r.added_machine_s / 3600) * hourlyUsd : null,
    task_calls: r.added_task_calls,
  };
}

/**
 * Replay every file four times (each switch on and off) and keep, for each counted run of `runs` with
 * a usable planner reply, the replay that flips each switch from how the run had it. A run found in
 * several files is taken from the file `runs` names as its source.
 * @example
 *   const analysis = await analyseFiles(['results/quickstart.duckdb']);
 *   const savings = await planSavings(analysis.runs, { checkout: await chooseReplayCheckout(), hourlyUsd: 0.36 });
 *   savings.rows.filter((s) => s.switch === 'fast_path').map((s) => [s.run_id, s.builds, s.usd]);
 */
export async function planSavings(
  runs: readonly RunRow[],
  options: { readonly checkout: ReplayCheckout; readonly hourlyUsd: number },
): Promise<PlanSavings> {
  const shown = runs.filter(counted);
  const replayed = new Map<string, PlanReplayRun>();
  const key = (runId: string, option: ReplayOption, on: boolean) => `${runId} ${option} ${on}`;
  for (const file of new Set(shown.map((r) => r.source))) {
    const mine = new Set(shown.filter((r) => r.source === file).map((r) => r.run_id));
    const recorded = (await readRecordedRuns(file)).filter((r) => mine.has(r.run_id));
    for (const option of REPLAY_OPTIONS)
      for (const on of [false, true]) {
        const replay = replayRecorded(file, recorded, {
          checkout: options.checkout,
          overrides: flipped(option, on),
          hourlyUsd: options.hourlyUsd,
        });
        for (const r of replay.runs) replayed.set(key(r.run_id, option, on), r);
      }
  }
  const rows = shown.flatMap((run) =>
    REPLAY_OPTIONS.flatMap((option) => {
      const any = replayed.get(key(run.run_id, option, true));
      if (!any || any.skipped || any.replies === any.unusable) return [];
      const on = any.recorded[option];
      return [saving(run, option, on, replayed.get(key(run.run_id, option, !on))!, options.hourlyUsd)];
    }),
  );
  return { checkout: options.checkout, hourly_usd: options.hourlyUsd, rows };
}
