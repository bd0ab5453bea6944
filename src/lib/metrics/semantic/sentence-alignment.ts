/**
 * What the three encoder alignment metrics (source order, support, redundancy) share: one split of
 * the case into summary and source sentences, one embedding of each list, and the best source
 * match of every summary sentence (text/aligner.ts: the shared content words first, the encoder's
 * cosine second, so a summary sentence holding a source sentence's words is matched to it).
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
import { alignSentences } from '../text/aligner.ts';
import { caseLanguageOf, caseTokenizer, type CaseTokenizer } from '../text/case-tokenizer.ts';
import {
  SOURCE_SENTENCE_CAP,
  sourceSentencesForEmbedding,
  truncationNote,
  type SourceSentences,
} from './source-sentences.ts';
import { throwIfAborted, type SentenceEmbedder } from './backends.ts';
import { cosine } from './coherence/coherence.ts';
import calibrated from './encoder-thresholds.json';

export { SOURCE_SENTENCE_CAP, sourceSentencesForEmbedding, truncationNote };
export type { SourceSentences };

export interface CaseSentences {
  summary: Segment[];
  source: SourceSentences;
  /** The case's words for the aligner (Chinese: the Intl stand-in); default Intl.Segmenter words. */
  tokenizer?: CaseTokenizer;
}

/** The summary's sentences, split as coherence and repetition split them (same list, one embedding). */
export function summarySentences(summary: string): Segment[] {
  return splitSentences(summary);
}

/** One tokenizer per language, so the aligner's source index is shared by support and order. */
const tokenizers = new Map<string, CaseTokenizer>();

function tokenizerFor(input: CaseInput): CaseTokenizer {
  const language = caseLanguageOf(input);
  let tokenizer = tokenizers.get(language);
  if (!tokenizer) {
    tokenizer = caseTokenizer(language);
    tokenizers.set(language, tokenizer);
  }
  return tokenizer;
}

/** The case's sentences: what every alignment metric embeds. */
export function caseSentences(input: CaseInput): CaseSentences {
  return {
    summary: summarySentences(input.summary),
    source: sourceSentencesForEmbedding(input.source),
    tokenizer: tokenizerFor(input),
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
  /** Share of the summary sentence's distinct content stems this source sentence holds (0–1). */
  lexical?: number;
}

/**
 * The source sentence of every summary sentence, as the shared aligner ranks them (content words
 * weighted by rarity, plus the cosine), or null when the summary sentence has no vector or no
 * source sentence has a defined cosine with it. `similarity` stays the cosine with the chosen
 * sentence, so support's mean and threshold keep their meaning. Equal scores go to the earlier
 * source sentence.
 */
export function bestSourceMatches(
  sentences: CaseSentences,
  vectors: CaseVectors,
): (SourceMatch | null)[] {
  const source = sentences.source.sentences;
  const cosines = vectors.summary.map((v) => vectors.source.map((s) => cosine(v, s)));
  const alignments = alignSentences(sentences.summary, source, {
    tokenizer: sentences.tokenizer,
    cosine: (i, j) => cosines[i]?.[j] ?? null,
  });
  return cosines.map((row, i) => {
    const a = alignments[i];
    let index = a !== undefined && a.cosine !== null ? a.index : -1;
    // The aligner chose a sentence without a cosine (a zero vector): the best defined cosine.
    if (index < 0) {
      for (const [j, c] of row.entries()) {
        if (c !== null && (index < 0 || c > (row[index] ?? -Infinity))) index = j;
      }
    }
    const similarity = index < 0 ? null : row[index];
    if (similarity === null || similarity === undefined) return null;
    const lexical = a !== undefined && a.index === index ? a.lexical : undefined;
    return { index, ...source[index], similarity, ...(lexical === undefined ? {} : { lexical }) };
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
 * derived is in the JSON's `derivation` (scripts/encoder-thresholds.ts). USE-lite int8
 * (`use-lite int8 · …`) reads the `use-lite` key, derived on fp32 vectors: `npm run int8:agreement`
 * validated int8 against it (bench/results/int8-agreement.json: int8's own thresholds, by the same
 * procedure, are within 0.0015 of fp32's), so int8 has no key of its own.
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
