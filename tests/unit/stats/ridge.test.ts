import { describe, expect, it } from 'vitest';
import {
  centreWithinGroups,
  ridgeWeights,
  solveLinear,
  standardize,
  standardizer,
} from '../../../src/lib/stats/ridge.ts';

describe('ridge regression', () => {
  it('standardises with population statistics; a constant column keeps sd 1', () => {
    const s = standardizer([
      [1, 5],
      [3, 5],
    ]);
    expect(s).toEqual({ means: [2, 5], sds: [1, 1] });
    expect(standardize([3, 7], s)).toEqual([1, 2]);
  });

  it('removes each group’s mean', () => {
    expect(centreWithinGroups([[1], [3], [10], [10]], ['a', 'a', 'b', 'b'])).toEqual([
      [-1],
      [1],
      [0],
      [0],
    ]);
  });

  it('solves a linear system', () => {
    // 2x + y = 5, x − y = 1 → x = 2, y = 1.
    const [x, y] = solveLinear(
      [
        [2, 1],
        [1, -1],
      ],
      [5, 1],
    );
    expect(x).toBeCloseTo(2, 12);
    expect(y).toBeCloseTo(1, 12);
  });

  it('shrinks by λ·n: one feature, w = Σxy / (Σx² + λn)', () => {
    // x = (1, −1), y = (2, −2): Σxy = 4, Σx² = 2, n = 2.
    expect(ridgeWeights([[1], [-1]], [2, -2], 0)[0]).toBeCloseTo(2, 12);
    expect(ridgeWeights([[1], [-1]], [2, -2], 1)[0]).toBeCloseTo(1, 12);
  });

  it('recovers exact linear weights without a penalty', () => {
    const x = [
      [1, 0],
      [0, 1],
      [1, 1],
      [-1, 2],
    ];
    const y = x.map(([a, b]) => 3 * a - 2 * b);
    const [w1, w2] = ridgeWeights(x, y, 0);
    expect(w1).toBeCloseTo(3, 10);
    expect(w2).toBeCloseTo(-2, 10);
  });
});
