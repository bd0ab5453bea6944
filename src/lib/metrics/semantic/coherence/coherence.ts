/**
 * Local coherence: does each sentence read as the one that follows the sentence before it?
 *
 * Main score: a learned sentence-order model (order-model.ts; trained on news articles by
 * scripts/train-order-model.ts, one model per encoder) in two parts: the mean, over adjacent
 * summary sentences (n, n+1), of its P(n+1 follows n), mixed with how well the sentences' order
 * agrees with where its position model places each of them (openings first; from 3 sentences on).
 * Unlike a cosine of neighbours it sees order: the same sentences shuffled score lower. Embedders without a trained model (transformer
 * models, provider embeddings) fall back to the mean cosine of adjacent sentences, and the result
 * says so (`details.main`, `details.range`). The cosine of n with n+1 and of n with n+2 (Parola et
 * al. 2023, as in Meta's Large Concept Model paper) are kept as details either way.
 *
 * Pairs with a sentence that the embedder maps to the zero vector (the built-in GloVe embedder does
 * so for a sentence without a known word, e.g. "2014–15." or a line of numbers) carry no signal:
 * they are kept in the details with a null value and left out of the means. When no adjacent pair
 * is left, the result is `n/a`.
 */
import { messageOf } from '../../../errors.ts';
import { explained, ref, type MessageRef } from '../../../i18n/message.ts';
import { failed, notApplicable } from '../../results.ts';
import type { MetricResult } from '../../types.ts';
import { splitSentences, type Segment } from '../../text/tokenize.ts';
import { throwIfAborted, type SentenceEmbedder } from '../backends.ts';
import {
  followProbability,
  orderModelFor,
  orderScore,
  positionAgreement,
  predictedPosition,
  type OrderModel,
} from '../order-model.ts';
import { ORDER_MODELS } from '../order-models.ts';

export interface CoherenceSentence {
  index: number;
  text: string;
  /** UTF-16 offsets into the summary. */
  start: number;
  end: number;
  /** True when the embedder returned the zero vector (no known words): its pairs are skipped. */
  empty: boolean;
}

export interface CoherencePair {
  /** Sentence indices. */
  a: number;
  b: number;
  /** Cosine similarity, or null when one of the sentences has no vector (pair skipped). */
  similarity: number | null;
}

export interface OrderPair {
  /** Sentence indices (b = a + 1). */
  a: number;
  b: number;
  /** The order model's P(b follows a), or null when one of the sentences has no vector. */
  probability: number | null;
}

/** Which number is the score: the order model's mean P, or (no model for this encoder) the mean
 * adjacent cosine. */
export type CoherenceMain = 'order-model' | 'adjacent-cosine';

export interface CoherenceDetails {
  sentences: CoherenceSentence[];
  main: CoherenceMain;
  /** The main score's range: [0, 1] for probabilities, [-1, 1] for cosines. */
  range: [number, number];
  /** The encoder the order model was trained with; null when there is none for this backend. */
  orderModel: string | null;
  /** Adjacent pairs under the order model; empty without one. */
  orderPairs: OrderPair[];
  /** Mean over `orderPairs`; null without a model or a usable pair. */
  orderMean: number | null;
  /** Per sentence, the position model's place for it (0 = an opening's first sentence, 1 = its
   * last); null for a sentence without a vector, and all empty without a position model. */
  positions: (number | null)[];
  /** Pearson r of `positions` with the sentences' order; null under 3 usable sentences. */
  positionAgreement: number | null;
  /** The weight α of the agreement in the score; null without a position model. */
  positionAlpha: number | null;
  /** The main score under the order model: (orderMean + α·(r + 1)) / (1 + 2α), or orderMean
   * when there is no agreement. */
  orderScore: number | null;
  /** The adjacent pair the order model finds least in order; null without one. */
  weakestPair: number | null;
  /** Sentence n vs n+2. */
  pairs: CoherencePair[];
  /** Mean over `pairs`; null with fewer than 3 usable sentences. */
  n2Mean: number | null;
  /** Sentence n vs n+1. */
  adjacentPairs: CoherencePair[];
  /** Mean over `adjacentPairs`; null with fewer than 2 usable sentences. */
  adjacentMean: number | null;
  /** Adjacent pairs left out because a sentence had no vector. */
  skippedPairs: number;
  backend: string;
}

