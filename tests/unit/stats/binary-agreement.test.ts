import { describe, expect, it } from 'vitest';
import {
  balancedAccuracy,
  bestThreshold,
  rocAuc,
} from '../../../src/lib/stats/binary-agreement.ts';
import { fitPairwiseLogistic } from '../../../src/lib/stats/pairwise-logistic.ts';

describe('agreement with binary labels', () => {
  it('computes the ROC AUC by ranks, ties counted half', () => {
    expect(rocAuc([0.1, 0.4, 0.35, 0.8], [false, false, true, true])).toBeCloseTo(0.75, 12);
    expect(rocAuc([1, 1], [true, false])).toBe(0.5);
    expect(rocAuc([1, 2], [true, true])).toBeNull();
  });

  it('computes balanced accuracy at a threshold, and picks the best threshold', () => {
    const scores = [0.1, 0.2, 0.6, 0.7, 0.9];
    const labels = [false, false, true, false, true];
    expect(balancedAccuracy(scores, labels, 0.6)).toBeCloseTo((1 + 2 / 3) / 2, 12);
    expect(bestThreshold(scores, labels)).toBe(0.6);
  });
});

describe('pairwise logistic regression', () => {
  it('learns the direction that orders the better summary of each pair first', () => {
    // Feature 0 separates better from worse; feature 1 is noise around zero.
    const pairs = [
      { difference: [1, 0.2], weight: 1 },
      { difference: [0.5, -0.3], weight: 1 },
      { difference: [2, 0.1], weight: 1 },
      { difference: [-0.2, 0.1], weight: 1 },
    ];
    const w = fitPairwiseLogistic(pairs, 2, 0.1);
    expect(w[0]).toBeGreaterThan(0.5);
    expect(Math.abs(w[1])).toBeLessThan(w[0]);
    // A stronger penalty shrinks the weights.
    expect(Math.abs(fitPairwiseLogistic(pairs, 2, 10)[0])).toBeLessThan(w[0]);
  });
});
