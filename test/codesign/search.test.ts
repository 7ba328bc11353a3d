/**
 * Co-design searches end to end on offline checkouts (speed 0) with a results store: what is built,
 * what is rejected before a build and why, and what lands in `evaluations`.
 */
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Deadline } from '../../mace/budget.ts';
import { analyticalModel, cactiModel, designArea, type AreaModel } from '../../mace/codesign/area.ts';
import { describeDesign, designOf } from '../../mace/codesign/design.ts';
import { areaNotes, llmProposer } from '../../mace/codesign/proposer.ts';
import { gridSearch } from '../../mace/codesign/random-grid.ts';
import { runCodesignSearch } from '../../mace/codesign/search.ts';
import { gridDesigns, inSpace, type DesignSpace } from '../../mace/codesign/space.ts';
import type { Strategy } from '../../mace/codesign/strategy.ts';
import { RunLlm } from '../../mace/llm/recorder.ts';
import type { MaceSpec } from '../../mace/spec.ts';
import { query } from '../../mace/store/readers.ts';
import { closeAllStores } from '../../mace/store/store.ts';
import { startRun } from '../../mace/store/writers.ts';
import { tempDir } from '../helpers.ts';
import { arianeSpec, OfflineLab, picoSpec, WORKLOADS } from '../loop/support.ts';

const lab = new OfflineLab();
after(closeAllStores);

const PICO_SPACE: DesignSpace = {
  caches: { l15: { sizes: [4096, 8192, 16384], assocs: [4] }, l2: { sizes: [32768, 65536, 131072], assocs: [4] } },
  networks: ['2dmesh_config'],
};

let runs = 0;
async function search(
  spec: MaceSpec,
  strategy: Strategy,
  settings: { simulations?: number; batch?: number; budget?: number | null; model?: AreaModel; llm?: RunLlm } = {},
) {
  const store = await lab.db();
  const runId = settings.llm?.runId ?? `cd-${++runs}`;
  await startRun(store, {
    runId,
    objective: spec.objective,
    core: spec.core,
    mesh: spec.target_mesh,
    workloads: spec.workloads,
  });
  const model = settings.model ?? analyticalModel;
  const budget = settings.budget === undefined ? (await designArea(designOf(), 4, model)).areaUm2 : settings.budget;
  const outcome = await runCodesignSearch(
    strategy,
    {
      spec,
      configRtl: ['CONFIG_DISABLE_BIST_CLEAR'],
      simulations: settings.simulations ?? 4,
      batch: settings.batch ?? 2,
      areaBudgetUm2: budget,
      areaModel: model,
    },
    {
      runId,
      store,
      checkouts: await lab.checkouts(spec.core),
      workloadsDir: WORKLOADS,
      deadline: Deadline.after(600),
      llm: settings.llm,
    },
  );
  const rows = await query<{
    idx: number;
    round: number;
    simulated: boolean;
    rejected: string;
    area_source: string | null;
    sim_time: bigint | null;
    feasible: boolean;
  }>(
    store,
    'SELECT idx, round, simulated, rejected, area_source, sim_time, feasible FROM evaluations WHERE run_id = $1 ORDER BY idx',
    [runId],
  );
  const tasks = await query<{ task_id: string; spec: string }>(
    store,
    'SELECT task_id, spec FROM tasks WHERE run_id = $1 ORDER BY iteration, task_id',
    [runId],
  );
  return { runId, outcome, rows, tasks };
}

