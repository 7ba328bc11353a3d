/** codesign_bayes over the real Optuna bridge (Debian's python3-optuna, installed by scripts/setup.sh). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bayesSearch } from '../../mace/codesign/bayes.ts';
import { describeDesign, type Design } from '../../mace/codesign/design.ts';
import type { DesignSpace } from '../../mace/codesign/space.ts';
import type { Evaluation } from '../../mace/codesign/strategy.ts';

const SPACE: DesignSpace = {
  caches: { l15: { sizes: [4096, 8192, 16384], assocs: [4, 8] }, l2: { sizes: [32768, 65536, 131072], assocs: [4] } },
  networks: ['2dmesh_config'],
};

/** A made-up objective: a bigger L1.5 is sooner; a 128 KB L2 is "over budget". */
function outcome(design: Design, idx: number): Evaluation {
  const fits = design.caches.l2[0] !== 131072;
  const simTime = 1_000_000 - design.caches.l15[0] * 10 - design.caches.l15[1];
  return {
    idx,
    round: 0,
    design,
    simulated: fits,
    passed: fits,
    feasible: fits,
    simTime: fits ? simTime : null,
    area: null,
    fits,
    rejected: fits ? '' : 'over the area budget',
    wallS: 0,
  };
}

async function searchWith(seed: number, rounds = 6): Promise<string[]> {
  const strategy = await bayesSearch(SPACE, seed);
  const history: Evaluation[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const proposed = await strategy.propose(history, 2);
      const evaluated = proposed.map((d, i) => outcome(d, history.length + i));
      history.push(...evaluated);
      await strategy.observe(evaluated);
    }
  } finally {
    await strategy.close();
  }
  return history.map((e) => describeDesign(e.design));
}

describe('codesign_bayes', () => {
  it('is reproducible from its seed and never proposes a design twice', async () => {
    const [a, b, c] = [await searchWith(5), await searchWith(5), await searchWith(6)];
    assert.deepEqual(a, b);
    assert.notDeepEqual(a, c);
    assert.equal(new Set(a).size, a.length);
    assert.ok(a.length >= 10, `${a.length} designs in 6 rounds of 2`);
  });

  it('runs out quietly when every design of a small space has been seen', async () => {
    const tiny: DesignSpace = { caches: { l2: { sizes: [32768, 65536], assocs: [4] } }, networks: ['2dmesh_config'] };
    const strategy = await bayesSearch(tiny, 1);
    try {
      const history: Evaluation[] = [];
      for (let round = 0; round < 3; round++) {
        const evaluated = (await strategy.propose(history, 2)).map((d, i) => outcome(d, history.length + i));
        history.push(...evaluated);
        await strategy.observe(evaluated);
      }
      assert.equal(history.length, 2);
    } finally {
      await strategy.close();
    }
  });
});
