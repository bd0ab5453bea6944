/**
 * The standard normal tail, accurate to about 1e-14 relative, for p-values that must equal
 * scipy's (`scipy.stats.norm.sf`): the A&S approximation in quality-model.ts is good to 1.5e-7
 * only, which is plenty for a score and too coarse to compare with a reference.
 */

const TWO_OVER_SQRT_PI = 2 / Math.sqrt(Math.PI);

/** erfc(x) = 1 − erf(x). */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  if (x < 0) return 2 - erfc(-x);
  if (x < 2) {
    // erf(x) = 2/√π · e^{−x²} · Σ (2x²)ⁿ x / (2n+1)!!: every term positive, so no cancellation;
    // erfc(2) ≈ 4.7e-3, so 1 − erf loses at most two digits here.
    const x2 = x * x;
    let term = x;
    let sum = x;
    for (let n = 1; n < 200 && term > sum * 1e-17; n++) {
      term *= (2 * x2) / (2 * n + 1);
      sum += term;
    }
    return 1 - TWO_OVER_SQRT_PI * Math.exp(-x2) * sum;
  }
  if (x > 27) return 0;
  // Laplace's continued fraction erfc(x) = e^{−x²}/√π · 1/(x + ½/(x + 1/(x + (3/2)/(x + …)))),
  // by the modified Lentz method; it converges quickly for x ≥ 2.
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let n = 1; n < 500; n++) {
    const a = n / 2;
    d = x + a * d;
    d = Math.abs(d) < tiny ? 1 / tiny : 1 / d;
    c = x + a / c;
    if (Math.abs(c) < tiny) c = tiny;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
}

/** P(Z > z) for a standard normal Z. */
export function normalSf(z: number): number {
  return 0.5 * erfc(z / Math.SQRT2);
}
