/**
 * The co-design searches (C0-C3): one method per strategy, all through the same search loop
 * (mace/codesign/search.ts), on co-design tasks only. The area budget is the task's ratio times the
 * area of OpenPiton's default caches on the task's mesh, priced by the same model that prices every
 * proposal (CACTI when one is found, else the analytical estimate), and recorded with the run.
 */
import { Deadline } from '../../mace/budget.ts';
import { chooseAreaModel, designArea, type AreaModel } from '../../mace/codesign/area.ts';
import { bayesSearch } from '../../mace/codesign/bayes.ts';
import { designOf } from '../../mace/codesign/design.ts';
import { areaNotes, llmProposer } from '../../mace/codesign/proposer.ts';
import { gridSearch, randomSearch } from '../../mace/codesign/random-grid.ts';
import { runCodesignSearch } from '../../mace/codesign/search.ts';
import type { Strategy } from '../../mace/codesign/strategy.ts';
import { gridDesigns, type DesignSpace } from '../../mace/codesign/space.ts';
import type { RunLlm } from '../../mace/llm/recorder.ts';
import { addRunMeta } from '../../mace/store/writers.ts';
import { codesignSpace } from '../suite/codesign.ts';
import { finishOwnRun, requirementProblem, startOwnRun } from './record.ts';
import { isCodesign, type Method, type MethodContext } from './types.ts';

interface StrategyInput {
  readonly ctx: MethodContext;
  /** The run's recorder, for the strategy that asks an LLM. */
  readonly llm: RunLlm | undefined;
  readonly space: DesignSpace;
  readonly grid: Readonly<Record<string, readonly (number | string)[]>>;
  readonly budgetUm2: number | null;
  readonly model: AreaModel;
  readonly tiles: number;
}

function searchMethod(definition: {
  readonly name: string;
  readonly summary: string;
  readonly usesLlm: boolean;
  readonly once: boolean;
  readonly strategy: (input: StrategyInput) => Promise<Strategy>;
}): Method {
  return {
    name: definition.name,
    summary: definition.summary,
    checkouts: 'all',
    usesLlm: definition.usesLlm,
    loop: false,
    takesOptions: false,
    once: definition.once,
    options: {},
    applies: isCodesign,
    async run(ctx) {
      const llm = definition.usesLlm ? ctx.llm!(ctx.runId) : undefined;
      await startOwnRun(ctx, llm);
      return finishOwnRun(ctx, async () => {
        const problem = await requirementProblem(ctx);
        if (problem) return problem;
        const { spec, codesign, expert } = ctx.task;
        if (!codesign)
          throw new Error(`${definition.name} needs a co-design task; ${ctx.task.id} has no codesign block`);
        const deadline = Deadline.after(spec.budget.max_wall_s);
        const tiles = spec.target_mesh[0] * spec.target_mesh[1];
        const model = await chooseAreaModel();
        const reference = await designArea(designOf(), tiles, model);
        const budgetUm2 = codesign.area_budget_ratio === null ? null : codesign.area_budget_ratio * reference.areaUm2;
        await addRunMeta(ctx.store, ctx.runId, {
          codesign: {
            strategy: definition.name,
            simulations: codesign.simulations,
            batch: codesign.batch,
            area_budget_um2: budgetUm2,
            area_source: model.source,
          },
        });
        const space = codesignSpace(codesign);
        const strategy = await definition.strategy({ ctx, llm, space, grid: codesign.grid, budgetUm2, model, tiles });
        const outcome = await runCodesignSearch(
          strategy,
          {
            spec,
            configRtl: expert.config_rtl ?? [],
            simulations: codesign.simulations,
            batch: codesign.batch,
            areaBudgetUm2: budgetUm2,
            areaModel: model,
          },
          {
            runId: ctx.runId,
            store: ctx.store,
            checkouts: ctx.checkouts,
            workloadsDir: ctx.workloadsDir,
            deadline,
            llm,
            signal: ctx.signal,
          },
        );
        return { status: outcome.status, ...(outcome.reason ? { reason: outcome.reason } : {}) };
      });
    },
  };
}

export const codesignMethods: readonly Method[] = [
  searchMethod({
    name: 'codesign_mace',
    summary: 'C0: the LLM proposes each round of designs from the space, the areas and the history',
    usesLlm: true,
    once: false,
    strategy: async ({ ctx, llm, space, budgetUm2, model, tiles }) =>
      llmProposer({
        llm: llm!,
        spec: ctx.task.spec,
        space,
        budgetUm2,
        notes: await areaNotes(space, tiles, model),
      }),
  }),
  searchMethod({
    name: 'codesign_random',
    summary: 'C1: uniform random designs from the space, seeded by the repeat',
    usesLlm: false,
    once: false,
    strategy: async ({ ctx, space }) => randomSearch(space, ctx.labels.seed ?? 0),
  }),
  searchMethod({
    name: 'codesign_grid',
    summary: "C2: the task's fixed grid, in order (runs once per task)",
    usesLlm: false,
    once: true,
    strategy: async ({ grid }) => gridSearch(gridDesigns(grid)),
  }),
  searchMethod({
    name: 'codesign_bayes',
    summary: "C3: Optuna's TPE sampler over the space, seeded by the repeat (Debian's python3-optuna)",
    usesLlm: false,
    once: false,
    strategy: async ({ ctx, space }) => bayesSearch(space, ctx.labels.seed ?? 0),
  }),
];
