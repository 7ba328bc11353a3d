/**
 * The statistics the reports use, each stated precisely enough to recompute by hand:
 * the exact Wilcoxon signed-rank test, Wilson score intervals, seeded percentile-bootstrap
 * intervals on a median, type-7 quantiles, and Holm's step-down adjustment.
 */
import wilcoxon from '@stdlib/stats-wilcoxon';

/** Paired differences are rounded to this many seconds before ranking, so float noise cannot make or break a tie. */
export const DIFFERENCE_PRECISION_S = 1e-6;

const TWO_TO_MINUS_32 = 2 ** -32;

/** The z quantile of a two-sided 95% interval. */
const Z95 = 1.959963984540054;

export interface SignedRankTest {
  /** Non-zero differences ranked (zeros are dropped, as Wilcoxon's original method does). */
  readonly n: number;
  readonly zeros: number;
  /** Sum of the ranks of the positive differences (R's V, stdlib's statistic). */
  readonly wPlus: number;
  /** Exact two-sided p, capped at 1. */
  readonly p: number;
  /** True when some |differences| tie; the exact distribution then uses their average ranks. */
  readonly ties: boolean;
  /** The smallest p any sign pattern of n differences can give: 2 / 2^n. */
  readonly minimumP: number;
}

/**
 * Exact two-sided Wilcoxon signed-rank test of paired differences against zero.
 * Differences are rounded to `precision` first. Up to STDLIB_EXACT_MAX untied differences, the p-value
 * is @stdlib/stats-wilcoxon's exact one. With tied |differences| stdlib switches to a normal
 * approximation, and above that size its exact distribution (a memoised recursion) costs about 0.2 s
 * per test at n = 200; there the exact null distribution of the (average) ranks is counted instead,
 * over all 2^n sign patterns, as a convolution on doubled ranks (integers). Tests check that both
 * give the same p wherever both apply.
 * @example signedRankTest([1, 2, 3, 4, 5]) // { n: 5, wPlus: 15, p: 0.0625, ... }
 */
export function signedRankTest(differences: readonly number[], precision = DIFFERENCE_PRECISION_S): SignedRankTest {
  const steps = differences.map((d) => Math.round(d / precision));
  const nonZero = steps.filter((d) => d !== 0);
  const n = nonZero.length;
  const zeros = steps.length - n;
  if (n === 0) return { n, zeros, wPlus: 0, p: 1, ties: false, minimumP: 1 };
  const ranks = averageRanks(nonZero.map(Math.abs));
  const wPlus = nonZero.reduce((sum, d, i) => (d > 0 ? sum + ranks[i]! : sum), 0);
  const ties = new Set(nonZero.map(Math.abs)).size < n;
  const minimumP = Math.min(1, 2 / 2 ** n);
  if (!ties && n <= STDLIB_EXACT_MAX) {
    const result = wilcoxon(nonZero, { exact: true, alternative: 'two-sided' });
    return { n, zeros, wPlus: result.statistic, p: Math.min(1, result.pValue), ties, minimumP };
  }
  return { n, zeros, wPlus, p: exactP(ranks, wPlus), ties, minimumP };
}

/** The largest untied sample handed to stdlib's exact test (its own default limit). */
export const STDLIB_EXACT_MAX = 50;

/** Exact two-sided P(|W+ − E| ≥ |observed − E|) under random signs; ranks may be halves. */
function exactP(ranks: readonly number[], wPlus: number): number {
  const doubled = ranks.map((r) => Math.round(r * 2));
  const total = doubled.reduce((a, b) => a + b, 0);
  // Probability of each doubled positive-rank sum, built one difference at a time (in place, from
  // the top down); halving at each step keeps it finite for large n.
  const dist = new Float64Array(total + 1);
  dist[0] = 1;
  let reach = 0;
  for (const r of doubled) {
    for (let s = reach; s >= 0; s--) {
      const half = dist[s]! / 2;
      dist[s] = half;
      dist[s + r]! += half;
    }
    reach += r;
  }
  // In doubled units the mean is total/2; compare 2·|S − mean| as integers to avoid rounding.
  const observed = Math.abs(2 * Math.round(wPlus * 2) - total);
  let p = 0;
  for (let s = 0; s <= total; s++) if (Math.abs(2 * s - total) >= observed) p += dist[s]!;
  return Math.min(1, p);
}

/** 1-based ranks of the values, ties given the average of the ranks they span. */
export function averageRanks(values: readonly number[]): number[] {
  const order = values.map((_, i) => i).sort((a, b) => values[a]! - values[b]!);
  const ranks = new Array<number>(values.length);
  for (let start = 0; start < order.length;) {
    let end = start;
    while (end + 1 < order.length && values[order[end + 1]!] === values[order[start]!]) end++;
    const rank = (start + end) / 2 + 1;
    for (let k = start; k <= end; k++) ranks[order[k]!] = rank;
    start = end + 1;
  }
  return ranks;
}

export interface Interval {
  readonly lo: number;
  readonly hi: number;
}

export interface Proportion extends Interval {
  readonly successes: number;
  readonly n: number;
  readonly rate: number;
}

/**
 * A pass rate with its Wilson score 95% interval (good at small n and at 0 or 100%, unlike the
 * normal approximation). Null when there are no trials.
 * @example wilson(3, 4) // { rate: 0.75, lo: 0.3006, hi: 0.9544, ... }
 */
export function wilson(successes: number, n: number, z = Z95): Proportion | null {
  if (n === 0) return null;
  const p = successes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { successes, n, rate: p, lo: Math.max(0, centre - half), hi: Math.min(1, centre + half) };
}

