/**
 * Local coherence (SPEC §2; Parola et al. 2023 as used in Meta's Large Concept Model paper): embed
 * each summary sentence and average the cosine similarity of sentence n with sentence n+2. The
 * adjacent (n, n+1) variant is reported as a detail.
 *
 * Pairs with a sentence that the embedder maps to the zero vector (the built-in GloVe embedder does
 * so for a sentence without a known word, e.g. "2014–15." or a line of numbers) have no defined
 * cosine: they are kept in the details with `similarity: null` and left out of the mean. When no
 * n+2 pair is left, the result is `n/a`.
 */
import { messageOf } from '../../errors.ts';
import { failed, notApplicable } from '../results.ts';
import { type MetricResult } from '../types.ts';
import { splitSentences, type Segment } from '../text/tokenize.ts';
import { throwIfAborted, type SentenceEmbedder } from './backends.ts';

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

export interface CoherenceDetails {
  sentences: CoherenceSentence[];
  /** Sentence n vs n+2: the score is the mean of their similarities. */
  pairs: CoherencePair[];
  /** Sentence n vs n+1. */
  adjacentPairs: CoherencePair[];
  /** Mean over `adjacentPairs`; null with fewer than 2 usable sentences. */
  adjacentMean: number | null;
  /** n+2 pairs left out because a sentence had no vector. */
  skippedPairs: number;
  backend: string;
}

export interface CoherenceOptions {
  /** Sentence splitter; default `splitSentences`. */
  split?: (text: string) => Segment[];
}

export const MIN_SENTENCES = 3;

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

function meanOf(pairs: CoherencePair[]): number | null {
  const vals = pairs.map((p) => p.similarity).filter((x): x is number => x !== null);
  return vals.length ? vals.reduce((a, b) => a + b, 0) / vals.length : null;
}

const fmt = (x: number): string => x.toFixed(2);

/** Score already split sentences (the measurement script shuffles them). */
export async function scoreCoherenceOfSentences(
  segments: readonly Segment[],
  embedder: SentenceEmbedder,
  signal?: AbortSignal,
): Promise<MetricResult<'coherence'>> {
  const t0 = performance.now();
  const backend = embedder.backend;
  const base: CoherenceDetails = {
    sentences: segments.map((s, index) => ({ index, ...s, empty: false })),
    pairs: [],
    adjacentPairs: [],
    adjacentMean: null,
    skippedPairs: 0,
    backend,
  };
  if (segments.length < MIN_SENTENCES) {
    return notApplicable(
      'coherence',
      backend,
      `needs at least ${MIN_SENTENCES} sentences (found ${segments.length})`,
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
    const message = messageOf(err);
    return failed('coherence', backend, `Embedding failed: ${message}`, base);
  }
  throwIfAborted(signal);
  if (vectors.length !== segments.length) {
    return failed(
      'coherence',
      backend,
      `Embedding failed: ${vectors.length} vectors for ${segments.length} sentences`,
      base,
    );
  }
  const pairs = pairsAt(vectors, 2);
  const adjacentPairs = pairsAt(vectors, 1);
  const details: CoherenceDetails = {
    ...base,
    sentences: base.sentences.map((s, i) => ({ ...s, empty: vectors[i].every((x) => x === 0) })),
    pairs,
    adjacentPairs,
    adjacentMean: meanOf(adjacentPairs),
    skippedPairs: pairs.filter((p) => p.similarity === null).length,
  };
  const score = meanOf(pairs);
  const elapsedMs = performance.now() - t0;
  if (score === null) {
    return {
      ...notApplicable(
        'coherence',
        backend,
        details.sentences.every((s) => s.empty)
          ? `none of the ${details.sentences.length} sentences has a word the embedding knows${backend.startsWith('glove') ? ' (the built-in GloVe vectors cover English only)' : ''}`
          : 'no pair of sentences two apart has words the embedding knows',
        details,
      ),
      elapsedMs,
    };
  }
  const used = pairs.length - details.skippedPairs;
  const skipped = details.skippedPairs
    ? `, leaving out ${details.skippedPairs} pair${details.skippedPairs === 1 ? '' : 's'} with a sentence of no known words`
    : '';
  const adjacent =
    details.adjacentMean === null ? '' : ` (adjacent sentences: ${fmt(details.adjacentMean)})`;
  return {
    id: 'coherence',
    status: 'ok',
    score,
    explanation: `Across ${segments.length} sentences, each sentence and the one two places later have a mean cosine similarity of ${fmt(score)} over ${used} pair${used === 1 ? '' : 's'}${adjacent}${skipped}.`,
    backend,
    details,
    elapsedMs,
  };
}

/** Local coherence of a summary: mean cosine of sentence n with sentence n+2. */
export async function scoreCoherence(
  summary: string,
  embedder: SentenceEmbedder,
  signal?: AbortSignal,
  options: CoherenceOptions = {},
): Promise<MetricResult<'coherence'>> {
  throwIfAborted(signal);
  const split = options.split ?? splitSentences;
  return scoreCoherenceOfSentences(split(summary), embedder, signal);
}
