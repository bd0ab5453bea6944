/**
 * The sentence-order model behind local coherence: a logistic regression on the pair features
 * [u, v, u⊙v, |u−v|] of two sentence vectors, trained (scripts/train-order-model.ts) to tell the
 * sentence that follows u in a news article from other sentences of the same article. Its weights
 * are tied to the encoder it was trained on, so a model is picked by the embedder's backend string
 * and an embedder without one gets none. The shipped models are listed in order-models.ts.
 *
 * A pair model only sees neighbours, and a shuffle that keeps a few neighbours together fools it.
 * So a model may also carry a position model: a ridge regression from one sentence's vector to
 * where such a sentence sits in a news article's opening (0 = first sentence, 1 = the last of the
 * opening), trained on the same articles. How well the text's actual order agrees with the predicted
 * places (Pearson r over its sentences) is a global order signal: openings first, details and quotes
 * later. The score mixes both as (mean P + α·(r + 1)) / (1 + 2α), which stays in [0, 1] and is 0.5
 * when neither leans.
 */

import { pearson } from '../../stats/correlation.ts';

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

export interface PositionModelTraining {
  /** Sentences of each article's opening the places are measured in. */
  openingSentences: number;
  /** Ridge penalty per training sentence. */
  lambda: number;
  /** The held-out shuffle test of the mixed score with the chosen λ and α. */
  heldOutShuffleAccuracy: number;
}

export interface PositionModel {
  /** dims weights: predicted place = weights · v + bias (0 = an opening's first sentence). */
  weights: number[];
  bias: number;
  /** The weight of the position agreement in the score (chosen on held-out articles). */
  alpha: number;
  training: PositionModelTraining;
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
  /** Absent in models trained before positions were added: the score is then the mean P alone. */
  position?: PositionModel;
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

/** Where the position model places a sentence in an opening (0 = first, 1 = last; not clamped). */
export function predictedPosition(position: PositionModel, v: ArrayLike<number>): number {
  if (v.length !== position.weights.length) {
    throw new Error(`position model takes ${position.weights.length}-d vectors, got ${v.length}-d`);
  }
  let z = position.bias;
  for (let i = 0; i < v.length; i++) z += position.weights[i] * v[i];
  return z;
}

/** Fewest sentences for a position agreement: with two, r is only the sign of one difference. */
export const MIN_POSITION_SENTENCES = 3;

/**
 * Pearson r of predicted places with the sentences' actual order (their indices, which may skip
 * sentences without a vector); null with fewer than MIN_POSITION_SENTENCES or no spread in either.
 */
export function positionAgreement(
  predicted: readonly number[],
  indices: readonly number[],
): number | null {
  if (predicted.length < MIN_POSITION_SENTENCES || indices.length !== predicted.length) return null;
  return pearson(predicted, indices);
}

/** The mixed order score, in [0, 1]; the mean P alone when there is no agreement to add. */
export function orderScore(meanP: number, agreement: number | null, alpha: number): number {
  if (agreement === null || alpha === 0) return meanP;
  return (meanP + alpha * (agreement + 1)) / (1 + 2 * alpha);
}
