/**
 * The co-design search loop, the same for every strategy: each round asks the strategy for unseen
 * designs, rejects those against the way rule or over the area budget (recorded, never built), builds
 * and runs the rest in parallel through the loop's own build-and-check path, and records one
 * evaluation per proposal. It stops at the simulation budget, after ten proposals per allowed
 * simulation, at the wall-clock or dollar budget, or after two rounds in a row that bring nothing
 * new. The run passes when it found a feasible design.
 */
import type { Deadline } from '../budget.ts';
import { recordingCheckout, type Checkout } from '../checkouts.ts';
import { integrateParallel, type TaskResult } from '../integrator.ts';
import type { RunLlm } from '../llm/recorder.ts';
import { taskRecord } from '../records.ts';
import { LoopOptionsSchema, makeTask, type MaceSpec, type RunStatus, type Task } from '../spec.ts';
import type { Store } from '../store/store.ts';
import { recordEvaluation, recordIteration, type When } from '../store/writers.ts';
import { designArea, type AreaModel, type DesignArea } from './area.ts';
import { describeDesign, designJson, designWayViolations, type Design } from './design.ts';
import { seenDesigns, type Evaluation, type Strategy } from './strategy.ts';

export interface SearchSettings {
  readonly spec: MaceSpec;
  /** RTL defines every design carries (the task's expert configuration's). */
  readonly configRtl: readonly string[];
  readonly simulations: number;
  readonly batch: number;
  /** Square microns over all tiles; null: no budget. */
  readonly areaBudgetUm2: number | null;
  readonly areaModel: AreaModel;
}

export interface SearchContext {
  readonly runId: string;
  readonly store: Store;
  readonly checkouts: readonly Checkout[];
  readonly workloadsDir: string;
  readonly deadline: Deadline;
  /** The proposer's recorder (codesign_mace): its calls join each round's cost and the dollar budget. */
  readonly llm?: RunLlm;
  readonly signal?: AbortSignal;
  readonly onEvaluation?: (evaluation: Evaluation) => void;
}

export interface SearchOutcome {
  readonly status: Exclude<RunStatus, 'running'>;
  readonly reason?: string;
  readonly history: readonly Evaluation[];
  readonly best: Evaluation | null;
}

/** Rounds in a row with nothing new that end a search. */
const IDLE_ROUNDS = 2;
/** Proposals allowed per simulation, so a strategy that keeps proposing rejected designs stops. */
const PROPOSALS_PER_SIMULATION = 10;

interface Priced {
  readonly design: Design;
  readonly area: DesignArea | null;
  readonly fits: boolean;
  readonly rejected: string;
}

