/**
 * The source sentences every embedding metric embeds (support, source order, and the worker's
 * pre-embedding of a pasted source): one list, so that the case's shared embedding and the
 * worker's sentence-vector cache hit whichever asked first. A 300,000-word source is ~15,000
 * sentences, minutes of encoder time on WASM and hundreds of MB of vectors; only its first
 * SOURCE_SENTENCE_CAP sentences are split and embedded, and the metrics say so.
 */
import { guessLocale, splitSentences, type Segment } from '../text/tokenize.ts';

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

let lastSource: { text: string; split: SourceSentences } | undefined;

/** The source sentences every alignment metric embeds (split once for consecutive calls). */
export function sourceSentencesForEmbedding(source: string): SourceSentences {
  if (lastSource?.text !== source) lastSource = { text: source, split: firstSentences(source) };
  return lastSource.split;
}

/** A note for results when the source had more sentences than were embedded; none otherwise. */
export function truncationNote(source: SourceSentences): string | undefined {
  if (!source.truncated) return undefined;
  return `Only the first ${source.sentences.length} sentences of the source were embedded and compared.`;
}
