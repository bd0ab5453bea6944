/**
 * Redundancy: the pairs of summary sentences the case's encoder finds most alike, which catches a
 * thing said twice in other words (the lexical repetition score only sees shared words). The
 * score is 1 − the largest pairwise cosine, with a negative largest cosine counted as 0, so it
 * lies in [0, 1] and, like repetition-offline, higher means less repeated. Pairs above the
 * encoder's calibrated threshold (sentence-alignment.ts, ENCODER_THRESHOLDS) are flagged as
 * likely paraphrased repeats; other backends get no threshold and no flags. On SummEval dev it
 * tracks expert coherence weakly (summary-level Spearman 0.20 with GloVe SIF, 0.18 with USE-lite).
 */
import { MAX_PAIR_SENTENCES } from '../../lexical/repetition-offline/repetition.ts';
import { explained, ref } from '../../../i18n/message.ts';
import { failed, notApplicable, withNotes } from '../../results.ts';
import type { MetricResult } from '../../types.ts';
import { throwIfAborted, type SentenceEmbedder } from '../backends.ts';
import { cosine } from '../coherence/coherence.ts';
import {
  embedSentences,
  ENCODER_THRESHOLDS,
  isZeroVector,
  summarySentences,
  thresholdsFor,
  type CalibratedThreshold,
  type EncoderThresholds,
} from '../sentence-alignment.ts';

export interface RedundancySentence {
  index: number;
  text: string;
  /** UTF-16 offsets into the summary. */
  start: number;
  end: number;
  /** True when the embedder returned the zero vector (no known words): it is in no pair. */
  empty: boolean;
}

export interface RedundantPair {
  /** Sentence indices, a < b. */
  a: number;
  b: number;
  similarity: number;
  /** Above the threshold: likely the same thing said again. */
  likelyRepeat: boolean;
}

export interface RedundancyDetails {
  sentences: RedundancySentence[];
  /** The most alike pairs, most alike first (at most `TOP_PAIRS`). */
  pairs: RedundantPair[];
  pairsCompared: number;
  /** Pairs above the threshold, among all compared (not only those listed). */
  likelyRepeats: number;
  threshold: CalibratedThreshold | null;
  backend: string;
}

export const TOP_PAIRS = 5;
export const MIN_SENTENCES = 2;

export async function scoreRedundancy(
  summary: string,
  embedder: SentenceEmbedder,
  signal?: AbortSignal,
  thresholds: Readonly<Record<string, EncoderThresholds>> = ENCODER_THRESHOLDS,
): Promise<MetricResult<'redundancy'>> {
  const t0 = performance.now();
  throwIfAborted(signal);
  const backend = embedder.backend;
  const segments = summarySentences(summary);
  const threshold = thresholdsFor(backend, thresholds)?.redundancy ?? null;
  const base: RedundancyDetails = {
    sentences: segments.map((s, index) => ({ index, ...s, empty: false })),
    pairs: [],
    pairsCompared: 0,
    likelyRepeats: 0,
    threshold,
    backend,
  };
  if (segments.length < MIN_SENTENCES) {
    return notApplicable(
      'redundancy',
      backend,
      ref('semantic.redundancy.tooFewSentences', { min: MIN_SENTENCES, count: segments.length }),
      base,
    );
  }
  if (segments.length > MAX_PAIR_SENTENCES) {
    return notApplicable(
      'redundancy',
      backend,
      ref('semantic.redundancy.tooManySentences', {
        max: MAX_PAIR_SENTENCES,
        count: segments.length,
      }),
      base,
    );
  }
  const embedded = await embedSentences(segments, embedder, signal);
  if ('error' in embedded) return failed('redundancy', backend, embedded.error, base);
  const vectors = embedded.vectors;

  const all: RedundantPair[] = [];
  for (let a = 0; a < vectors.length; a++) {
    for (let b = a + 1; b < vectors.length; b++) {
      const similarity = cosine(vectors[a], vectors[b]);
      if (similarity === null) continue;
      all.push({
        a,
        b,
        similarity,
        likelyRepeat: threshold !== null && similarity > threshold.threshold,
      });
    }
  }
  // Most alike first; equal cosines in sentence order, so the listing is deterministic.
  all.sort((p, q) => q.similarity - p.similarity || p.a - q.a || p.b - q.b);
  const details: RedundancyDetails = {
    ...base,
    sentences: base.sentences.map((s, i) => ({ ...s, empty: isZeroVector(vectors[i]) })),
    pairs: all.slice(0, TOP_PAIRS),
    pairsCompared: all.length,
    likelyRepeats: all.filter((p) => p.likelyRepeat).length,
  };
  const elapsedMs = performance.now() - t0;
  const notes = threshold === null ? [ref('semantic.redundancy.uncalibrated', { backend })] : [];
  if (all.length === 0) {
    return {
      ...notApplicable('redundancy', backend, ref('semantic.redundancy.noKnownWords'), details),
      elapsedMs,
    };
  }
  const top = all[0];
  const pair = { a: top.a + 1, b: top.b + 1, cosine: top.similarity, pairs: all.length };
  return withNotes(
    {
      id: 'redundancy',
      status: 'ok',
      score: 1 - Math.max(0, top.similarity),
      raw: top.similarity,
      ...(threshold === null
        ? explained('semantic.redundancy.explanation', pair)
        : explained('semantic.redundancy.explanationThreshold', {
            ...pair,
            likely: details.likelyRepeats,
            threshold: threshold.threshold,
          })),
      backend,
      details,
      elapsedMs,
    },
    notes,
  );
}
