import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import wilcoxon from '@stdlib/stats-wilcoxon';
import {
  averageRanks,
  bootstrapMedian,
  holm,
  iqr,
  median,
  medianRanks,
  quantileSorted,
  signedRankTest,
  wilson,
} from '../../harness/analysis/stats.ts';

/** Exact p by listing every sign pattern: the definition the test must agree with. */
function bruteForceP(diffs: readonly number[]): number {
  const nonZero = diffs.filter((d) => d !== 0);
  const ranks = averageRanks(nonZero.map(Math.abs));
  const total = ranks.reduce((a, b) => a + b, 0);
  const observed = nonZero.reduce((s, d, i) => (d > 0 ? s + ranks[i]! : s), 0);
  let extreme = 0;
  const patterns = 2 ** nonZero.length;
  for (let mask = 0; mask < patterns; mask++) {
    const w = ranks.reduce((s, r, i) => (mask & (1 << i) ? s + r : s), 0);
    if (Math.abs(w - total / 2) >= Math.abs(observed - total / 2) - 1e-9) extreme++;
  }
  return Math.min(1, extreme / patterns);
}

describe('exact Wilcoxon signed-rank test', () => {
  it('differences 1..5 give W+ = 15 and p = 2/32', () => {
    const t = signedRankTest([1, 2, 3, 4, 5]);
    assert.equal(t.wPlus, 15);
    assert.equal(t.p, 2 / 32);
    assert.equal(t.n, 5);
    assert.equal(t.minimumP, 2 / 32);
  });

  it('all-zero differences give p = 1', () => {
    assert.deepEqual(signedRankTest([0, 0]), { n: 0, zeros: 2, wPlus: 0, p: 1, ties: false, minimumP: 1 });
    assert.equal(signedRankTest([]).p, 1);
  });

  it('one non-zero difference gives p = 1 (both sign patterns are as extreme)', () => {
    assert.deepEqual(signedRankTest([3]), { n: 1, zeros: 0, wPlus: 1, p: 1, ties: false, minimumP: 1 });
    assert.deepEqual(signedRankTest([-2.5, 0]), { n: 1, zeros: 1, wPlus: 0, p: 1, ties: false, minimumP: 1 });
  });

  it('[1, -1, 2, -2] gives p = 1 and [1, 1, -3] gives W+ = 3 (ties get average ranks)', () => {
    const a = signedRankTest([1, -1, 2, -2]);
    assert.equal(a.p, 1);
    assert.equal(a.ties, true);
    const b = signedRankTest([1, 1, -3]);
    assert.equal(b.wPlus, 3);
    assert.equal(b.p, 1);
  });

  it('matches the published exact value (scipy 0.00927734375) for n = 12', () => {
    const t = signedRankTest([3, -1, 7, 12, 9, -2, 6, 8, -4, 11, 5, 10]);
    assert.equal(t.wPlus, 71);
    assert.ok(Math.abs(t.p - 0.00927734375) < 1e-12, String(t.p));
  });

  it('agrees with enumeration of every sign pattern, with and without ties', () => {
    const cases = [
      [2, -3, 5, 7, -11, 13],
      [1, 1, 2, -2, 3, 3, -3, 4],
      [0.5, -0.5, 0.5, 1.5, 2.5, -2.5, 4],
      [-1, -2, -3, -4, -5, -6, -7],
      [1, 2, 2, 2, -5, 0, 0],
    ];
    for (const diffs of cases) {
      const t = signedRankTest(diffs);
      assert.ok(Math.abs(t.p - bruteForceP(diffs)) < 1e-12, `${diffs}: ${t.p} vs ${bruteForceP(diffs)}`);
    }
  });

  it('counts the exact distribution itself beyond the range it hands to stdlib, agreeing with it', () => {
    // 60 untied differences: stdlib's exact:true p against the convolution used above 50 pairs.
    const diffs = Array.from({ length: 60 }, (_, i) => (i + 1) * (i % 3 === 0 ? -1 : 1) + 0.001 * i);
    const t = signedRankTest(diffs);
    const reference = wilcoxon(diffs, { exact: true });
    assert.equal(t.wPlus, reference.statistic);
    assert.ok(Math.abs(t.p - reference.pValue) < 1e-12, `${t.p} vs ${reference.pValue}`);
  });

  it('rounds differences first, so float noise neither makes nor breaks a tie', () => {
    // 0.81 − 0.78 = 0.030000000000000027 and 0.03 must tie.
    const noisy = signedRankTest([0.81 - 0.78, 0.03, -0.05, 0.07, 0.09, 0.11]);
    const clean = signedRankTest([0.03, 0.03, -0.05, 0.07, 0.09, 0.11]);
    assert.deepEqual(noisy, clean);
    assert.equal(noisy.ties, true);
    // A difference smaller than the precision is a zero and is dropped.
    assert.equal(signedRankTest([1e-9, 1, 2]).zeros, 1);
  });
});

