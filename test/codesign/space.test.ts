import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyticalModel, designArea } from '../../mace/codesign/area.ts';
import { describeDesign, designOf, parseDesign } from '../../mace/codesign/design.ts';
import { gridSearch, randomSearch } from '../../mace/codesign/random-grid.ts';
import {
  designFromKnobs,
  gridDesigns,
  inSpace,
  sampleDesign,
  spaceCount,
  spaceKnobs,
  type DesignSpace,
} from '../../mace/codesign/space.ts';
import type { Evaluation } from '../../mace/codesign/strategy.ts';
import { seeded } from '../../mace/llm/scripted/random.ts';

/** The original study's matmul co-design space and grid. */
const SPACE: DesignSpace = {
  caches: {
    l1d: { sizes: [2048, 4096, 8192, 16384], assocs: [1, 2, 4] },
    l15: { sizes: [4096, 8192, 16384], assocs: [4] },
    l2: { sizes: [32768, 65536, 131072], assocs: [4, 8] },
  },
  networks: ['2dmesh_config'],
};
const GRID = { l1d_size: [4096, 8192, 16384], l15_size: [4096, 8192, 16384], l2_size: [32768, 65536] };

const evaluated = (designs: readonly ReturnType<typeof designOf>[]): Evaluation[] =>
  designs.map((design, idx) => ({
    idx,
    round: 0,
    design,
    simulated: true,
    passed: true,
    feasible: true,
    simTime: 1,
    area: null,
    fits: true,
    rejected: '',
    wallS: 0,
  }));

describe('designs', () => {
  it('describe and parse back, strictly', () => {
    const design = designOf({ l15: [16384, 4], l2: [32768, 4] });
    const text = describeDesign(design);
    assert.equal(text, 'l15=16384,4 l1d=8192,4 l1i=16384,4 l2=32768,4 network=2dmesh_config');
    assert.deepEqual(parseDesign(text), design);
    assert.deepEqual(parseDesign('l2=32768,4'), designOf({ l2: [32768, 4] }));
    for (const bad of ['l2=32768', 'l3=1024,4', 'l2=1,1 l2=2,2', 'network=ring', 'l15=8192,4 extra', 'l2=0,4'])
      assert.equal(parseDesign(bad), null, bad);
  });
});

describe('the design space', () => {
  it("counts the original's 216 designs and expands its grid into 18, first knob slowest", () => {
    assert.equal(spaceCount(SPACE), 216);
    assert.deepEqual(
      spaceKnobs(SPACE).map((k) => k.name),
      ['l15_size', 'l15_assoc', 'l1d_size', 'l1d_assoc', 'l2_size', 'l2_assoc', 'network'],
    );
    const grid = gridDesigns(GRID);
    assert.equal(grid.length, 18);
    assert.deepEqual(grid[0]!.caches, { l15: [4096, 4], l1d: [4096, 4], l1i: [16384, 4], l2: [32768, 4] });
    assert.deepEqual(grid[1]!.caches.l2, [65536, 4]);
    assert.deepEqual(grid[2]!.caches.l15, [8192, 4]);
    assert.ok(grid.every((d) => inSpace(SPACE, d)));
  });

  it('holds a design only with searched caches on their axes and the others at their defaults', () => {
    assert.ok(inSpace(SPACE, designOf()));
    assert.ok(!inSpace(SPACE, designOf({ l1i: [8192, 4] })));
    assert.ok(!inSpace(SPACE, designOf({ l2: [262144, 4] })));
    assert.ok(!inSpace(SPACE, designOf({}, 'xbar_config')));
    const d = designOf({ l1d: [2048, 1], l2: [131072, 8] });
    assert.deepEqual(
      designFromKnobs({ l1d_size: 2048, l1d_assoc: 1, l2_size: 131072, l2_assoc: 8, network: '2dmesh_config' }),
      d,
    );
  });

  it('fits 106 of the 216 designs and 13 of the 18 grid designs under a 2x2 budget of the default area', async () => {
    const budget = (await designArea(designOf(), 4, analyticalModel)).areaUm2;
    const all: ReturnType<typeof designOf>[] = [];
    for (const l1d of SPACE.caches.l1d!.sizes)
      for (const l1dWays of SPACE.caches.l1d!.assocs)
        for (const l15 of SPACE.caches.l15!.sizes)
          for (const l2 of SPACE.caches.l2!.sizes)
            for (const l2Ways of SPACE.caches.l2!.assocs)
              all.push(designOf({ l1d: [l1d, l1dWays], l15: [l15, 4], l2: [l2, l2Ways] }));
    const fits = async (designs: typeof all) => {
      let n = 0;
      for (const d of designs) if ((await designArea(d, 4, analyticalModel)).areaUm2 <= budget) n++;
      return n;
    };
    assert.equal(all.length, 216);
    assert.equal(await fits(all), 106);
    assert.equal(await fits(gridDesigns(GRID)), 13);
  });

  it('samples every knob uniformly from its values', () => {
    const random = seeded(7);
    const seen = new Map<number, number>();
    for (let i = 0; i < 3000; i++) {
      const size = sampleDesign(SPACE, random).caches.l1d[0];
      seen.set(size, (seen.get(size) ?? 0) + 1);
    }
    assert.deepEqual(
      [...seen.keys()].sort((a, b) => a - b),
      [2048, 4096, 8192, 16384],
    );
    for (const n of seen.values()) assert.ok(n > 650 && n < 850, `l1d size drawn ${n} times of 3000`);
  });
});

describe('random and grid strategies', () => {
  it('the grid proposes its designs in order, skipping those already evaluated', async () => {
    const grid = gridDesigns(GRID);
    const strategy = gridSearch(grid);
    assert.deepEqual(await strategy.propose([], 2), grid.slice(0, 2));
    assert.deepEqual(await strategy.propose(evaluated([grid[0]!, grid[2]!]), 3), [grid[1], grid[3], grid[4]]);
    assert.deepEqual(await strategy.propose(evaluated(grid), 2), []);
  });

  it('random search is reproducible from its seed, differs between seeds and never repeats', async () => {
    const run = async (seed: number) => {
      const strategy = randomSearch(SPACE, seed);
      const history: Evaluation[] = [];
      for (let round = 0; round < 10; round++) history.push(...evaluated(await strategy.propose(history, 3)));
      return history.map((e) => describeDesign(e.design));
    };
    const [a, b, c] = [await run(1), await run(1), await run(2)];
    assert.deepEqual(a, b);
    assert.notDeepEqual(a, c);
    assert.equal(new Set(a).size, 30);
  });

  it('random search stops at an exhausted space', async () => {
    const tiny: DesignSpace = { caches: { l2: { sizes: [32768, 65536], assocs: [4] } }, networks: ['2dmesh_config'] };
    const strategy = randomSearch(tiny, 3);
    const first = await strategy.propose([], 5);
    assert.equal(first.length, 2);
    assert.deepEqual(await strategy.propose(evaluated(first), 5), []);
  });
});
