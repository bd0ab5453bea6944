/**
 * One tokenizer per case: the case's language (language.ts; detected or chosen in the page, sent
 * with the case) decides how every lexical metric of the case splits words — ROUGE, BLEU, token
 * F1, repetition, extractiveness, source coverage, the quality estimate, entity density — so that
 * the same summary has the same number of words in every card, and every card names the same
 * tokenizer in its backend line and its details.
 *
 * - Chinese: the case's WordSegmenter (jieba when it loads, else the Intl.Segmenter stand-in of
 *   cjk-words.ts, labelled 'intl-segmenter, jieba unavailable').
 * - Every other language: Intl.Segmenter words, with the language as the segmenter's locale for
 *   scripts without spaces (ja, ko, th) and none otherwise (what the metrics did before, so English
 *   results are unchanged).
 *
 * English reference metrics keep their reference tools' own tokenizers (rouge_score, sacrebleu
 * 13a, SQuAD normalisation) for parity: those are fixed by the tools, not by the language.
 */
import { messageOf } from '../../errors.ts';
import {
  intlSegmenterFallback,
  intlWordSegmenter,
  segmenterLabel,
  type WordSegmenter,
} from '../lexical/cjk-words.ts';
import { languageFromScript, normalizeLanguageCode } from './language.ts';
import { splitTokens, splitWords, type Segment } from './tokenize.ts';

export interface CaseTokenizer {
  /** The case's language (BCP-47 primary subtag, 'und' when unknown). */
  language: string;
  /** What backend lines and details say: 'intl-segmenter', 'jieba', 'intl-segmenter, jieba unavailable'. */
  name: string;
  /** Intl.Segmenter locale for words and sentences. */
  locale: string | undefined;
  /** Chinese words; set for Chinese only. */
  wordSegmenter?: WordSegmenter;
  /** Word-like segments (letters, digits, ideographs) with offsets into `text`. */
  words(text: string): readonly Segment[];
  /** Words and each punctuation mark (entity density's tokens), with offsets. */
  tokens(text: string): Segment[];
}

const WORD_LIKE = /[\p{L}\p{N}]/u;
/** Languages whose words Intl.Segmenter finds better when told the locale (no spaces). */
const LOCALE_SEGMENTED = new Set(['ja', 'ko', 'th', 'lo', 'km', 'my']);

/** Every segment of a WordSegmenter's cut, with offsets (the cut covers the text in order). */
function cutWithOffsets(
  text: string,
  segmenter: WordSegmenter,
): Array<Segment & { word: boolean }> {
  const out: Array<Segment & { word: boolean }> = [];
  let at = 0;
  for (const piece of segmenter.cut(text)) {
    const start = text.indexOf(piece, at);
    if (start < 0) continue;
    at = start + piece.length;
    out.push({ text: piece, start, end: at, word: WORD_LIKE.test(piece) });
  }
  return out;
}

export function isChinese(language: string): boolean {
  return normalizeLanguageCode(language) === 'zh';
}

/** The tokenizer of a case in `language`; Chinese needs its word segmenter. */
export function caseTokenizer(language: string, wordSegmenter?: WordSegmenter): CaseTokenizer {
  const code = normalizeLanguageCode(language);
  if (code === 'zh') {
    const segmenter = wordSegmenter ?? intlWordSegmenter;
    return {
      language: code,
      name: segmenterLabel(segmenter),
      locale: 'zh',
      wordSegmenter: segmenter,
      words: (text) =>
        cutWithOffsets(text, segmenter)
          .filter((s) => s.word)
          .map(({ text: t, start, end }) => ({ text: t, start, end })),
      tokens: (text) => {
        const out: Segment[] = [];
        for (const s of cutWithOffsets(text, segmenter)) {
          if (s.word) out.push({ text: s.text, start: s.start, end: s.end });
          else {
            let i = s.start;
            for (const ch of s.text) {
              if (/\S/u.test(ch)) out.push({ text: ch, start: i, end: i + ch.length });
              i += ch.length;
            }
          }
        }
        return out;
      },
    };
  }
  const locale = LOCALE_SEGMENTED.has(code) ? code : undefined;
  return {
    language: code,
    name: 'intl-segmenter',
    locale,
    words: (text) => splitWords(text, locale),
    tokens: (text) => splitTokens(text, locale),
  };
}

/**
 * The language a case is tokenized in: the one sent with it (detected or chosen in the page),
 * else what its script says, else English.
 */
export function caseLanguageOf(input: {
  language?: string;
  source: string;
  summary: string;
  reference?: string;
}): string {
  if (input.language && normalizeLanguageCode(input.language) !== 'und') {
    return normalizeLanguageCode(input.language);
  }
  return (
    languageFromScript(
      `${input.summary}\n${input.reference ?? ''}\n${input.source.slice(0, 4000)}`,
    ) ?? 'en'
  );
}

/**
 * The tokenizer for a case, loading the Chinese segmenter only for Chinese. A segmenter that
 * fails to load is replaced by the labelled Intl stand-in; never throws.
 */
export async function resolveCaseTokenizer(
  input: { language?: string; source: string; summary: string; reference?: string },
  loadSegmenter?: () => Promise<WordSegmenter>,
): Promise<CaseTokenizer> {
  const language = caseLanguageOf(input);
  if (!isChinese(language) || !loadSegmenter) return caseTokenizer(language);
  try {
    return caseTokenizer(language, await loadSegmenter());
  } catch (error) {
    return caseTokenizer(
      language,
      intlSegmenterFallback(`jieba failed to load: ${messageOf(error)}`),
    );
  }
}

/**
 * A lexical metric's backend line with the case's tokenizer: unchanged for English and unknown
 * text (the strings validity was measured under), '<base> · words: jieba' otherwise.
 */
export function backendWithTokenizer(base: string, tokenizer: CaseTokenizer | undefined): string {
  if (!tokenizer || tokenizer.language === 'en' || tokenizer.language === 'und') return base;
  return `${base} · words: ${tokenizer.name}`;
}

/** `{ caseTokenizer: name }` for a lexical metric's details. */
export function tokenizerDetail(tokenizer: CaseTokenizer | undefined): { caseTokenizer: string } {
  return { caseTokenizer: tokenizer?.name ?? 'intl-segmenter' };
}