describe('Wilson interval', () => {
  it('matches the closed form at known points', () => {
    const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-4, `${a} vs ${b}`);
    const half = wilson(5, 10)!;
    close(half.lo, 0.2366);
    close(half.hi, 0.7634);
    const none = wilson(0, 10)!;
    assert.equal(none.lo, 0);
    close(none.hi, 0.2775);
    const all = wilson(4, 4)!;
    close(all.lo, 0.5101);
    assert.equal(all.hi, 1);
    assert.equal(wilson(0, 0), null);
  });
});

describe('quantiles', () => {
  it('uses linear interpolation between order statistics (type 7, as the original)', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 2, 3]), 2.5);
    assert.equal(median([]), null);
    assert.equal(quantileSorted([1, 2, 3, 4], 0.25), 1.75);
    // Python: statistics.quantiles([1, 2, 3, 4], n=4, method="inclusive") → [1.75, 2.5, 3.25]
    assert.equal(iqr([1, 2, 3, 4]), 1.5);
    assert.equal(iqr([7]), null);
  });
});

describe('bootstrap interval of a median', () => {
  const values = [12, 15, 9, 20, 31, 14, 11, 17, 25, 13];

  it('is reproducible for a seed and moves with it', () => {
    const many = Array.from({ length: 25 }, (_, i) => i * i);
    const a = bootstrapMedian(many, { resamples: 50, seed: 7 });
    assert.deepEqual(a, bootstrapMedian(many, { resamples: 50, seed: 7 }));
    assert.notDeepEqual(a, bootstrapMedian(many, { resamples: 50, seed: 8 }));
  });

  it('brackets the median inside the data range, and is null below two values', () => {
    const ci = bootstrapMedian(values, { resamples: 2000, seed: 1 })!;
    assert.ok(ci.lo <= median(values)! && median(values)! <= ci.hi);
    assert.ok(ci.lo >= 9 && ci.hi <= 31);
    assert.equal(bootstrapMedian([5], { resamples: 100, seed: 1 }), null);
    assert.deepEqual(bootstrapMedian([4, 4, 4], { resamples: 100, seed: 1 }), { lo: 4, hi: 4 });
  });

  it('reads each end off the rank pairs that can reach it: the quantiles of every resampled median', () => {
    let x = 777;
    const next = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (const n of [2, 5, 20, 21, 200]) {
      for (const resamples of [3, 100, 2000]) {
        for (const level of [0.5, 0.95]) {
          // Rounded, so that the samples have ties.
          const sample = Array.from({ length: n }, () => Math.round(next() * 40));
          const sorted = Float64Array.from(sample).sort();
          const { low, high, weight } = medianRanks(n, resamples, 9);
          const every = [...low].flatMap((l, j) =>
            Array<number>(weight[j]!).fill((sorted[l]! + sorted[high[j]!]!) / 2),
          );
          const medians = Float64Array.from(every).sort();
          assert.equal(medians.length, resamples);
          assert.deepEqual(
            bootstrapMedian(sample, { resamples, seed: 9, level }),
            { lo: quantileSorted(medians, (1 - level) / 2), hi: quantileSorted(medians, (1 + level) / 2) },
            `n ${n}, ${resamples} resamples, level ${level}`,
          );
        }
      }
    }
  });

  it('has close to the exact bootstrap distribution of the median', () => {
    // For n = 3, P(median* = x(1)) = P(two or three of the three draws are x(1)) = 7/27, and likewise
    // for x(3), so the 2.5% and 97.5% percentiles of the resampled medians are x(1) and x(3).
    assert.deepEqual(bootstrapMedian([1, 2, 3], { resamples: 4000, seed: 3 }), { lo: 1, hi: 3 });
  });
});

describe('Holm adjustment', () => {
  it('multiplies the k-th smallest p by (m − k + 1) and keeps the order', () => {
    assert.deepEqual(holm([0.01, null, 0.04, 0.03]), [0.03, null, 0.06, 0.06]);
    assert.deepEqual(holm([0.5, 0.9]), [1, 1]);
  });
});
