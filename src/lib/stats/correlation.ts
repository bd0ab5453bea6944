/**
 * Correlation between a metric and human ratings (SPEC §6): Pearson r, Spearman ρ (Pearson on
 * average ranks, ties sharing the mean of their ranks, as scipy.stats.spearmanr), and Kendall τ-b
 * (tie-corrected, as scipy.stats.kendalltau's default). Pure functions, no p-values.
 *
 * Two levels, as in the G-Eval (Liu et al. 2023) and UniEval (Zhong et al. 2022) papers:
 * - dataset level: one correlation over every (metric, human) pair;
 * - summary level: one correlation per source document over its summaries, then the mean of those
 *   per-document values. A document where either side is constant has no defined correlation and is
 *   skipped (and counted as skipped), which is what scipy's NaN plus a nan-aware mean amounts to.
 *
 * Every function returns null where the statistic is undefined (fewer than two pairs, or a
 * constant side), never NaN.
 */

export type CorrelationMethod = 'pearson' | 'spearman' | 'kendall';

export const CORRELATION_METHODS: readonly CorrelationMethod[] = ['pearson', 'spearman', 'kendall'];

function checkPaired(x: readonly number[], y: readonly number[]): void {
  if (x.length !== y.length) {
    throw new Error(`Correlation needs paired values: got ${x.length} and ${y.length}`);
  }
  for (const v of [...x, ...y]) {
    if (!Number.isFinite(v)) throw new Error(`Correlation needs finite numbers, got ${v}`);
  }
}

/** 1-based ranks; tied values share the mean of the ranks they span (scipy's 'average'). */
export function averageRanks(values: readonly number[]): number[] {
  const order = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  const ranks = new Array<number>(values.length);
  let i = 0;
  while (i < order.length) {
    let j = i;
    while (j + 1 < order.length && order[j + 1][0] === order[i][0]) j++;
    // Positions i..j (0-based) hold ranks i+1..j+1; their mean is (i + j) / 2 + 1.
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[order[k][1]] = rank;
    i = j + 1;
  }
  return ranks;
}

/** Pearson's r; null for n < 2 or a constant side. */
export function pearson(x: readonly number[], y: readonly number[]): number | null {
  checkPaired(x, y);
  const n = x.length;
  if (n < 2) return null;
  const mx = x.reduce((s, v) => s + v, 0) / n;
  const my = y.reduce((s, v) => s + v, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i] - mx;
    const dy = y[i] - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx === 0 || syy === 0) return null;
  const r = sxy / Math.sqrt(sxx * syy);
  // Rounding can push |r| a hair past 1.
  return Math.max(-1, Math.min(1, r));
}

/** Spearman's ρ: Pearson's r on average ranks (ties handled as scipy.stats.spearmanr). */
export function spearman(x: readonly number[], y: readonly number[]): number | null {
  checkPaired(x, y);
  return pearson(averageRanks(x), averageRanks(y));
}

/**
 * Kendall's τ-b: (concordant − discordant) / √((n0 − n1)(n0 − n2)), with n0 = n(n−1)/2 and n1, n2
 * the pairs tied in x and in y. Pairs tied in both count in n1 and n2 but not in the numerator.
 *
 * Knight's O(n log n) algorithm (Knight 1966, "A computer method for calculating Kendall's tau
 * with ungrouped data"; what scipy.stats.kendalltau does): sort by x, then y; count the ties in x
 * (n1) and in both (n3); a merge sort of the y values counts the discordant pairs as it swaps them
 * (pairs tied in x are already in y order and pairs tied in y are never swapped, so each swap is a
 * pair strictly reversed); the sorted y gives n2. Then concordant − discordant =
 * n0 − n1 − n2 + n3 − 2·discordant. Every count is an exact integer, so the value is the one the
 * pair-by-pair definition gives, bit for bit (tests/unit/stats/kendall.test.ts checks that); a
 * data set of 100,000 rows takes milliseconds instead of minutes.
 */