describe('a co-design search on offline checkouts', () => {
  it('builds the grid in order, rejects the designs over the area budget without building them', async () => {
    const grid = gridDesigns({ l15_size: [16384, 8192], l2_size: [32768, 131072, 65536] });
    const budget = (await designArea(designOf(), 4, analyticalModel)).areaUm2;
    const areas = await Promise.all(grid.map(async (d) => (await designArea(d, 4, analyticalModel)).areaUm2));
    const { outcome, rows, tasks } = await search(picoSpec(), gridSearch(grid), { simulations: 4 });
    assert.equal(outcome.status, 'passed');
    assert.deepEqual(
      outcome.history.map((e) => describeDesign(e.design)),
      grid.map(describeDesign),
      'the whole grid, in order',
    );
    // A 128 KB L2 does not fit the default caches' area, with either L1.5; the 16 KB L1.5 with a 64 KB L2 neither.
    const over = grid.filter((_, i) => areas[i]! > budget).map(describeDesign);
    assert.equal(over.length, 3);
    assert.deepEqual(
      outcome.history.filter((e) => e.rejected).map((e) => describeDesign(e.design)),
      over,
    );
    assert.ok(outcome.history.filter((e) => e.rejected).every((e) => e.rejected === 'over the area budget'));
    assert.deepEqual(
      tasks.map((t) => t.spec),
      grid.map(describeDesign).filter((d) => !over.includes(d)),
      'only the designs within the budget were built',
    );
    assert.equal(rows.length, 6);
    assert.ok(
      rows.filter((r) => r.simulated).every((r) => r.feasible && r.sim_time !== null && r.area_source === 'analytical'),
    );
    assert.equal(outcome.best?.simTime, Math.min(...outcome.history.filter((e) => e.feasible).map((e) => e.simTime!)));
  });

  it('never builds a design against the way rule, and stops after two rounds with nothing new', async () => {
    const spec = arianeSpec();
    const grid = gridDesigns({ l1d_assoc: [8], l15_size: [8192, 16384] });
    const { outcome, rows, tasks } = await search(spec, gridSearch(grid), { budget: null });
    assert.equal(outcome.status, 'budget_exceeded');
    assert.match(outcome.reason!, /two rounds in a row proposed nothing new/);
    assert.equal(tasks.length, 0);
    assert.deepEqual(
      rows.map((r) => r.simulated),
      [false, false],
    );
    assert.ok(rows.every((r) => /^the way rule: l1d has 8 ways, more than the L1\.5's 4$/.test(r.rejected)));
  });

  it('rejects a design CACTI cannot price rather than mixing in the analytical estimate', async () => {
    // CACTI is not installed here: a fake binary stands at that edge, refusing the 128 KB L2's data array.
    const bin = join(tempDir('mace-cacti-'), 'cacti');
    writeFileSync(
      bin,
      '#!/bin/sh\ngrep -q "size (bytes) 131072$" "$2" && { echo "ERROR: no valid organisation" >&2; exit 1; }\n' +
        'echo "Data array: Area (mm2): 0.01"\necho "Total dynamic read energy per access (nJ): 0.001"\n',
    );
    chmodSync(bin, 0o755);
    const grid = gridDesigns({ l2_size: [131072, 32768] });
    const { outcome, rows } = await search(picoSpec(), gridSearch(grid), {
      model: cactiModel(bin),
      budget: null,
      simulations: 2,
    });
    assert.match(outcome.history[0]!.rejected, /CACTI \(.*\) cannot price a 2048x512 array/);
    assert.deepEqual(
      rows.map((r) => [r.simulated, r.area_source]),
      [
        [false, null],
        [true, 'cacti'],
      ],
    );
  });

  it('asks the LLM once per round and builds only designs from the space within the budget', async () => {
    const spec = picoSpec();
    const budget = (await designArea(designOf(), 4, analyticalModel)).areaUm2;
    const llm = new RunLlm(await lab.scripted(), { runId: 'cd-llm', seed: 3, store: await lab.db() });
    const strategy = llmProposer({
      llm,
      spec,
      space: PICO_SPACE,
      budgetUm2: budget,
      notes: await areaNotes(PICO_SPACE, 4, analyticalModel),
    });
    const { outcome, rows } = await search(spec, strategy, { simulations: 4, llm });
    assert.equal(outcome.status, 'passed');
    assert.equal(rows.length, 4);
    assert.ok(outcome.history.every((e) => e.simulated && inSpace(PICO_SPACE, e.design) && e.fits));
    const calls = llm.calls();
    assert.deepEqual(
      calls.map((c) => [c.phase, c.iteration]),
      [
        ['propose', 0],
        ['propose', 1],
      ],
    );
    assert.match(calls[0]!.prompt, /Total cache area budget: 3510272 square microns over all tiles/);
    assert.match(calls[0]!.prompt, /- l15: 4096,4=\d+ 8192,4=325632 16384,4=\d+/);
    assert.match(
      calls[1]!.prompt,
      /^- l15=\S+ .* network=2dmesh_config: passed the check, finish time \d+, area \d+ \(fits\)$/m,
    );
  });
});
