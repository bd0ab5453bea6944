/**
 * Bounds on how much of a huge source the source-based metrics read. Intl.Segmenter is slow on long
 * texts (quadratic in one string's length in V8 before 12; ~70k words/s in pieces), so a
 * 300,000-word source would cost minutes: sentence lists are split window by window and stop at
 * the cap, and the lexical source metrics compare the summary with the source's first
 * LEXICAL_SOURCE_CHARS characters, saying so.
 */
import { ref, type MessageRef } from '../../i18n/message.ts';
import { withNotes } from '../results.ts';
import type { MetricResult } from '../types.ts';
import { guessLocale, splitSentences, type Segment } from './tokenize.ts';

/** ≈ 35,000 words of English: every news article, report or transcript of ordinary length whole. */
export const LEXICAL_SOURCE_CHARS = 200_000;

export interface SourcePrefix {
  text: string;
  /** True when the source was longer and only `text` is compared. */
  truncated: boolean;
}

/** The source's first `limit` characters, cut at whitespace so no word is split. */
export function sourcePrefix(source: string, limit = LEXICAL_SOURCE_CHARS): SourcePrefix {
  if (source.length <= limit) return { text: source, truncated: false };
  const space = source.slice(0, limit).search(/\s\S*$/u);
  return { text: source.slice(0, space > 0 ? space : limit), truncated: true };
}

/** The note of a lexical source metric that compared only a prefix of the source. */
export function sourcePrefixNote(prefix: SourcePrefix): MessageRef | undefined {
  if (!prefix.truncated) return undefined;
  return ref('lexical.sourcePrefix', {
    limit: LEXICAL_SOURCE_CHARS,
    compared: prefix.text.length,
  });
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

/** A lexical source metric on the source's first LEXICAL_SOURCE_CHARS characters, saying so. */
export function withSourcePrefix<R extends MetricResult>(
  source: string,
  score: (source: string) => R,
): R {
  const prefix = sourcePrefix(source);
  const note = sourcePrefixNote(prefix);
  return withNotes(score(prefix.text), note ? [note] : undefined);
}

/**
 * The first `cap` sentences of the source, the same as `splitSentences(source).slice(0, cap)`
 * (tests check that) but split window by window. A window's last sentence may be cut, so it is
 * split again at the start of the next window; a window of one sentence is kept as it is.
 */
export function firstSentences(
  source: string,
  cap: number,
): { sentences: Segment[]; truncated: boolean } {
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