export async function runCodesignSearch(
  strategy: Strategy,
  settings: SearchSettings,
  ctx: SearchContext,
): Promise<SearchOutcome> {
  const { spec } = settings;
  const tiles = spec.target_mesh[0] * spec.target_mesh[1];
  const checkouts = ctx.checkouts.map((c) => recordingCheckout(c, ctx.store, ctx.runId));
  const history: Evaluation[] = [];
  let simulated = 0;
  let round = 0;
  let idle = 0;
  let stop: string | undefined;

  const stopReason = (): string | undefined => {
    if (ctx.signal?.aborted) return 'cancelled';
    if (simulated >= settings.simulations) return `the simulation budget (${settings.simulations}) is spent`;
    if (history.length >= PROPOSALS_PER_SIMULATION * settings.simulations)
      return `${history.length} proposals, ten per allowed simulation`;
    if (ctx.deadline.passed()) return `max_wall_s (${spec.budget.max_wall_s} s) reached`;
    if (ctx.llm && ctx.llm.totals().usd >= spec.budget.max_usd) return `max_usd ($${spec.budget.max_usd}) reached`;
    return undefined;
  };

  const price = async (design: Design): Promise<Priced> => {
    const ways = designWayViolations(spec, design);
    let area: DesignArea;
    try {
      area = await designArea(design, tiles, settings.areaModel);
    } catch (error) {
      return { design, area: null, fits: false, rejected: (error as Error).message };
    }
    const fits = settings.areaBudgetUm2 === null || area.areaUm2 <= settings.areaBudgetUm2;
    const rejected = ways.length ? `the way rule: ${ways.join('; ')}` : fits ? '' : 'over the area budget';
    return { design, area, fits, rejected };
  };

  /** Record one proposal's outcome; `idx` is its place in the order the strategy proposed. */
  const keep = async (idx: number, priced: Priced, result: TaskResult | null, when: When): Promise<Evaluation> => {
    const passed = result?.passed ?? false;
    const times = result?.runs.map((r) => r.simTime) ?? [];
    const simTime =
      passed && times.length && times.every((t) => t !== null) ? times.reduce((a, b) => a! + b!, 0) : null;
    const e: Evaluation = {
      idx,
      round,
      design: priced.design,
      simulated: result !== null,
      passed,
      feasible: passed && simTime !== null && priced.fits,
      simTime,
      area: priced.area,
      fits: priced.fits,
      rejected: priced.rejected,
      wallS: result ? (result.finishedAt.getTime() - result.startedAt.getTime()) / 1000 : 0,
    };
    history.push(e);
    ctx.onEvaluation?.(e);
    await recordEvaluation(
      ctx.store,
      {
        runId: ctx.runId,
        idx: e.idx,
        round: e.round,
        design: designJson(e.design),
        passed: e.passed,
        feasible: e.feasible,
        simTime: e.simTime,
        areaUm2: e.area?.areaUm2 ?? null,
        readEnergyNj: e.area?.readEnergyNj ?? null,
        areaSource: e.area?.source ?? null,
        wallS: e.wallS,
        simulated: e.simulated,
        rejected: e.rejected,
      },
      when,
    );
    return e;
  };

  try {
    while (!(stop = stopReason())) {
      const want = Math.min(settings.batch, settings.simulations - simulated);
      const seen = seenDesigns(history);
      const fresh = new Map<string, Design>();
      for (const design of await strategy.propose(history, want)) {
        const key = describeDesign(design);
        if (!seen.has(key) && fresh.size < want) fresh.set(key, design);
      }
      const base = history.length;
      const priced = (await Promise.all([...fresh.values()].map(price))).map((p, i) => ({ ...p, idx: base + i }));
      const rejections: Evaluation[] = [];
      for (const p of priced.filter((p) => p.rejected)) rejections.push(await keep(p.idx, p, null, 'later'));
      if (rejections.length) await strategy.observe(rejections);
      const buildable = priced.filter((p) => !p.rejected);
      if (!buildable.length) {
        await ctx.store.flush();
        idle = rejections.length ? 0 : idle + 1;
        if (idle >= IDLE_ROUNDS) {
          stop = 'two rounds in a row proposed nothing new';
          break;
        }
        continue;
      }
      idle = 0;
      const startedAt = new Date();
      const tasks = buildable.map((p) => designTask(`d${p.idx}`, p.design, settings.configRtl));
      const results = await integrateParallel(tasks, checkouts, {
        spec,
        options: LoopOptionsSchema.parse({ task_prompts: false }),
        taskPrompts: false,
        runId: ctx.runId,
        iteration: round,
        llm: undefined,
        deadline: ctx.deadline,
        workloadsDir: ctx.workloadsDir,
        signal: ctx.signal,
      });
      const built: Evaluation[] = [];
      for (const [i, result] of results.entries())
        built.push(await keep(buildable[i]!.idx, buildable[i]!, result, 'later'));
      history.sort((a, b) => a.idx - b.idx);
      const finishedAt = new Date();
      await recordIteration(ctx.store, {
        runId: ctx.runId,
        iteration: round,
        tasks: results.map(taskRecord),
        wallS: (finishedAt.getTime() - startedAt.getTime()) / 1000,
        usd: ctx.llm?.totals(round).usd ?? 0,
        startedAt,
        finishedAt,
        plan: tasks,
      });
      simulated += built.length;
      await strategy.observe(built);
      round++;
    }
  } finally {
    await strategy.close();
  }
  const best = bestOf(history);
  if (stop === 'cancelled') return { status: 'error', reason: 'cancelled', history, best };
  return best
    ? { status: 'passed', history, best }
    : { status: 'budget_exceeded', reason: `no feasible design found; ${stop}`, history, best };
}

/** A design as the config task the integrator builds; its id names its place in the search. */
export function designTask(id: string, design: Design, configRtl: readonly string[]): Task {
  return makeTask({
    id,
    kind: 'config',
    instruction: describeDesign(design),
    caches: designJson(design).caches,
    config_rtl: configRtl.length ? [...configRtl] : null,
    network: design.network,
  });
}

/** The feasible evaluation that finished soonest; ties go to the smaller area. */
export function bestOf(history: readonly Evaluation[]): Evaluation | null {
  let best: Evaluation | null = null;
  for (const e of history) {
    if (!e.feasible) continue;
    if (
      !best ||
      e.simTime! < best.simTime! ||
      (e.simTime === best.simTime && (e.area?.areaUm2 ?? 0) < (best.area?.areaUm2 ?? 0))
    )
      best = e;
  }
  return best;
}
