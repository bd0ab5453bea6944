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
import { isAbort } from '../results.ts';
import type { CaseInput } from '../types.ts';
import { guessLocale, splitSentences, type Segment } from '../text/tokenize.ts';
import { throwIfAborted, type SentenceEmbedder } from './backends.ts';
import { cosine } from './coherence.ts';
import calibrated from './encoder-thresholds.json';

/**
 * Source sentences embedded per case. A news article has 20–60; 400 keeps a book-length source
 * from costing minutes with a local encoder while leaving every ordinary source whole. Summary
 * sentences matching something past the cap are matched to the closest sentence before it, and
 * the result says so.
 */
export const SOURCE_SENTENCE_CAP = 400;

export interface SourceSentences {
  /** The first `SOURCE_SENTENCE_CAP` sentences, offsets into the source. */
  sentences: Segment[];
  /** True when the source has more sentences than were kept. */
  truncated: boolean;
}

/**
 * The source is split in windows of about this many UTF-16 units: Intl.Segmenter takes time
 * quadratic in the length of one string in V8 before 12 (Node 20 and some Chromium builds split
 * a 1 MB source in 43 s), and only the first sentences are needed.
 */
export const SOURCE_WINDOW = 8192;

/** Where a window may end: after its last line break, else its last sentence end, else space. */
function windowEnd(source: string, start: number): number {
  const limit = start + SOURCE_WINDOW;
  if (limit >= source.length) return source.length;
  const lineBreak = source.lastIndexOf('\n', limit - 1);
  if (lineBreak > start) return lineBreak + 1;
  let space = -1;
  for (let i = limit - 1; i > start; i--) {
    if (!/\s/u.test(source[i])) continue;
    if ('.!?'.includes(source[i - 1])) return i + 1;
    if (space < 0) space = i + 1;
  }
  return space > 0 ? space : limit;
}

/**
 * The first `cap` sentences of the source, the same as `splitSentences(source).slice(0, cap)`
 * (tests check that) but split window by window. A window's last sentence may be cut, so it is
 * split again at the start of the next window; a window of one sentence is kept as it is.
 */
export function firstSentences(source: string, cap = SOURCE_SENTENCE_CAP): SourceSentences {
  const locale = guessLocale(source);
  const sentences: Segment[] = [];
  let start = 0;
  while (start < source.length && sentences.length <= cap) {
    const end = windowEnd(source, start);
    const pieces = splitSentences(source.slice(start, end), locale).map((p) => ({
      text: p.text,
      start: p.start + start,
      end: p.end + start,
    }));
    const last = pieces.at(-1);
    if (end < source.length && last && pieces.length > 1) {
      pieces.pop();
      start = last.start;
    } else {
      start = end;
    }
    sentences.push(...pieces);
  }
  return { sentences: sentences.slice(0, cap), truncated: sentences.length > cap };
}

export interface CaseSentences {
  summary: Segment[];
  source: SourceSentences;
}

let lastSource: { text: string; split: SourceSentences } | undefined;

/** The source sentences every alignment metric embeds (split once for consecutive calls). */
export function sourceSentencesForEmbedding(source: string): SourceSentences {
  if (lastSource?.text !== source) lastSource = { text: source, split: firstSentences(source) };
  return lastSource.split;
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

/** A note for results when the source had more sentences than were embedded; none otherwise. */
export function truncationNote(source: SourceSentences): string | undefined {
  if (!source.truncated) return undefined;
  return `Only the first ${source.sentences.length} sentences of the source were embedded and compared.`;
}

/** Vectors for a sentence list, or why there are none (an abort is rethrown). */
export async function embedSentences(
  sentences: readonly Segment[],
  embedder: SentenceEmbedder,
  signal?: AbortSignal,
): Promise<{ vectors: Float32Array[] } | { error: string }> {
  throwIfAborted(signal);
  let vectors: Float32Array[];
  try {
    vectors = await embedder.embed(
      sentences.map((s) => s.text),
      signal,
    );
  } catch (err) {
    if (isAbort(err)) throw err;
    return { error: `Embedding failed: ${messageOf(err)}` };
  }
  throwIfAborted(signal);
  if (vectors.length !== sentences.length) {
    return {
      error: `Embedding failed: ${vectors.length} vectors for ${sentences.length} sentences`,
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
): Promise<CaseVectors | { error: string }> {
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
