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
 * Differences are rounded to `precision` first. From 2 (stdlib refuses fewer) up to STDLIB_EXACT_MAX
 * untied differences, the p-value is @stdlib/stats-wilcoxon's exact one. With tied |differences|
 * stdlib switches to a normal approximation, and above that size its exact distribution (a memoised
 * recursion) costs about 0.2 s per test at n = 200; there, and for a single difference, the exact
 * null distribution of the (average) ranks is counted instead, over all 2^n sign patterns, as a
 * convolution on doubled ranks (integers). Tests check that both give the same p wherever both apply.
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
  if (!ties && n >= 2 && n <= STDLIB_EXACT_MAX) {
    const result = wilcoxon(nonZero, { exact: true, alternative: 'two-sided' });
    return { n, zeros, wPlus: result.statistic, p: Math.min(1, result.pValue), ties, minimumP };
  }
  return { n, zeros, wPlus, p: exactP(ranks, wPlus), ties, minimumP };
}

/** The largest untied sample handed to stdlib's exact test (its own default limit). */
export const STDLIB_EXACT_MAX = 50;

const RESCALE_EVERY = 512;

/** Exact two-sided P(|W+ − E| ≥ |observed − E|) under random signs; ranks may be halves. */
function exactP(ranks: readonly number[], wPlus: number): number {
  const doubled = Int32Array.from(ranks, (r) => Math.round(r * 2));
  const total = doubled.reduce((a, b) => a + b, 0);
  // In doubled units the mean is total/2; compare 2·|S − mean| as integers to avoid rounding.
  const observed = Math.abs(2 * Math.round(wPlus * 2) - total);
  // p adds the counts of the sums at least as far from the mean as the observed one: by symmetry,
  // the counts of the lower sums up to `tail`. A count is built from counts of smaller sums only, so
  // nothing above `tail` is needed (a small p, the usual case for a large n, needs few counts).
  const tail = (total - observed) >> 1;
  const dist = countSignPatterns(doubled, tail);
  // Ascending sums: the lower tail, then the upper one (mirror counts; the middle sum once when both reach it).
  let p = 0;
  for (let s = 0; s <= tail; s++) p += dist[s]!;
  for (let s = Math.max(tail + 1, total - tail); s <= total; s++) p += dist[total - s]!;
  p *= 2 ** -(doubled.length % RESCALE_EVERY);
  return Math.min(1, p);
}

/**
 * How many sign patterns give each doubled positive-rank sum from 0 to `upTo` (at most half the
 * total), built one difference at a time (in place, from the top down). The counts are symmetric
 * about the middle sum (flipping every sign mirrors them, and the additions that build a count and
 * its mirror are the same), so only the lower half is built. Counts past 2^1000 would overflow, so
 * every RESCALE_EVERY differences they are scaled down by a power of two, as p must be at the end:
 * such scaling is exact in floating point, so p is what probabilities halved at every step give.
 */
