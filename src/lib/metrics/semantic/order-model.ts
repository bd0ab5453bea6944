/**
 * The sentence-order model behind local coherence: a logistic regression on the pair features
 * [u, v, u⊙v, |u−v|] of two sentence vectors, trained (scripts/train-order-model.ts) to tell the
 * sentence that follows u in a news article from other sentences of the same article. Its weights
 * are tied to the encoder it was trained on, so a model is picked by the embedder's backend string
 * and an embedder without one gets none. The shipped models are listed in order-models.ts.
 */

export interface OrderModelTraining {
  articles: number;
  /** Consecutive (positive) pairs and contrasted (negative) pairs. */
  positives: number;
  negatives: number;
  lambda: number;
  /** On the held-out articles with the chosen λ: openings scored above their shuffles (what λ is
   * chosen by), a positive pair and one of its negatives ranked in order, and classification at
   * 0.5 with both classes weighted equally. */
  heldOutShuffleAccuracy: number;
  heldOutRankAccuracy: number;
  heldOutBalancedAccuracy: number;
}

export interface OrderModel {
  /** Backend strings starting with this prefix get this model. */
  backendPrefix: string;
  /** The embedder backend the model was trained with. */
  trainedOn: string;
  dims: number;
  /** 4 × dims weights, in feature order u, v, u⊙v, |u−v|; feature standardisation folded in. */
  weights: number[];
  bias: number;
  training: OrderModelTraining;
}

export function orderModelFor(
  backend: string,
  models: readonly OrderModel[],
): OrderModel | undefined {
  return models.find((m) => backend.startsWith(m.backendPrefix));
}

/** The pair features [u, v, u⊙v, |u−v|], written into `out` (length 4 × dims). */
export function pairFeatures(
  u: ArrayLike<number>,
  v: ArrayLike<number>,
  out: Float32Array | Float64Array = new Float64Array(4 * u.length),
): typeof out {
  const d = u.length;
  for (let i = 0; i < d; i++) {
    out[i] = u[i];
    out[d + i] = v[i];
    out[2 * d + i] = u[i] * v[i];
    out[3 * d + i] = Math.abs(u[i] - v[i]);
  }
  return out;
}

export const sigmoid = (z: number): number =>
  z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));

/** P(v follows u) under the model (both classes weighted equally in training, so 0.5 = no lean). */
export function followProbability(
  model: OrderModel,
  u: ArrayLike<number>,
  v: ArrayLike<number>,
): number {
  if (u.length !== model.dims || v.length !== model.dims) {
    throw new Error(
      `order model for ${model.backendPrefix} takes ${model.dims}-d vectors, got ${u.length}-d`,
    );
  }
  const d = model.dims;
  const w = model.weights;
  let z = model.bias;
  for (let i = 0; i < d; i++) {
    z +=
      w[i] * u[i] +
      w[d + i] * v[i] +
      w[2 * d + i] * u[i] * v[i] +
      w[3 * d + i] * Math.abs(u[i] - v[i]);
  }
  return sigmoid(z);
}
