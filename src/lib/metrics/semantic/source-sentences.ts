/**
 * The source sentences every embedding metric embeds (support, source order, and the worker's
 * pre-embedding of a pasted source): one list, so that the sentence-vector cache hits whichever
 * metric asked first. A 300,000-word source is ~15,000 sentences, minutes of encoder time on WASM
 * and hundreds of MB of vectors; only its first SOURCE_SENTENCE_BUDGET sentences are embedded, and
 * the metric says so.
 */
import { splitSentences, type Segment } from '../text/tokenize.ts';

/** ≈ 6,000 words of news prose: every SummEval and QAGS article fits whole. */
export const SOURCE_SENTENCE_BUDGET = 300;

export interface SourceSentences {
  sentences: Segment[];
  /** How many sentences the source has, when more than the budget (only the first were kept). */
  truncatedFrom?: number;
}

export function sourceSentencesForEmbedding(
  source: string,
  budget = SOURCE_SENTENCE_BUDGET,
): SourceSentences {
  const all = splitSentences(source);
  if (all.length <= budget) return { sentences: all };
  return { sentences: all.slice(0, budget), truncatedFrom: all.length };
}

/** The note a metric adds when the source was cut to the budget. */
export function sourceBudgetNote(kept: SourceSentences): string | undefined {
  if (kept.truncatedFrom === undefined) return undefined;
  return `The source has ${kept.truncatedFrom} sentences: only its first ${kept.sentences.length} were embedded.`;
}
