/**
 * Token F1: bag-of-tokens overlap between a prediction and a reference answer, as in the SQuAD
 * evaluation script (Rajpurkar et al. 2016) and LongBench's `qa_f1_score` / `qa_f1_zh_score`
 * (Bai et al. 2023), which TinyEval copies.
 *
 * - English (`qa_f1_score`): lower-case, delete ASCII punctuation (Python `string.punctuation`),
 *   replace the whole words a/an/the by a space (Python's Unicode `\b`), split on whitespace.
 * - Chinese/Japanese (`qa_f1_zh_score`): segment into words first (`jieba.cut(text,
 *   cut_all=False)`), then normalise every word (lower-case, delete ASCII and CJK punctuation,
 *   delete whitespace) and drop the ones left empty; both texts alike. Chinese words come from
 *   the WordSegmenter passed in (cjk-words.ts): jieba (jieba.ts) reproduces LongBench exactly;
 *   the default, Intl.Segmenter, is the fallback whose word boundaries differ on some phrases, so
 *   per-item scores differ a little. Japanese and Korean use ICU segments either way.
 * - F1 as LongBench's `f1_score`: clipped common-token count; 0 when nothing is shared, including
 *   when both sides are empty (the SQuAD script would give 1 there; LongBench gives 0).
 * - Several answers: the maximum over answers (what TinyEval's published numbers use).
 */
import { guessLocale, hasCjk } from '../../text/tokenize.ts';
import {
  cjkWords,
  intlWordSegmenter,
  segmenterLabel,
  usesWordSegmenter,
  type WordSegmenter,
} from '../cjk-words.ts';
import { pySplit } from '../py-compat.ts';

export type TokenF1Language = 'auto' | 'en' | 'zh' | 'ja';

export interface TokenF1Score {
  f1: number;
  precision: number;
  recall: number;
  /** Shared tokens, each as often as it counts (clipped multiset intersection). */
  common: string[];
  predictionTokens: number;
  referenceTokens: number;
}

export type TokenF1Segmentation = 'whitespace' | 'intl-segmenter' | 'jieba';

export interface TokenF1Result extends TokenF1Score {
  language: 'en' | 'zh' | 'ja';
  segmentation: TokenF1Segmentation;
  /** How backend strings name the segmentation ('jieba', 'intl-segmenter, jieba unavailable'). */
  segmentationLabel: string;
  /** Set when Intl.Segmenter stood in for jieba because jieba failed to load. */
  segmenterFallbackReason?: string;
}

/** Python `string.punctuation`. */
const ASCII_PUNCTUATION = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');

/** LongBench's `cn_punctuation`, plus the ASCII set. */
const ZH_PUNCTUATION = new Set([
  ...ASCII_PUNCTUATION,
  ...('\uff01\uff1f\uff61\u3002\uff02\uff03\uff04\uff05\uff06\uff07\uff08\uff09\uff0a\uff0b\uff0c' +
    '\uff0d\uff0f\uff1a\uff1b\uff1c\uff1d\uff1e\uff20\uff3b\uff3c\uff3d\uff3e\uff3f\uff40\uff5b' +
    '\uff5c\uff5d\uff5e\uff5f\uff60\uff62\uff63\uff64\u3001\u3003\u300b\u300c\u300d\u300e\u300f' +
    '\u3010\u3011\u3014\u3015\u3016\u3017\u3018\u3019\u301a\u301b\u301c\u301d\u301e\u301f\u3030' +
    '\u303e\u303f\u2013\u2014\u2018\u2019\u201b\u201c\u201d\u201e\u201f\u2026\u2027\ufe4f.'),
]);

function removeChars(text: string, drop: ReadonlySet<string>): string {
  let out = '';
  for (const ch of text) if (!drop.has(ch)) out += ch;
  return out;
}

// Python's `\b` on str is Unicode-aware; JS `\b` is ASCII-only even with the u flag.
const ARTICLES = /(?<![\p{L}\p{N}_])(?:a|an|the)(?![\p{L}\p{N}_])/gu;

/** SQuAD / LongBench `normalize_answer`. */
export function normalizeAnswer(s: string): string {
  const noPunct = removeChars(s.toLowerCase(), ASCII_PUNCTUATION);
  return pySplit(noPunct.replace(ARTICLES, ' ')).join(' ');
}

/** LongBench `normalize_zh_answer`. */
export function normalizeZhAnswer(s: string): string {
  return pySplit(removeChars(s.toLowerCase(), ZH_PUNCTUATION)).join('');
}

/** English tokens: `normalize_answer(s).split()`. */
export function englishF1Tokens(s: string): string[] {
  return pySplit(normalizeAnswer(s));
}