function countSignPatterns(doubled: Int32Array, upTo: number): Float64Array {
  const dist = new Float64Array(upTo + 1);
  dist[0] = 1;
  let reach = 0;
  for (let k = 0; k < doubled.length; k++) {
    const r = doubled[k]!;
    const half = Math.min(reach >> 1, upTo);
    const next = Math.min((reach + r) >> 1, upTo);
    // Sums newly in the lower half read their old count from its mirror image.
    for (let s = next; s > half; s--) dist[s] = (s <= reach ? dist[reach - s]! : 0) + (s >= r ? dist[s - r]! : 0);
    for (let s = half; s >= r; s--) dist[s]! += dist[s - r]!;
    reach += r;
    if ((k + 1) % RESCALE_EVERY === 0) for (let s = 0; s <= next; s++) dist[s]! *= 2 ** -RESCALE_EVERY;
  }
  return dist;
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
 * The resamples fall on few distinct rank pairs, and of those only the few in each tail can hold an
 * end of the interval (see intervalPairs); each end is read off those pairs' medians weighted by
 * how many resamples fell on each: the same quantiles as over all the resampled medians, at a
 * fraction of the cost.
 */
export function bootstrapMedian(values: readonly number[], options: BootstrapOptions): Interval | null {
  return bootstrapMedianOfSorted(Float64Array.from(values).sort(), options);
}

/** bootstrapMedian of values already ascending (a time sample's), without sorting them again. */
export function bootstrapMedianOfSorted(sorted: ArrayLike<number>, options: BootstrapOptions): Interval | null {
  const n = sorted.length;
  if (n < 2) return null;
  const level = options.level ?? 0.95;
  const { lower, upper } = intervalPairs(n, options.resamples, options.seed, level);
  return {
    lo: tailQuantile(sorted, lower, options.resamples, (1 - level) / 2),
    hi: tailQuantile(sorted, upper, options.resamples, (1 + level) / 2),
  };
}

/** The q-quantile of the `total` resampled medians of a sorted sample, from the tail that holds it. */
function tailQuantile(sample: ArrayLike<number>, tail: TailPairs, total: number, q: number): number {
  const sorted = new Float64Array(tail.low.length);
  const counts = new Uint32Array(tail.low.length);
  for (let j = 0; j < sorted.length; j++) {
    insertAscending(sorted, counts, j, (sample[tail.low[j]!]! + sample[tail.high[j]!]!) / 2, tail.weight[j]!);
  }
  return partQuantile(sorted, counts, q, total, tail.below);
}

/**
 * The type-7 q-quantile of a multiset of `total` values from a part of it, ascending with counts,
 * that holds the two positions the quantile reads; `below` values of the multiset come before the
 * part at those positions.
 */
function partQuantile(sorted: Float64Array, counts: Uint32Array, q: number, total: number, below: number): number {
  const h = (total - 1) * q;
  const k = Math.floor(h);
  // The values at 0-based positions k and k + 1 of the expanded sorted multiset.
  let seen = below;
  let j = 0;
  while (seen + counts[j]! <= k) seen += counts[j++]!;
  const at = sorted[j]!;
  if (k + 1 >= total || h === k) return at;
  const next = seen + counts[j]! > k + 1 ? at : sorted[j + 1]!;
  return at + (h - k) * (next - at);
}

/**
 * Insert a value and its count into the first `filled` entries, kept ascending. An insertion sort is
 * close to linear when the values come nearly in order, as the medians of rank pairs in rank order
 * do, and has none of the per-comparison calls of a comparator sort (this runs for every interval).
 */
function insertAscending(
  sorted: Float64Array,
  counts: Uint32Array,
  filled: number,
  value: number,
  count: number,
): void {
  let j = filled - 1;
  for (; j >= 0 && sorted[j]! > value; j--) {
    sorted[j + 1] = sorted[j]!;
    counts[j + 1] = counts[j]!;
  }
  sorted[j + 1] = value;
  counts[j + 1] = count;
}

export interface RankPairs {
  /** Distinct pairs, in rank order, of 0-based ranks in the sorted sample of a resample's two middle values (equal for odd n). */
  readonly low: Uint32Array;
  readonly high: Uint32Array;
  /** How many resamples fell on each pair. */
  readonly weight: Uint32Array;
}

interface TailPairs extends RankPairs {
  /** Resamples on pairs left out that come before this tail's pairs at the positions its quantile reads. */
  readonly below: number;
}

/** The rank pairs of each end of a bootstrap interval of the median. */
interface IntervalPairs {
  readonly lower: TailPairs;
  readonly upper: TailPairs;
}

const intervalDraws = new Map<string, IntervalPairs>();
const INTERVAL_DRAWS_KEPT = 64;

/**
 * The rank pairs that can hold the ends of a `level` interval over `resamples` resampled medians of
 * a sample of n, whatever the sample's values: a pair whose ranks are both at most another's has a
 * median at most that one's, so a pair with more resamples than an end's position on pairs below it
 * in both ranks (or above it, for the upper end) can never reach that position.
 */
function intervalPairs(n: number, resamples: number, seed: number, level: number): IntervalPairs {
  const key = `${n}:${resamples}:${seed}:${level}`;
  const cached = intervalDraws.get(key);
  if (cached) return cached;
  const draws = medianRanks(n, resamples, seed);
  // The lower end reads positions k and k + 1 from the bottom; the upper end, from the top.
  const lowerReach = Math.floor((resamples - 1) * ((1 - level) / 2)) + 2;
  const upperReach = resamples - Math.floor((resamples - 1) * ((1 + level) / 2));
  const pairs = { lower: tail(draws, lowerReach, 'lower'), upper: tail(draws, upperReach, 'upper') };
  if (intervalDraws.size >= INTERVAL_DRAWS_KEPT) intervalDraws.clear();
  intervalDraws.set(key, pairs);
  return pairs;
}

/** The pairs that can be among the `reach` lowest (or highest) resampled medians. */
function tail(draws: RankPairs, reach: number, side: 'lower' | 'upper'): TailPairs {
  const { low, high, weight } = draws;
  const dominates = (q: number, p: number) =>
    side === 'lower' ? low[q]! <= low[p]! && high[q]! <= high[p]! : low[q]! >= low[p]! && high[q]! >= high[p]!;
  const kept: number[] = [];
  let keptWeight = 0;
  for (let p = 0; p < low.length; p++) {
    let beyond = 0;
    for (let q = 0; q < low.length && beyond < reach; q++) if (q !== p && dominates(q, p)) beyond += weight[q]!;
    if (beyond < reach) {
      kept.push(p);
      keptWeight += weight[p]!;
    }
  }
  const pick = (of: Uint32Array) => Uint32Array.from(kept, (p) => of[p]!);
  const total = weight.reduce((sum, w) => sum + w, 0);
  return { low: pick(low), high: pick(high), weight: pick(weight), below: side === 'lower' ? 0 : total - keptWeight };
}

/**
 * Where the medians of `resamples` seeded resamples of a sample of n fall, as rank pairs with their
 * counts: resamples × n draws, made once per size by bootstrapMedian.
 */
export function medianRanks(n: number, resamples: number, seed: number): RankPairs {
  const pairs = new Map<number, number>();
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
    const low = i;
    while (seen + counts[i]! <= highRank) seen += counts[i++]!;
    const pair = low * n + i;
    pairs.set(pair, (pairs.get(pair) ?? 0) + 1);
  }
  // In rank order, so that the pairs' medians come nearly sorted.
  const codes = [...pairs.keys()].sort((a, b) => a - b);
  return {
    low: Uint32Array.from(codes, (code) => Math.floor(code / n)),
    high: Uint32Array.from(codes, (code) => code % n),
    weight: Uint32Array.from(codes, (code) => pairs.get(code)!),
  };
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
