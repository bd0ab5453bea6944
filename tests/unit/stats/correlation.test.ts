import { describe, expect, it } from 'vitest';
import {
  averageRanks,
  correlate,
  datasetLevel,
  kendallTauB,
  pearson,
  spearman,
  summaryLevel,
  type PairedScore,
} from '../../../src/lib/stats/correlation.ts';

describe('averageRanks', () => {
  it('gives tied values the mean of their ranks (scipy rankdata "average")', () => {
    // scipy.stats.rankdata([10, 20, 20, 30, 20, 5]) → [2, 4, 4, 6, 4, 1]
    expect(averageRanks([10, 20, 20, 30, 20, 5])).toEqual([2, 4, 4, 6, 4, 1]);
    expect(averageRanks([])).toEqual([]);
    expect(averageRanks([7])).toEqual([1]);
  });
});

describe('hand-computed correlations', () => {
  // x = [1,2,3], y = [1,3,2]: deviations (−1,0,1) and (−1,1,0): Σdxdy = 1, Σdx² = Σdy² = 2 → r = ½.
  // Pairs: (1,2) and (1,3) concordant, (2,3) discordant → τ = (2 − 1) / 3.
  it('pearson, spearman and kendall on three points', () => {
    expect(pearson([1, 2, 3], [1, 3, 2])).toBeCloseTo(0.5, 12);
    expect(spearman([1, 2, 3], [1, 3, 2])).toBeCloseTo(0.5, 12);
    expect(kendallTauB([1, 2, 3], [1, 3, 2])).toBeCloseTo(1 / 3, 12);
  });

  it('is ±1 for monotone data and spearman ignores the scale', () => {
    expect(spearman([1, 2, 3, 4], [1, 4, 9, 100])).toBeCloseTo(1, 12);
    expect(kendallTauB([1, 2, 3, 4], [8, 6, 4, 2])).toBeCloseTo(-1, 12);
    expect(pearson([1, 2, 3, 4], [1, 4, 9, 100])).toBeLessThan(1);
  });

  // τ-b with ties, by hand: x = [1,1,2], y = [1,2,2]. Pairs: (1,2) tied in x; (1,3) concordant;
  // (2,3) tied in y. n0 = 3, n1 = 1, n2 = 1 → τ-b = 1 / √(2·2) = ½.
  it('kendall tau-b corrects for ties', () => {
    expect(kendallTauB([1, 1, 2], [1, 2, 2])).toBeCloseTo(0.5, 12);
  });
});

describe('scipy parity (scipy 1.17 spearmanr / kendalltau / pearsonr)', () => {
  it('tied integer ratings', () => {
    const x = [1, 2, 2, 3, 4, 4, 4, 5];
    const y = [2, 1, 3, 3, 5, 4, 4, 6];
    expect(spearman(x, y)).toBeCloseTo(0.9256265453136692, 12);
    expect(kendallTauB(x, y)).toBeCloseTo(0.8406728074767076, 12);
    expect(pearson(x, y)).toBeCloseTo(0.886796350347864, 12);
  });

  it('real-valued metric against ratings with ties', () => {
    const a = [3.5, 1.0, 2.25, 4.0, 4.0, 0.5, 3.0];
    const b = [10, 2, 2, 8, 9, 1, 7];
    expect(correlate('spearman', a, b)).toBeCloseTo(0.8727272727272728, 12);
    expect(correlate('kendall', a, b)).toBeCloseTo(0.7499999999999999, 12);
    expect(correlate('pearson', a, b)).toBeCloseTo(0.9149371753153162, 12);
  });
});

describe('undefined cases return null, never NaN', () => {
  it('constant sides and too few pairs', () => {
    for (const method of ['pearson', 'spearman', 'kendall'] as const) {
      expect(correlate(method, [1, 2, 3], [4, 4, 4])).toBeNull();
      expect(correlate(method, [5], [1])).toBeNull();
      expect(correlate(method, [], [])).toBeNull();
    }
  });

  it('rejects unpaired or non-finite input', () => {
    expect(() => pearson([1, 2], [1])).toThrow(/paired/u);
    expect(() => spearman([1, Number.NaN], [1, 2])).toThrow(/finite/u);
  });
});

describe('levels', () => {
  const pairs: PairedScore[] = [
    // doc a: perfectly ranked → ρ = 1
    { group: 'a', metric: 1, human: 1 },
    { group: 'a', metric: 2, human: 2 },
    { group: 'a', metric: 3, human: 3 },
    // doc b: ρ = ½ (the three-point example above)
    { group: 'b', metric: 1, human: 1 },
    { group: 'b', metric: 2, human: 3 },
    { group: 'b', metric: 3, human: 2 },
    // doc c: humans constant → skipped
    { group: 'c', metric: 1, human: 4 },
    { group: 'c', metric: 5, human: 4 },
  ];

  it('summary level: per group, then the mean; constant groups skipped and named', () => {
    const r = summaryLevel('spearman', pairs);
    expect(r.value).toBeCloseTo(0.75, 12);
    expect(r.groupsUsed).toBe(2);
    expect(r.groupsSkipped).toBe(1);
    expect(r.skipped).toEqual(['c']);
    expect(r.n).toBe(6);
  });

  it('dataset level: one correlation over all pairs', () => {
    const r = datasetLevel('pearson', pairs);
    expect(r.n).toBe(8);
    expect(r.value).toBeCloseTo(
      pearson(
        pairs.map((p) => p.metric),
        pairs.map((p) => p.human),
      )!,
      12,
    );
  });

  it('no usable group gives null', () => {
    expect(summaryLevel('kendall', pairs.slice(6)).value).toBeNull();
  });
});
