/**
 * Pairwise logistic regression (a linear RankNet): for two summaries of one source whose human
 * ratings differ, the probability that the better one scores higher is σ(w·(x_better − x_worse)).
 * Fitting on pairs within a source, never across sources, is what lets one model learn from data
 * sets rated on different scales (1–5 means, 0–1 shares, binary labels): only the order of two
 * summaries of the same source is ever compared, so a data set's scale or its sources' baseline
 * cannot leak into the weights.
 *
 * No intercept (a difference has none); L2 penalty λ·|w|²/2 per unit of pair weight; Newton's
 * method, which converges in a handful of steps for the few standardised features used here.
 */
import { solveLinear } from './ridge.ts';

export interface RankedPair {
  /** Feature differences, better minus worse. */
  difference: readonly number[];
  /** How much this pair counts (e.g. so that every data set weighs the same in total). */
  weight: number;
}

const sigmoid = (z: number): number =>
  z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));

export function fitPairwiseLogistic(
  pairs: readonly RankedPair[],
  width: number,
  lambda: number,
  iterations = 25,
): number[] {
  let w = new Array<number>(width).fill(0);
  const total = pairs.reduce((sum, p) => sum + p.weight, 0) || 1;
  for (let step = 0; step < iterations; step++) {
    const gradient = w.map((wj) => lambda * wj);
    const hessian = Array.from({ length: width }, (_, j) =>
      Array.from({ length: width }, (_, k) => (j === k ? lambda : 0)),
    );
    for (const { difference: d, weight } of pairs) {
      let z = 0;
      for (let j = 0; j < width; j++) z += w[j] * d[j];
      const p = sigmoid(z);
      const share = weight / total;
      const g = (p - 1) * share;
      const h = p * (1 - p) * share;
      for (let j = 0; j < width; j++) {
        gradient[j] += g * d[j];
        for (let k = 0; k < width; k++) hessian[j][k] += h * d[j] * d[k];
      }
    }
    const delta = solveLinear(hessian, gradient);
    w = w.map((wj, j) => wj - delta[j]);
    if (Math.max(...delta.map(Math.abs)) < 1e-9) break;
  }
  return w;
}