export interface CoherenceOptions {
  /** Sentence splitter; default `splitSentences`. */
  split?: (text: string) => Segment[];
  /** The order models to pick from by backend; default the shipped ones. */
  models?: readonly OrderModel[];
}

export const MIN_SENTENCES = 2;

/** Cosine similarity, or null when either vector is zero (undefined cosine). */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number | null {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  if (na === 0 || nb === 0) return null;
  return dot / Math.sqrt(na * nb);
}

function pairsAt(vectors: Float32Array[], gap: number): CoherencePair[] {
  const pairs: CoherencePair[] = [];
  for (let i = 0; i + gap < vectors.length; i++) {
    pairs.push({ a: i, b: i + gap, similarity: cosine(vectors[i], vectors[i + gap]) });
  }
  return pairs;
}

function meanOf(values: (number | null)[]): number | null {
  const vals = values.filter((x): x is number => x !== null);
  return vals.length ? vals.reduce((a, b) => a + b, 0) / vals.length : null;
}

function orderPairsOf(model: OrderModel, vectors: Float32Array[], empty: boolean[]): OrderPair[] {
  const out: OrderPair[] = [];
  for (let i = 0; i + 1 < vectors.length; i++) {
    const probability =
      empty[i] || empty[i + 1] ? null : followProbability(model, vectors[i], vectors[i + 1]);
    out.push({ a: i, b: i + 1, probability });
  }
  return out;
}

/** The sentence on the position model, when one is mixed in. */
function positionLine(d: CoherenceDetails): MessageRef | undefined {
  if (d.positionAlpha === null) return undefined;
  if (d.positionAgreement === null) return ref('semantic.coherence.positionTooFew');
  const r = d.positionAgreement;
  return ref('semantic.coherence.position', {
    r,
    lean: r >= 0.3 ? 'opening' : r <= -0.3 ? 'later' : 'none',
    alpha: d.positionAlpha,
    score: d.orderScore as number,
  });
}

/** The mean cosines of neighbours and of sentences two apart, those that are defined. */
function cosinesRef(d: CoherenceDetails): MessageRef {
  if (d.adjacentMean !== null && d.n2Mean !== null) {
    return ref('semantic.coherence.cosinesBoth', { adjacent: d.adjacentMean, n2: d.n2Mean });
  }
  if (d.adjacentMean !== null) {
    return ref('semantic.coherence.cosinesAdjacent', { adjacent: d.adjacentMean });
  }
  return d.n2Mean !== null
    ? ref('semantic.coherence.cosinesN2', { n2: d.n2Mean })
    : ref('semantic.coherence.cosinesNone');
}

function weakestOf(pairs: OrderPair[]): number | null {
  let weakest: number | null = null;
  pairs.forEach((p, i) => {
    if (p.probability === null) return;
    if (weakest === null || p.probability < (pairs[weakest].probability as number)) weakest = i;
  });
  return weakest;
}