/**
 * The q-quantile of ascending values by linear interpolation between order statistics (R type 7,
 * numpy's default, Python's statistics.quantiles(method="inclusive") — the original's IQR).
 */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const below = sorted[lo]!;
  return lo + 1 < sorted.length ? below + (h - lo) * (sorted[lo + 1]! - below) : below;
}

export function median(values: readonly number[]): number | null {
  if (!values.length) return null;
  return quantileSorted(Float64Array.from(values).sort(), 0.5);
}

/** Q3 − Q1 (type 7); null with fewer than two values, as in the original. */
export function iqr(values: readonly number[]): number | null {
  if (values.length < 2) return null;
  const sorted = Float64Array.from(values).sort();
  return quantileSorted(sorted, 0.75) - quantileSorted(sorted, 0.25);
}

/** A well-mixed 32-bit seed from a seed and some names (FNV-1a). */
export function seedFor(seed: number, ...names: readonly (string | number | null)[]): number {
  let hash = 0x811c9dc5 ^ seed;
  for (const char of names.map(String).join('\u0000')) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export interface BootstrapOptions {
  readonly resamples: number;
  readonly seed: number;
  /** Two-sided coverage of the interval. */
  readonly level?: number;
}

/**
 * Percentile-bootstrap interval of the median: `resamples` samples drawn with replacement, the
 * median of each, and the (1−level)/2 and (1+level)/2 type-7 quantiles of those medians. Null with
 * fewer than two values.
 *
 * Which order statistics a resample's median falls on depends only on the sample size, so the
 * resampled median ranks are drawn once per (size, resamples, seed) and applied to every sample of
 * that size: each interval is still an ordinary seeded bootstrap, the intervals of equal-sized cells
 * share their random numbers (which makes them comparable), and a report draws each size once.
 */
export function bootstrapMedian(values: readonly number[], options: BootstrapOptions): Interval | null {
  const n = values.length;
  if (n < 2) return null;
  const sorted = Float64Array.from(values).sort();
  const { low, high } = medianRanks(n, options.resamples, options.seed);
  if (scratch.length < options.resamples) scratch = new Float64Array(options.resamples);
  const medians = scratch.subarray(0, options.resamples);
  for (let b = 0; b < options.resamples; b++) medians[b] = (sorted[low[b]!]! + sorted[high[b]!]!) / 2;
  const level = options.level ?? 0.95;
  return { lo: quantileSelect(medians, (1 - level) / 2), hi: quantileSelect(medians, (1 + level) / 2) };
}

/** Reused between calls: a report computes thousands of intervals. */
let scratch = new Float64Array(0);

/** The type-7 q-quantile of unsorted values, by selection (reorders `values`). */
export function quantileSelect(values: Float64Array, q: number): number {
  const h = (values.length - 1) * q;
  const k = Math.floor(h);
  const below = select(values, k);
  if (k + 1 >= values.length || h === k) return below;
  // After selecting k, everything right of k is at least as large: the next order statistic is their minimum.
  let next = Infinity;
  for (let i = k + 1; i < values.length; i++) if (values[i]! < next) next = values[i]!;
  return below + (h - k) * (next - below);
}

/** Quickselect (Hoare partition, middle pivot): the k-th smallest (0-based), leaving it at index k. */
function select(values: Float64Array, k: number): number {
  let left = 0;
  let right = values.length - 1;
  while (left < right) {
    const pivot = values[(left + right) >> 1]!;
    let i = left;
    let j = right;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const t = values[i]!;
        values[i++] = values[j]!;
        values[j--] = t;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else break;
  }
  return values[k]!;
}

interface MedianRanks {
  /** Per resample, the 0-based ranks in the sorted sample of its two middle values (equal for odd n). */
  readonly low: Uint32Array;
  readonly high: Uint32Array;
}

const rankDraws = new Map<string, MedianRanks>();
const RANK_DRAWS_KEPT = 64;

function medianRanks(n: number, resamples: number, seed: number): MedianRanks {
  const key = `${n}:${resamples}:${seed}`;
  const cached = rankDraws.get(key);
  if (cached) return cached;
  const low = new Uint32Array(resamples);
  const high = new Uint32Array(resamples);
  const counts = new Uint32Array(n);
  const lowRank = (n - 1) >> 1;
  const highRank = n >> 1;
  // xorshift32, inlined: this loop makes resamples × n draws.
  let state = seedFor(seed, 'median ranks', n) | 0 || 0x9e3779b9;
  for (let b = 0; b < resamples; b++) {
    counts.fill(0);
    for (let i = 0; i < n; i++) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      counts[((state >>> 0) * n * TWO_TO_MINUS_32) | 0]!++;
    }
    // Walk the counts to the positions of the resample's two middle values.
    let seen = 0;
    let i = 0;
    while (seen + counts[i]! <= lowRank) seen += counts[i++]!;
    low[b] = i;
    while (seen + counts[i]! <= highRank) seen += counts[i++]!;
    high[b] = i;
  }
  if (rankDraws.size >= RANK_DRAWS_KEPT) rankDraws.clear();
  const draws = { low, high };
  rankDraws.set(key, draws);
  return draws;
}

/**
 * Holm's step-down adjustment of a family of p-values (controls the family-wise error rate);
 * nulls stay null and are not counted in the family.
 */
export function holm(pValues: readonly (number | null)[]): (number | null)[] {
  const indexed = pValues.flatMap((p, i) => (p === null ? [] : [{ p, i }])).sort((a, b) => a.p - b.p);
  const adjusted: (number | null)[] = pValues.map(() => null);
  let running = 0;
  indexed.forEach(({ p, i }, k) => {
    running = Math.max(running, Math.min(1, (indexed.length - k) * p));
    adjusted[i] = running;
  });
  return adjusted;
}
