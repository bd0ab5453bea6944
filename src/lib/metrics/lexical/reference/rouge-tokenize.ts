/**
 * The tokenizers of ROUGE (rouge_score's own, or Intl.Segmenter words for non-Latin text), the
 * rule that picks one for a pair of texts, and rouge_score's F-measure.
 */
import { guessLocale, splitWords } from '../../text/tokenize.ts';
import { usesWordSegmenter, type WordSegmenter } from '../cjk-words.ts';
import { createPorterStemmer } from '../porter-stemmer.ts';
import type { RougeScore, RougeTokenizerKind } from './rouge.ts';

/**
 * Share of letters and digits in a non-Latin script from which the segmenter tokenises. A tenth:
 * a Chinese or Russian text with English terms is far above it (CJK packs a word into one or two
 * characters), an English sentence naming one person in Chinese characters stays below it.
 */
export const NON_LATIN_SHARE_FOR_SEGMENTER = 0.1;

export const ZERO: RougeScore = Object.freeze({ precision: 0, recall: 0, fmeasure: 0 });

/** rouge_score `scoring.fmeasure`. */
export function fmeasure(precision: number, recall: number): number {
  return precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
}

export const sharedStemmer = createPorterStemmer();

/** rouge_score's DefaultTokenizer (`tokenize.tokenize`), optionally with a stemmer. */
export function rougeScoreTokenize(text: string, stem?: (word: string) => string): string[] {
  const spaced = text.toLowerCase().replace(/[^a-z0-9]+/g, ' ');
  const out: string[] = [];
  for (const raw of spaced.split(' ')) {
    if (raw.length === 0) continue;
    const token = stem && raw.length > 3 ? stem(raw) : raw;
    if (/^[a-z0-9]+$/.test(token)) out.push(token);
  }
  return out;
}

const WORD_LIKE = /[\p{L}\p{N}]/u;

/**
 * Our tokenizer for non-Latin text: NFKC, lower-cased, then word-like segments: Intl.Segmenter
 * words, or for Chinese the words of `wordSegmenter` that hold a letter or digit.
 */
export function segmenterTokenize(
  text: string,
  locale?: string,
  stem?: (word: string) => string,
  wordSegmenter?: WordSegmenter,
): string[] {
  const normalized = text.normalize('NFKC').toLowerCase();
  const loc = locale ?? guessLocale(normalized);
  const words =
    wordSegmenter && usesWordSegmenter(loc)
      ? wordSegmenter.cut(normalized).filter((w) => WORD_LIKE.test(w))
      : splitWords(normalized, loc).map((s) => s.text);
  return words.map((w) => (stem && w.length > 3 && /^[a-z0-9]+$/.test(w) ? stem(w) : w));
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const LATIN = /\p{Script=Latin}/u;
/**
 * A character that may be a letter or digit of no Latin script: anything outside ASCII, the Latin
 * letters of Latin-1 and Extended-A/B, General Punctuation and the currency signs. Latin-1's
 * µ, ², ³, ¹ and ¼–¾ are letters or digits of no script, so they stay in.
 */
const MAY_BE_DELETED =
  /[\u00b2\u00b3\u00b5\u00b9\u00bc-\u00be\u0250-\u1fff\u2070-\u209f\u2100-\u{10ffff}]/u;

/**
 * Share of a text's letters and digits that rouge_score's tokenizer would delete because they
 * belong to a non-Latin script (accented Latin letters are not counted either way).
 */
export function nonLatinShare(text: string): number {
  // A text with none of the characters rouge_score deletes shares 0: one native scan says so.
  if (!MAY_BE_DELETED.test(text)) return 0;
  let kept = 0;
  let lost = 0;
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    if (code < 0x80) {
      if ((code >= 0x30 && code <= 0x39) || ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a)) {
        kept++;
      }
    } else if (LETTER_OR_DIGIT.test(ch) && !LATIN.test(ch)) {
      lost++;
    }
  }
  return lost === 0 ? 0 : lost / (kept + lost);
}

/** The tokenizer 'auto' picks for this pair of texts. */
export function chooseRougeTokenizer(...texts: string[]): RougeTokenizerKind {
  return texts.some((t) => nonLatinShare(t) >= NON_LATIN_SHARE_FOR_SEGMENTER)
    ? 'intl-segmenter'
    : 'rouge_score';
}
