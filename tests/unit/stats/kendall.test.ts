/**
 * Knight's O(n log n) Kendall τ-b against the pair-by-pair definition it replaced, on random data
 * full of ties, and against scipy.stats.kendalltau.
 */
import { describe, expect, it } from 'vitest';
import { kendallTauB, mergeSortCountingSwaps } from '../../../src/lib/stats/correlation.ts';
import { mulberry32 } from '../../../src/lib/stats/seeded-random.ts';

/** The O(n²) τ-b the app used before: every pair classified one by one. */
function pairwiseTauB(x: readonly number[], y: readonly number[]): number | null {
  const n = x.length;
  if (n < 2) return null;
  let concordant = 0;
  let discordant = 0;
  let tiedX = 0;
  let tiedY = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const dx = Math.sign(x[i] - x[j]);
      const dy = Math.sign(y[i] - y[j]);
      if (dx === 0) tiedX++;
      if (dy === 0) tiedY++;
      if (dx !== 0 && dy !== 0) {
        if (dx === dy) concordant++;
        else discordant++;
      }
    }
  }
  const n0 = (n * (n - 1)) / 2;
  const denominator = Math.sqrt((n0 - tiedX) * (n0 - tiedY));
  if (denominator === 0) return null;
  return Math.max(-1, Math.min(1, (concordant - discordant) / denominator));
}

describe("Knight's Kendall τ-b", () => {
  it('equals the pairwise definition exactly on random data with many ties', () => {
    const rand = mulberry32(20_240_501);
    for (let trial = 0; trial < 300; trial++) {
      const n = 2 + Math.floor(rand() * 120);
      // Few distinct values on each side (1 to 6 levels): ties everywhere, including rows tied on
      // both sides; some trials correlated, some anti-correlated, some constant on one side.
      const levelsX = 1 + Math.floor(rand() * 6);
      const levelsY = 1 + Math.floor(rand() * 6);
      const slope = rand() * 2 - 1;
      const x = Array.from({ length: n }, () => Math.floor(rand() * levelsX) / 4);
      const y = x.map((v) => Math.round(slope * v * levelsY + rand() * levelsY));
      expect(kendallTauB(x, y), `trial ${trial}, n ${n}`).toBe(pairwiseTauB(x, y));
    }
  });

  it('equals the pairwise definition on continuous scores against ratings of 1 to 5', () => {
    const rand = mulberry32(7);
    const x = Array.from({ length: 1000 }, () => rand());
    const y = x.map((v) => Math.min(5, 1 + Math.floor(v * 3 + rand() * 3)));
    expect(kendallTauB(x, y)).toBe(pairwiseTauB(x, y));
    expect(kendallTauB(y, x)).toBe(pairwiseTauB(y, x));
  });

  it('treats 0 and -0 as a tie, as the difference of the two does', () => {
    const x = [0, -0, 1, 2];
    const y = [1, 2, 2, 3];
    expect(kendallTauB(x, y)).toBe(pairwiseTauB(x, y));
  });

  it('matches scipy.stats.kendalltau (tau-b) on tied data', () => {
    // x = round(((i·37) mod 23) / 4, 2), y = (7·i²) mod 5, i = 0…59; scipy 1.17.1.
    const x = Array.from({ length: 60 }, (_, i) => Math.round((((i * 37) % 23) / 4) * 100) / 100);
    const y = Array.from({ length: 60 }, (_, i) => (i * i * 7) % 5);
    expect(kendallTauB(x, y)).toBeCloseTo(0.06537679851234984, 14);
    const x2 = [0.1, 0.1, 0.1, 0.2, 0.2, 0.3, 0.3, 0.3, 0.3, 0.4, -0, 0];
    const y2 = [1, 2, 1, 3, 3, 2, 2, 1, 5, 5, 4, 4];
    expect(kendallTauB(x2, y2)).toBeCloseTo(0.07143996263690931, 14);
  });

  it('is null when a side is constant or there are fewer than two pairs', () => {
    expect(kendallTauB([1, 1, 1], [1, 2, 3])).toBeNull();
    expect(kendallTauB([1, 2, 3], [4, 4, 4])).toBeNull();
    expect(kendallTauB([1], [2])).toBeNull();
    expect(kendallTauB([], [])).toBeNull();
  });
});

describe('mergeSortCountingSwaps', () => {
  it('sorts in place and counts strict inversions only', () => {
    const values = Float64Array.from([3, 1, 2, 2, 0]);
    // Inversions: (3,1) (3,2) (3,2) (3,0) (1,0) (2,0) (2,0); the two 2s are not one.
    expect(mergeSortCountingSwaps(values)).toBe(7);
    expect([...values]).toEqual([0, 1, 2, 2, 3]);
    expect(mergeSortCountingSwaps(Float64Array.from([5, 5, 5]))).toBe(0);
    expect(mergeSortCountingSwaps(new Float64Array(0))).toBe(0);
  });

  it('counts n(n−1)/2 for a reversed odd-length run', () => {
    const values = Float64Array.from({ length: 13 }, (_, i) => 13 - i);
    expect(mergeSortCountingSwaps(values)).toBe((13 * 12) / 2);
    expect([...values]).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
  });
});