/** Chinese/Japanese tokens: segment, normalise each segment, drop empty ones. */
export function cjkTokensFromSegments(segments: readonly string[]): string[] {
  return segments.map(normalizeZhAnswer).filter((t) => t.length > 0);
}

/**
 * Chinese/Japanese F1 tokens of a text: `cjkWords` (Chinese through `segmenter`, default
 * Intl.Segmenter), each normalised, empty ones dropped.
 */
export function cjkF1Tokens(
  s: string,
  locale: string = guessLocale(s) ?? 'zh',
  segmenter: WordSegmenter = intlWordSegmenter,
): string[] {
  return cjkTokensFromSegments(cjkWords(s, locale, segmenter));
}

/** LongBench `f1_score` over two token lists. */
export function f1FromTokens(
  prediction: readonly string[],
  reference: readonly string[],
): TokenF1Score {
  const refCounts = new Map<string, number>();
  for (const t of reference) refCounts.set(t, (refCounts.get(t) ?? 0) + 1);
  const common: string[] = [];
  for (const t of prediction) {
    const left = refCounts.get(t) ?? 0;
    if (left > 0) {
      common.push(t);
      refCounts.set(t, left - 1);
    }
  }
  const base = {
    common,
    predictionTokens: prediction.length,
    referenceTokens: reference.length,
  };
  if (common.length === 0) return { f1: 0, precision: 0, recall: 0, ...base };
  const precision = common.length / prediction.length;
  const recall = common.length / reference.length;
  return { f1: (2 * precision * recall) / (precision + recall), precision, recall, ...base };
}

function resolveLanguage(
  language: TokenF1Language,
  prediction: string,
  reference: string,
): 'en' | 'zh' | 'ja' {
  if (language !== 'auto') return language;
  if (!hasCjk(prediction) && !hasCjk(reference)) return 'en';
  return guessLocale(`${prediction}\n${reference}`) === 'ja' ? 'ja' : 'zh';
}

export interface TokenF1Options {
  language?: TokenF1Language;
  /** Chinese word segmenter; default Intl.Segmenter (`intlWordSegmenter`). */
  segmenter?: WordSegmenter;
}

/**
 * Token F1 of one prediction against one reference. 'auto' picks the Chinese/Japanese variant
 * when either text contains CJK characters (Korean, which puts spaces between words, is scored
 * with the Chinese normalisation too, on ICU words).
 */
export function tokenF1(
  prediction: string,
  reference: string,
  options: TokenF1Options = {},
): TokenF1Result {
  const language = resolveLanguage(options.language ?? 'auto', prediction, reference);
  if (language === 'en') {
    const score = f1FromTokens(englishF1Tokens(prediction), englishF1Tokens(reference));
    return { ...score, language, segmentation: 'whitespace', segmentationLabel: 'whitespace' };
  }
  // One locale for both texts, so a word segments the same way on both sides.
  const locale =
    language === 'ja' ? 'ja' : guessLocale(`${prediction}\n${reference}`) === 'ko' ? 'ko' : 'zh';
  const segmenter = options.segmenter ?? intlWordSegmenter;
  const score = f1FromTokens(
    cjkF1Tokens(prediction, locale, segmenter),
    cjkF1Tokens(reference, locale, segmenter),
  );
  if (!usesWordSegmenter(locale)) {
    return {
      ...score,
      language,
      segmentation: 'intl-segmenter',
      segmentationLabel: 'intl-segmenter',
    };
  }
  return {
    ...score,
    language,
    segmentation: segmenter.name,
    segmentationLabel: segmenterLabel(segmenter),
    ...(segmenter.fallbackReason ? { segmenterFallbackReason: segmenter.fallbackReason } : {}),
  };
}

/** LongBench `qa_f1_score`. */
export function qaF1Score(prediction: string, groundTruth: string): number {
  return f1FromTokens(englishF1Tokens(prediction), englishF1Tokens(groundTruth)).f1;
}

/**
 * LongBench `qa_f1_zh_score`: `jieba.cut` both texts, normalise each word, drop empty words, F1.
 * Exact with `loadJiebaNode()` / `loadJiebaBrowser()`; the default segmenter is Intl.Segmenter.
 */
export function qaF1ZhScore(
  prediction: string,
  groundTruth: string,
  segmenter: WordSegmenter = intlWordSegmenter,
): number {
  return f1FromTokens(
    cjkTokensFromSegments(segmenter.cut(prediction)),
    cjkTokensFromSegments(segmenter.cut(groundTruth)),
  ).f1;
}
