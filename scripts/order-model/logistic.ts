/**
 * Weighted, L2-regularised logistic regression fitted by L-BFGS (plain TypeScript, deterministic:
 * no random start, no data order effects). Features are standardised inside the fit, so one λ
 * means the same for every feature; the returned weights act on the raw features.
 */

export interface Dataset {
  /** Row-major, rows × cols. */
  x: Float32Array;
  rows: number;
  cols: number;
  y: Uint8Array;
  /** Per-row weights (class balance). */
  weight: Float64Array;
}

export interface Fit {
  weights: Float64Array;
  bias: number;
  iterations: number;
  loss: number;
}

interface Standardised {
  mean: Float64Array;
  scale: Float64Array;
}

function standardisation(data: Dataset): Standardised {
  const { x, rows, cols } = data;
  const mean = new Float64Array(cols);
  const sq = new Float64Array(cols);
  for (let r = 0; r < rows; r++) {
    const o = r * cols;
    for (let c = 0; c < cols; c++) {
      mean[c] += x[o + c];
      sq[c] += x[o + c] * x[o + c];
    }
  }
  const scale = new Float64Array(cols);
  for (let c = 0; c < cols; c++) {
    mean[c] /= rows;
    const sd = Math.sqrt(Math.max(sq[c] / rows - mean[c] * mean[c], 0));
    // A constant feature carries nothing; scale 1 keeps it harmless.
    scale[c] = sd > 1e-12 ? 1 / sd : 1;
  }
  return { mean, scale };
}

/** log(1 + e^z) without overflow. */
const softplus = (z: number): number =>
  z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z));

/**
 * Mean weighted log loss + λ/2 ‖w‖² (bias not penalised) on standardised features, and its
 * gradient; θ = [w (cols), b].
 */
function lossAndGradient(
  data: Dataset,
  s: Standardised,
  lambda: number,
  theta: Float64Array,
  grad: Float64Array,
): number {
  const { x, rows, cols, y, weight } = data;
  // Standardised margin z = Σ w_c (x_c − m_c) s_c + b = Σ (w_c s_c) x_c + (b − Σ w_c s_c m_c).
  const eff = new Float64Array(cols);
  let shift = theta[cols];
  for (let c = 0; c < cols; c++) {
    eff[c] = theta[c] * s.scale[c];
    shift -= eff[c] * s.mean[c];
  }
  grad.fill(0);
  const rawGrad = new Float64Array(cols);
  let total = 0;
  let wsum = 0;
  let residualSum = 0;
  for (let r = 0; r < rows; r++) {
    const o = r * cols;
    let z = shift;
    for (let c = 0; c < cols; c++) z += eff[c] * x[o + c];
    const w = weight[r];
    wsum += w;
    total += w * (softplus(z) - (y[r] ? z : 0));
    const p = 1 / (1 + Math.exp(-z));
    const residual = w * (p - y[r]);
    residualSum += residual;
    for (let c = 0; c < cols; c++) rawGrad[c] += residual * x[o + c];
  }
  let penalty = 0;
  for (let c = 0; c < cols; c++) {
    grad[c] = ((rawGrad[c] - residualSum * s.mean[c]) * s.scale[c]) / wsum + lambda * theta[c];
    penalty += theta[c] * theta[c];
  }
  grad[cols] = residualSum / wsum;
  return total / wsum + (lambda / 2) * penalty;
}

const dot = (a: Float64Array, b: Float64Array): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};

export interface FitOptions {
  lambda: number;
  /** Start (standardised θ) from an earlier fit, e.g. along a λ path. */
  start?: Float64Array;
  maxIterations?: number;
  /** Stop when ‖∇‖∞ falls below this. */
  tolerance?: number;
  memory?: number;
}

export interface StandardisedFit extends Fit {
  /** θ in standardised units, for warm starts. */
  theta: Float64Array;
}

export function fitLogistic(data: Dataset, options: FitOptions): StandardisedFit {
  const { lambda, maxIterations = 200, tolerance = 1e-5, memory = 10 } = options;
  const n = data.cols + 1;
  const s = standardisation(data);
  const theta = options.start ? Float64Array.from(options.start) : new Float64Array(n);
  const grad = new Float64Array(n);
  let loss = lossAndGradient(data, s, lambda, theta, grad);
  const sHist: Float64Array[] = [];
  const yHist: Float64Array[] = [];
  let iterations = 0;
  const trial = new Float64Array(n);
  const trialGrad = new Float64Array(n);
  for (; iterations < maxIterations; iterations++) {
    if (grad.reduce((m, g) => Math.max(m, Math.abs(g)), 0) < tolerance) break;
    // Two-loop recursion: direction = −H∇.
    const q = Float64Array.from(grad);
    const alpha: number[] = [];
    for (let k = sHist.length - 1; k >= 0; k--) {
      const a = dot(sHist[k], q) / dot(yHist[k], sHist[k]);
      alpha[k] = a;
      for (let i = 0; i < n; i++) q[i] -= a * yHist[k][i];
    }
    if (sHist.length) {
      const last = sHist.length - 1;
      const gamma = dot(sHist[last], yHist[last]) / dot(yHist[last], yHist[last]);
      for (let i = 0; i < n; i++) q[i] *= gamma;
    }
    for (let k = 0; k < sHist.length; k++) {
      const b = dot(yHist[k], q) / dot(yHist[k], sHist[k]);
      for (let i = 0; i < n; i++) q[i] += sHist[k][i] * (alpha[k] - b);
    }
    let slope = -dot(grad, q);
    if (slope >= 0) {
      // Not a descent direction (curvature pairs went stale): restart from steepest descent.
      sHist.length = 0;
      yHist.length = 0;
      q.set(grad);
      slope = -dot(grad, q);
    }
    // Backtracking (Armijo); the first step of plain gradient descent is scaled to be modest.
    let step = sHist.length ? 1 : 1 / Math.max(1, Math.sqrt(dot(grad, grad)));
    let trialLoss = Infinity;
    for (let tries = 0; tries < 40; tries++) {
      for (let i = 0; i < n; i++) trial[i] = theta[i] - step * q[i];
      trialLoss = lossAndGradient(data, s, lambda, trial, trialGrad);
      if (trialLoss <= loss + 1e-4 * step * slope) break;
      step /= 2;
    }
    if (!(trialLoss < loss)) break;
    const sk = new Float64Array(n);
    const yk = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      sk[i] = trial[i] - theta[i];
      yk[i] = trialGrad[i] - grad[i];
    }
    theta.set(trial);
    grad.set(trialGrad);
    const improvement = loss - trialLoss;
    loss = trialLoss;
    if (dot(sk, yk) > 1e-12) {
      sHist.push(sk);
      yHist.push(yk);
      if (sHist.length > memory) {
        sHist.shift();
        yHist.shift();
      }
    }
    if (improvement < 1e-10 * Math.max(1, Math.abs(loss))) break;
  }
  // Fold the standardisation into raw-feature weights.
  const weights = new Float64Array(data.cols);
  let bias = theta[data.cols];
  for (let c = 0; c < data.cols; c++) {
    weights[c] = theta[c] * s.scale[c];
    bias -= weights[c] * s.mean[c];
  }
  return { weights, bias, iterations, loss, theta };
}

/** The raw-feature margin of row r. */
export function margin(fit: Fit, data: Dataset, r: number): number {
  let z = fit.bias;
  const o = r * data.cols;
  for (let c = 0; c < data.cols; c++) z += fit.weights[c] * data.x[o + c];
  return z;
}
