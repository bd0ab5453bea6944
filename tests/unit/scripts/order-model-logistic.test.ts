import { describe, expect, it } from 'vitest';
import { fitLogistic, margin, type Dataset } from '../../../scripts/order-model/logistic.ts';

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** One binary feature: 4 rows at x = 0 (1 positive), 4 at x = 1 (3 positive). */
function binaryData(weight: number[] = Array(8).fill(1)): Dataset {
  return {
    x: Float32Array.from([0, 0, 0, 0, 1, 1, 1, 1]),
    rows: 8,
    cols: 1,
    y: Uint8Array.from([1, 0, 0, 0, 1, 1, 1, 0]),
    weight: Float64Array.from(weight),
  };
}

describe('order-model logistic regression (L-BFGS)', () => {
  it('reaches the maximum-likelihood fit: the empirical rate per feature value', () => {
    // Unpenalised optimum: σ(b) = 1/4, σ(w + b) = 3/4, so b = −ln 3 and w = 2 ln 3.
    const fit = fitLogistic(binaryData(), { lambda: 1e-9, tolerance: 1e-9 });
    expect(fit.bias).toBeCloseTo(-Math.log(3), 4);
    expect(fit.weights[0]).toBeCloseTo(2 * Math.log(3), 4);
    // Raw-feature weights (standardisation folded in) give the same margins.
    expect(sigmoid(margin(fit, binaryData(), 0))).toBeCloseTo(0.25, 4);
    expect(sigmoid(margin(fit, binaryData(), 4))).toBeCloseTo(0.75, 4);
  });

  it('honours row weights: the x = 0 positive counted twice makes that rate 2/5', () => {
    const fit = fitLogistic(binaryData([2, 1, 1, 1, 1, 1, 1, 1]), {
      lambda: 1e-9,
      tolerance: 1e-9,
    });
    expect(sigmoid(fit.bias)).toBeCloseTo(0.4, 4);
    expect(sigmoid(fit.weights[0] + fit.bias)).toBeCloseTo(0.75, 4);
  });

  it('shrinks the weight as λ grows, and is deterministic', () => {
    const loose = fitLogistic(binaryData(), { lambda: 1e-3 });
    const tight = fitLogistic(binaryData(), { lambda: 1 });
    expect(Math.abs(tight.weights[0])).toBeLessThan(Math.abs(loose.weights[0]));
    expect(Array.from(fitLogistic(binaryData(), { lambda: 1 }).weights)).toEqual(
      Array.from(tight.weights),
    );
  });
});
