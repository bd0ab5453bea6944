/**
 * Percentile bootstrap intervals of a mean, seeded so that a figure can be reproduced: B
 * resamples of n indices drawn with replacement from mulberry32 (seeded-random.ts), each
 * resample's mean, and the interval's ends as `numpy.percentile(means, q)` (linear method). For a
 * comparison the values are per-row differences (candidate − baseline), so both runs' scores of a
 * row always go into a resample together: a paired bootstrap.
 *
 * tests/fixtures/stats/ holds a reference computed once by scripts/stats-reference.py (its own
 * mulberry32, same draws, numpy.percentile), which the unit test compares with.
 */
import { mulberry32 } from './seeded-random.ts';

export interface BootstrapOptions {
  /** Resamples (B). */
  resamples?: number;
  seed?: number;
  /** Coverage, 0.95 for a 95% interval. */
  level?: number;
}

export interface BootstrapInterval {
  mean: number;
  low: number;
  high: number;
  n: number;
  resamples: number;
  seed: number;
  level: number;
}

export const DEFAULT_RESAMPLES = 2000;
export const DEFAULT_SEED = 2024;

/** numpy's linear interpolation between neighbours (its `_lerp`, symmetric about t = ½). */
function lerp(a: number, b: number, t: number): number {
  const diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

/** `numpy.percentile(sorted, q * 100)` of an ascending array (method 'linear'). */
export function percentileSorted(sorted: ArrayLike<number>, q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return lerp(sorted[lo], sorted[hi], h - lo);
}

function meanOf(values: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i];
  return sum / values.length;
}

/** The bootstrap interval of the mean of `values`; null when there are none. */
export function bootstrapMean(
  values: ArrayLike<number>,
  options: BootstrapOptions = {},
): BootstrapInterval | null {
  const n = values.length;
  if (n === 0) return null;
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const seed = options.seed ?? DEFAULT_SEED;
  const level = options.level ?? 0.95;
  const rand = mulberry32(seed);
  const means = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let sum = 0;
    for (let j = 0; j < n; j++) sum += values[Math.floor(rand() * n)];
    means[b] = sum / n;
  }
  means.sort();
  // In percent first, as numpy.percentile(means, [2.5, 97.5]) divides them: (1 − 0.95) / 2 is
  // 0.025000000000000022 in floating point, and the ends would differ in their last digits.
  const tailPercent = (100 - level * 100) / 2;
  return {
    mean: meanOf(values),
    low: percentileSorted(means, tailPercent / 100),
    high: percentileSorted(means, (100 - tailPercent) / 100),
    n,
    resamples,
    seed,
    level,
  };
}

/** Per-row differences b − a of paired scores. */
export function pairedDifferences(a: ArrayLike<number>, b: ArrayLike<number>): Float64Array {
  if (a.length !== b.length)
    throw new Error(`Paired scores differ in length: ${a.length}, ${b.length}`);
  const d = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) d[i] = b[i] - a[i];
  return d;
}

/** The paired bootstrap interval of mean(b − a). */
export function pairedBootstrap(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  options: BootstrapOptions = {},
): BootstrapInterval | null {
  return bootstrapMean(pairedDifferences(a, b), options);
}
