/**
 * What the three encoder alignment metrics (source order, support, redundancy) share: one split of
 * the case into summary and source sentences, one embedding of each list, and the best source
 * match of every summary sentence.
 *
 * All three (and coherence and repetition, for the summary) must pass the embedder the very same
 * sentence lists: the case's embedder is wrapped by `sharingEmbeddings`, which embeds an identical
 * list once, so the source is paid for once per case however many of these metrics run.
 */
import { messageOf } from '../../errors.ts';
import { ref, type MessageRef } from '../../i18n/message.ts';
import { isAbort } from '../results.ts';
import type { CaseInput } from '../types.ts';
import { splitSentences, type Segment } from '../text/tokenize.ts';
import {
  SOURCE_SENTENCE_CAP,
  sourceSentencesForEmbedding,
  truncationNote,
  type SourceSentences,
} from './source-sentences.ts';
import { throwIfAborted, type SentenceEmbedder } from './backends.ts';
import { cosine } from './coherence.ts';
import calibrated from './encoder-thresholds.json';

export { SOURCE_SENTENCE_CAP, sourceSentencesForEmbedding, truncationNote };
export type { SourceSentences };

export interface CaseSentences {
  summary: Segment[];
  source: SourceSentences;
}

/** The summary's sentences, split as coherence and repetition split them (same list, one embedding). */
export function summarySentences(summary: string): Segment[] {
  return splitSentences(summary);
}

/** The case's sentences: what every alignment metric embeds. */
export function caseSentences(input: CaseInput): CaseSentences {
  return {
    summary: summarySentences(input.summary),
    source: sourceSentencesForEmbedding(input.source),
  };
}

/** Vectors for a sentence list, or why there are none (an abort is rethrown). */
export async function embedSentences(
  sentences: readonly Segment[],
  embedder: SentenceEmbedder,
  signal?: AbortSignal,
): Promise<{ vectors: Float32Array[] } | { error: MessageRef }> {
  throwIfAborted(signal);
  let vectors: Float32Array[];
  try {
    vectors = await embedder.embed(
      sentences.map((s) => s.text),
      signal,
    );
  } catch (err) {
    if (isAbort(err)) throw err;
    return { error: ref('semantic.embeddingFailed', { error: messageOf(err) }) };
  }
  throwIfAborted(signal);
  if (vectors.length !== sentences.length) {
    return {
      error: ref('semantic.embeddingCountMismatch', {
        vectors: vectors.length,
        sentences: sentences.length,
      }),
    };
  }
  return { vectors };
}

export interface CaseVectors {
  summary: Float32Array[];
  source: Float32Array[];
}

/** Both lists embedded, summary first (the list coherence and repetition embed too). */
export async function embedCase(
  sentences: CaseSentences,
  embedder: SentenceEmbedder,
  signal?: AbortSignal,
): Promise<CaseVectors | { error: MessageRef }> {
  const summary = await embedSentences(sentences.summary, embedder, signal);
  if ('error' in summary) return summary;
  const source = await embedSentences(sentences.source.sentences, embedder, signal);
  if ('error' in source) return source;
  return { summary: summary.vectors, source: source.vectors };
}

/** A source sentence a summary sentence was matched to. */
export interface SourceMatch {
  /** Position among the source's sentences (0-based). */
  index: number;
  text: string;
  /** UTF-16 offsets into the source. */
  start: number;
  end: number;
  /** Cosine similarity with the summary sentence. */
  similarity: number;
}

/**
 * The most similar source sentence of every summary sentence, or null when the summary sentence
 * has no vector or no source sentence has a defined cosine with it. Equal cosines go to the
 * earlier source sentence, so the result never depends on iteration details.
 */
export function bestSourceMatches(
  sentences: CaseSentences,
  vectors: CaseVectors,
): (SourceMatch | null)[] {
  const source = sentences.source.sentences;
  return vectors.summary.map((v) => {
    let best: SourceMatch | null = null;
    vectors.source.forEach((s, index) => {
      const similarity = cosine(v, s);
      if (similarity !== null && (best === null || similarity > best.similarity)) {
        best = { index, ...source[index], similarity };
      }
    });
    return best;
  });
}

/** True when the embedder returned the zero vector (no known words). */
export const isZeroVector = (v: Float32Array): boolean => v.every((x) => x === 0);

/** A threshold derived from data for one encoder, and the percentile it is. */
export interface CalibratedThreshold {
  threshold: number;
  percentile: number;
}

export interface EncoderThresholds {
  support: CalibratedThreshold;
  redundancy: CalibratedThreshold;
}

/**
 * The thresholds of the built-in encoders, by the start of their backend name; how they were
 * derived is in the JSON's `derivation` (scripts/encoder-thresholds.ts).
 */
export const ENCODER_THRESHOLDS: Readonly<Record<string, EncoderThresholds>> = calibrated.backends;

/**
 * The calibrated thresholds of a backend: the longest matching name prefix; undefined for a
 * backend nobody calibrated (transformer and provider models), whose cosines have another scale.
 */
export function thresholdsFor(
  backend: string,
  table: Readonly<Record<string, EncoderThresholds>> = ENCODER_THRESHOLDS,
): EncoderThresholds | undefined {
  const prefix = Object.keys(table)
    .filter((p) => backend.startsWith(p))
    .sort((a, b) => b.length - a.length)[0];
  return prefix === undefined ? undefined : table[prefix];
}
