/**
 * The Wilcoxon signed-rank test on paired differences, two-sided, as
 * `scipy.stats.wilcoxon(d, zero_method='wilcox', correction=False, method=…)` computes it (scipy
 * 1.10): zero differences are dropped; the statistic is min(R+, R−) over the average ranks of
 * |d|; the p-value is exact (the null distribution of R+ over 2ⁿ sign patterns) or from the
 * normal approximation with the tie correction of the variance.
 *
 * 'auto' uses the exact distribution when 1 ≤ n ≤ 50 and there are neither zeros nor tied |d|,
 * else the approximation. scipy's own 'auto' would run the exact test on tied ranks too, by
 * truncating R+ to an integer, which is not the test's distribution; with zeros scipy switches to
 * the approximation as here. tests/fixtures/stats/ holds scipy's answers for each path.
 */
import { averageRanks } from './correlation.ts';
import { normalSf } from './normal.ts';

export type WilcoxonMethod = 'auto' | 'exact' | 'approx';

export interface WilcoxonResult {
  /** min(R+, R−). */
  statistic: number;
  pValue: number;
  method: 'exact' | 'approx';
  /** Non-zero differences ranked. */
  n: number;
  /** Zero differences dropped. */
  zeros: number;
  /** The normal approximation's z (method 'approx'). */
  z?: number;
}

/** The largest n whose exact distribution 'auto' uses (scipy's threshold). */
export const EXACT_MAX_N = 50;

/** Counts of sign patterns of ranks 1..n per value of R+ (exact below 2⁵³ for n ≤ 50). */
function signedRankCounts(n: number): Float64Array {
  const max = (n * (n + 1)) / 2;
  const counts = new Float64Array(max + 1);
  counts[0] = 1;
  for (let k = 1; k <= n; k++) {
    const top = (k * (k + 1)) / 2;
    for (let s = top; s >= k; s--) counts[s] += counts[s - k];
  }
  return counts;
}

function exactPValue(rPlus: number, n: number): number {
  const counts = signedRankCounts(n);
  const max = counts.length - 1;
  if (rPlus * 2 === max) return 1;
  // Integer counts summed exactly, then one division: no rounding builds up in the tails.
  let less = 0;
  for (let s = 0; s <= rPlus; s++) less += counts[s];
  let greater = 0;
  for (let s = rPlus; s <= max; s++) greater += counts[s];
  return Math.min(1, (2 * Math.min(less, greater)) / 2 ** n);
}

/**
 * The test on differences `d` (candidate − baseline); null when no difference is non-zero (scipy
 * raises: the test is undefined).
 */
export function wilcoxon(
  d: ArrayLike<number>,
  method: WilcoxonMethod = 'auto',
): WilcoxonResult | null {
  const nonZero: number[] = [];
  for (let i = 0; i < d.length; i++) {
    const v = d[i];
    if (!Number.isFinite(v))
      throw new Error(`The Wilcoxon test needs finite differences, got ${v}`);
    if (v !== 0) nonZero.push(v);
  }
  const n = nonZero.length;
  const zeros = d.length - n;
  if (n === 0) return null;
  const ranks = averageRanks(nonZero.map(Math.abs));
  let rPlus = 0;
  let rMinus = 0;
  for (let i = 0; i < n; i++) {
    if (nonZero[i] > 0) rPlus += ranks[i];
    else rMinus += ranks[i];
  }
  const statistic = Math.min(rPlus, rMinus);
  const tied = ranks.some((r) => !Number.isInteger(r));
  const exact =
    method !== 'approx' && zeros === 0 && !tied && (method === 'exact' || n <= EXACT_MAX_N);
  if (exact) {
    return { statistic, pValue: exactPValue(rPlus, n), method: 'exact', n, zeros };
  }
  const mean = n * (n + 1) * 0.25;
  let variance = n * (n + 1) * (2 * n + 1);
  // Tie correction: each group of t equal |d| lowers the variance by (t³ − t) / 48 (÷24 below).
  const groups = new Map<number, number>();
  for (const r of ranks) groups.set(r, (groups.get(r) ?? 0) + 1);
  let correction = 0;
  for (const t of groups.values()) if (t > 1) correction += t * (t * t - 1);
  variance -= 0.5 * correction;
  const se = Math.sqrt(variance / 24);
  const z = (statistic - mean) / se;
  return { statistic, pValue: 2 * normalSf(Math.abs(z)), method: 'approx', n, zeros, z };
}
