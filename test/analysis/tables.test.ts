import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sampleOf, unitSum } from '../../harness/analysis/tables.ts';

describe('unitSum', () => {
  it('gives the same sum in any order, where adding floats does not', () => {
    const values = [0.1, 0.2, 0.3];
    assert.notEqual(
      values.reduce((a, b) => a + b),
      [...values].reverse().reduce((a, b) => a + b),
    );
    assert.equal(unitSum(values, 1e9), 0.6);
    assert.equal(unitSum([...values].reverse(), 1e9), 0.6);
  });

  it('rounds each value to its unit, half up', () => {
    assert.equal(unitSum([1.0000000004, 2.0000000004], 1e9), 3);
    assert.equal(unitSum([0.0000005, 0.0000005], 1e6), 0.000002);
    assert.equal(unitSum([12, 30], 1), 42);
    assert.equal(unitSum([], 1e6), 0);
  });
});

describe('sampleOf', () => {
  it('sorts the times and puts an observed pass before a censored failure at the same time', () => {
    // Sorted: (1, pass) (5, pass) (5, censored) (5, censored): the middle pair is (5, pass), (5, censored).
    const sample = sampleOf([5, 1, 5, 5], [true, false, false, true]);
    assert.deepEqual(sample.times, [1, 5, 5, 5]);
    assert.equal(sample.median_censored, true);
    // Sorted: (1, pass) (5, pass) (5, pass) (5, censored): both middle pairs are passes.
    assert.equal(sampleOf([5, 5, 1, 5], [true, false, false, false]).median_censored, false);
  });

  it('does not depend on the order the pairs come in', () => {
    const times = [600, 120, 600, 90, 300, 600, 45];
    const censored = times.map((t) => t === 600);
    const forward = sampleOf(times, censored);
    const backward = sampleOf([...times].reverse(), [...censored].reverse());
    assert.deepEqual(forward, backward);
    assert.equal(forward.median_censored, false, 'the median (300) is a pass');
    assert.equal(sampleOf([...times, 600], [...censored, true]).median_censored, true);
  });

  it('is empty and uncensored with no times', () => {
    assert.deepEqual(sampleOf([], []), { times: [], median_censored: false });
  });
});