export function kendallTauB(x: readonly number[], y: readonly number[]): number | null {
  checkPaired(x, y);
  const n = x.length;
  if (n < 2) return null;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => x[a] - x[b] || y[a] - y[b]);
  // Equal values compare equal (0 === -0), as the pairwise sign of a difference does.
  let tiedX = 0;
  let tiedBoth = 0;
  let runX = 1;
  let runBoth = 1;
  for (let k = 1; k < n; k++) {
    const sameX = x[order[k]] === x[order[k - 1]];
    runX = sameX ? runX + 1 : 1;
    runBoth = sameX && y[order[k]] === y[order[k - 1]] ? runBoth + 1 : 1;
    // A run of length r adds r − 1 new pairs with its latest member.
    tiedX += runX - 1;
    tiedBoth += runBoth - 1;
  }
  const ys = Float64Array.from(order, (i) => y[i]);
  const discordant = mergeSortCountingSwaps(ys);
  let tiedY = 0;
  let runY = 1;
  for (let k = 1; k < n; k++) {
    runY = ys[k] === ys[k - 1] ? runY + 1 : 1;
    tiedY += runY - 1;
  }
  const n0 = (n * (n - 1)) / 2;
  const denominator = Math.sqrt((n0 - tiedX) * (n0 - tiedY));
  if (denominator === 0) return null;
  const concordantMinusDiscordant = n0 - tiedX - tiedY + tiedBoth - 2 * discordant;
  return Math.max(-1, Math.min(1, concordantMinusDiscordant / denominator));
}

/**
 * Sorts `values` ascending in place (bottom-up merge sort, stable) and returns the number of
 * pairs i < j with values[i] > values[j] it had: the inversions, ties not counted.
 */
export function mergeSortCountingSwaps(values: Float64Array): number {
  const n = values.length;
  let from: Float64Array = values;
  let to: Float64Array = new Float64Array(n);
  let swaps = 0;
  for (let width = 1; width < n; width *= 2) {
    for (let left = 0; left < n; left += 2 * width) {
      const mid = Math.min(left + width, n);
      const right = Math.min(left + 2 * width, n);
      let i = left;
      let j = mid;
      let k = left;
      while (i < mid && j < right) {
        if (from[j] < from[i]) {
          // from[j] jumps ahead of every value left in the left half: each is a reversed pair.
          swaps += mid - i;
          to[k++] = from[j++];
        } else {
          to[k++] = from[i++];
        }
      }
      while (i < mid) to[k++] = from[i++];
      while (j < right) to[k++] = from[j++];
    }
    [from, to] = [to, from];
  }
  if (from !== values) values.set(from);
  return swaps;
}

export function correlate(
  method: CorrelationMethod,
  x: readonly number[],
  y: readonly number[],
): number | null {
  switch (method) {
    case 'pearson':
      return pearson(x, y);
    case 'spearman':
      return spearman(x, y);
    case 'kendall':
      return kendallTauB(x, y);
    default: {
      const never: never = method;
      throw new Error(`Unknown correlation method: ${String(never)}`);
    }
  }
}

/** One (metric, human) pair, with the source document it belongs to for summary-level figures. */
export interface PairedScore {
  group: string;
  metric: number;
  human: number;
}

export interface CorrelationResult {
  method: CorrelationMethod;
  /** null when no correlation is defined (too few pairs, constant sides, no usable group). */
  value: number | null;
  /** Pairs that went into the figure. */
  n: number;
}

export interface SummaryLevelResult extends CorrelationResult {
  /** Groups whose correlation was defined and averaged. */
  groupsUsed: number;
  /** Groups left out: fewer than two pairs, or a constant side (no defined correlation). */
  groupsSkipped: number;
  /** The ids of the skipped groups, so a report can name them. */
  skipped: string[];
}

/** One correlation over every pair (the "dataset level" or pooled figure). */
export function datasetLevel(
  method: CorrelationMethod,
  pairs: readonly PairedScore[],
): CorrelationResult {
  return {
    method,
    value: correlate(
      method,
      pairs.map((p) => p.metric),
      pairs.map((p) => p.human),
    ),
    n: pairs.length,
  };
}

/**
 * Summary level: the correlation within each group (source document) over its summaries, then the
 * plain mean over the groups where it is defined. `n` counts the pairs of the groups used.
 */
export function summaryLevel(
  method: CorrelationMethod,
  pairs: readonly PairedScore[],
): SummaryLevelResult {
  const groups = new Map<string, PairedScore[]>();
  for (const p of pairs) {
    const list = groups.get(p.group);
    if (list) list.push(p);
    else groups.set(p.group, [p]);
  }
  let sum = 0;
  let used = 0;
  let n = 0;
  const skipped: string[] = [];
  for (const [group, list] of groups) {
    const value = correlate(
      method,
      list.map((p) => p.metric),
      list.map((p) => p.human),
    );
    if (value === null) {
      skipped.push(group);
      continue;
    }
    sum += value;
    used++;
    n += list.length;
  }
  return {
    method,
    value: used > 0 ? sum / used : null,
    n,
    groupsUsed: used,
    groupsSkipped: skipped.length,
    skipped,
  };
}

/** The mean of several ratings of one item (e.g. three experts), the usual human column. */
export function mean(values: readonly number[]): number {
  if (values.length === 0) throw new Error('mean of no values');
  return values.reduce((s, v) => s + v, 0) / values.length;
}
