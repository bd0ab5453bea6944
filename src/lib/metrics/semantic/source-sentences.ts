/**
 * The source sentences every embedding metric embeds (support, source order, and the worker's
 * pre-embedding of a pasted source): one list, so that the case's shared embedding and the
 * worker's sentence-vector cache hit whichever asked first. A 300,000-word source is ~15,000
 * sentences, minutes of encoder time on WASM and hundreds of MB of vectors; only its first
 * SOURCE_SENTENCE_CAP sentences are split and embedded, and the metrics say so.
 */
import { ref, type MessageRef } from '../../i18n/message.ts';
import { firstSentences } from '../text/source-prefix.ts';
import type { Segment } from '../text/tokenize.ts';

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

let lastSource: { text: string; split: SourceSentences } | undefined;

/** The source sentences every alignment metric embeds (split once for consecutive calls). */
export function sourceSentencesForEmbedding(source: string): SourceSentences {
  if (lastSource?.text !== source)
    lastSource = { text: source, split: firstSentences(source, SOURCE_SENTENCE_CAP) };
  return lastSource.split;
}

/** A note for results when the source had more sentences than were embedded; none otherwise. */
export function truncationNote(source: SourceSentences): MessageRef | undefined {
  if (!source.truncated) return undefined;
  return ref('semantic.sourceTruncated', { count: source.sentences.length });
}