/** Score already split sentences (the measurement script shuffles them). */
export async function scoreCoherenceOfSentences(
  segments: readonly Segment[],
  embedder: SentenceEmbedder,
  signal?: AbortSignal,
  models: readonly OrderModel[] = ORDER_MODELS,
): Promise<MetricResult<'coherence'>> {
  const t0 = performance.now();
  const backend = embedder.backend;
  const model = orderModelFor(backend, models);
  const base: CoherenceDetails = {
    sentences: segments.map((s, index) => ({ index, ...s, empty: false })),
    main: model ? 'order-model' : 'adjacent-cosine',
    range: model ? [0, 1] : [-1, 1],
    orderModel: model?.trainedOn ?? null,
    orderPairs: [],
    orderMean: null,
    positions: [],
    positionAgreement: null,
    positionAlpha: model?.position?.alpha ?? null,
    orderScore: null,
    weakestPair: null,
    pairs: [],
    n2Mean: null,
    adjacentPairs: [],
    adjacentMean: null,
    skippedPairs: 0,
    backend,
  };
  if (segments.length < MIN_SENTENCES) {
    return notApplicable(
      'coherence',
      backend,
      ref('semantic.coherence.tooFewSentences', { min: MIN_SENTENCES, count: segments.length }),
      base,
    );
  }
  throwIfAborted(signal);
  let vectors: Float32Array[];
  try {
    vectors = await embedder.embed(
      segments.map((s) => s.text),
      signal,
    );
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    return failed(
      'coherence',
      backend,
      ref('semantic.embeddingFailed', { error: messageOf(err) }),
      base,
    );
  }
  throwIfAborted(signal);
  if (vectors.length !== segments.length) {
    return failed(
      'coherence',
      backend,
      ref('semantic.embeddingCountMismatch', {
        vectors: vectors.length,
        sentences: segments.length,
      }),
      base,
    );
  }
  if (model && vectors[0].length !== model.dims) {
    return failed(
      'coherence',
      backend,
      ref('semantic.coherence.modelDimsMismatch', {
        model: model.backendPrefix,
        dims: model.dims,
        got: vectors[0].length,
      }),
      base,
    );
  }
  const empty = vectors.map((v) => v.every((x) => x === 0));
  const pairs = pairsAt(vectors, 2);
  const adjacentPairs = pairsAt(vectors, 1);
  const orderPairs = model ? orderPairsOf(model, vectors, empty) : [];
  const position = model?.position;
  const positions = position
    ? vectors.map((v, i) => (empty[i] ? null : predictedPosition(position, v)))
    : [];
  const placed = positions.flatMap((p, i) => (p === null ? [] : [{ p, i }]));
  const agreement = position
    ? positionAgreement(
        placed.map((x) => x.p),
        placed.map((x) => x.i),
      )
    : null;
  const orderMean = meanOf(orderPairs.map((p) => p.probability));
  const details: CoherenceDetails = {
    ...base,
    sentences: base.sentences.map((s, i) => ({ ...s, empty: empty[i] })),
    orderPairs,
    orderMean,
    positions,
    positionAgreement: agreement,
    orderScore: orderMean === null ? null : orderScore(orderMean, agreement, position?.alpha ?? 0),
    weakestPair: weakestOf(orderPairs),
    pairs,
    n2Mean: meanOf(pairs.map((p) => p.similarity)),
    adjacentPairs,
    adjacentMean: meanOf(adjacentPairs.map((p) => p.similarity)),
    skippedPairs: adjacentPairs.filter((p) => p.similarity === null).length,
  };
  const score = model ? details.orderScore : details.adjacentMean;
  const elapsedMs = performance.now() - t0;
  if (score === null) {
    return {
      ...notApplicable(
        'coherence',
        backend,
        details.sentences.every((s) => s.empty)
          ? ref(
              backend.startsWith('glove')
                ? 'semantic.coherence.noKnownWordsGlove'
                : 'semantic.coherence.noKnownWords',
              { count: details.sentences.length },
            )
          : ref('semantic.coherence.noKnownPair'),
        details,
      ),
      elapsedMs,
    };
  }
  const used = adjacentPairs.length - details.skippedPairs;
  const weakest = details.weakestPair === null ? null : orderPairs[details.weakestPair];
  const counts = { pairs: used, skipped: details.skippedPairs };
  const positionSentence = positionLine(details);
  const modelValues = {
    ...counts,
    sentences: segments.length,
    mean: details.orderMean as number,
    weakest: weakest ? 'yes' : 'no',
    weakestFrom: weakest ? weakest.a + 1 : 0,
    weakestTo: weakest ? weakest.b + 1 : 0,
    weakestProbability: (weakest?.probability as number | undefined) ?? 0,
    cosines: cosinesRef(details),
  };
  const explanation = model
    ? positionSentence
      ? explained('semantic.coherence.modelPosition', {
          ...modelValues,
          position: positionSentence,
        })
      : explained('semantic.coherence.model', modelValues)
    : explained('semantic.coherence.cosine', {
        ...counts,
        mean: score,
        n2: details.n2Mean === null ? 'no' : 'yes',
        n2Mean: details.n2Mean ?? 0,
      });
  return {
    id: 'coherence',
    status: 'ok',
    score,
    ...explanation,
    backend,
    details,
    elapsedMs,
  };
}

/** Local coherence of a summary: mean P(next sentence follows) under the encoder's order model. */
export async function scoreCoherence(
  summary: string,
  embedder: SentenceEmbedder,
  signal?: AbortSignal,
  options: CoherenceOptions = {},
): Promise<MetricResult<'coherence'>> {
  throwIfAborted(signal);
  const split = options.split ?? splitSentences;
  return scoreCoherenceOfSentences(split(summary), embedder, signal, options.models);
}
