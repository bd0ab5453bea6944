/**
 * The text layer: sentences, words and tokens through Intl.Segmenter, so that Chinese, Japanese,
 * Thai and other scripts without spaces segment into words, not into one long token.
 *
 * Offsets are UTF-16 indices into the string the caller passed, so spans can be highlighted in
 * the original text.
 */

export interface Segment {
  text: string;
  start: number;
  end: number;
}

const segmenterCache = new Map<string, Intl.Segmenter>();

function segmenter(locale: string | undefined, granularity: 'word' | 'sentence'): Intl.Segmenter {
  const key = `${locale ?? ''}|${granularity}`;
  let seg = segmenterCache.get(key);
  if (!seg) {
    seg = new Intl.Segmenter(locale, { granularity });
    segmenterCache.set(key, seg);
  }
  return seg;
}

/** One CJK character (kana, Han, Hangul); shared so every metric agrees on what counts as CJK. */
export const CJK_CHAR = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]/u;
const HIRAGANA_KATAKANA = /[\u3040-\u30ff]/u;
const HANGUL = /[\uac00-\ud7af]/u;

/** True when the text contains Chinese, Japanese or Korean characters. */
export function hasCjk(text: string): boolean {
  return CJK_CHAR.test(text);
}

/**
 * A locale hint for the segmenter. ICU's word dictionary is shared, but Japanese kana text
 * segments better with 'ja' and Chinese with 'zh'.
 */
export function guessLocale(text: string): string | undefined {
  if (HIRAGANA_KATAKANA.test(text)) return 'ja';
  if (HANGUL.test(text)) return 'ko';
  if (CJK_CHAR.test(text)) return 'zh';
  return undefined;
}

/** Unicode NFKC plus collapsed whitespace; the form all metrics compare. */
export function normalizeText(text: string): string {
  return text.normalize('NFKC').replace(/\s+/gu, ' ').trim();
}

/**
 * Sentences with offsets. Intl.Segmenter alone splits after "Mr." and "U.S."; we merge a split
 * when the next piece starts lower-case, which is never a new sentence in Latin scripts. Line
 * breaks also end a sentence (bullet lists, headlines).
 */
export function splitSentences(text: string, locale = guessLocale(text)): Segment[] {
  const out: Segment[] = [];
  for (const part of segmenter(locale, 'sentence').segment(text)) {
    // A blank line or a bullet list is a boundary even when the line lacks a full stop.
    let offset = part.index;
    for (const line of part.segment.split(/(\n+)/u)) {
      if (line.length > 0 && !/^\n+$/u.test(line)) pushTrimmed(out, line, offset);
      offset += line.length;
    }
  }
  return splitTokenisedEnds(mergeFalseBreaks(out, text));
}

function pushTrimmed(out: Segment[], piece: string, offset: number): void {
  const lead = piece.length - piece.trimStart().length;
  const trimmed = piece.trim();
  if (!trimmed) return;
  out.push({ text: trimmed, start: offset + lead, end: offset + lead + trimmed.length });
}

// Titles and initials that ICU takes for a sentence end ("Mr. Smith", "J. R. R. Tolkien").
const ABBREVIATION_END =
  /(?:^|[\s(])(?:Mr|Mrs|Ms|Dr|Prof|Sr|Jr|St|Gen|Col|Lt|Sgt|Capt|Gov|Sen|Rep|Rev|Mt|No|Vol|vs|[A-Z])\.$/u;

function mergeFalseBreaks(sentences: Segment[], text: string): Segment[] {
  const merged: Segment[] = [];
  for (const s of sentences) {
    const prev = merged[merged.length - 1];
    const between = prev ? text.slice(prev.end, s.start) : '';
    const falseBreak = /^[a-z]/u.test(s.text) || ABBREVIATION_END.test(prev?.text ?? '');
    if (prev && !between.includes('\n') && falseBreak) {
      prev.end = s.end;
      prev.text = text.slice(prev.start, prev.end);
    } else {
      merged.push({ ...s });
    }
  }
  return merged;
}

/**
 * Word segmentation in pieces of about this many UTF-16 units. V8 before 12 (Node 20) takes time
 * quadratic in the length of one segmented string (crbug 326176949: 140k characters took 14 s),
 * and words never span whitespace, so cutting there changes nothing.
 */
export const WORD_CHUNK = 8192;

// Where a piece may end: after whitespace, or after CJK punctuation (no spaces in those scripts).
const SAFE_CUT = /[\s\u3000-\u3003\uff01\uff0c\uff1a\uff1b\uff1f]/u;

function chunkEnd(text: string, start: number): number {
  const limit = start + WORD_CHUNK;
  if (limit >= text.length) return text.length;
  for (let i = limit; i > start + WORD_CHUNK / 2; i--) {
    if (SAFE_CUT.test(text[i - 1])) return i;
  }
  // No safe place in the second half (a very long token): cut, but never inside a surrogate pair.
  const code = text.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
}

interface WordPart {
  segment: string;
  index: number;
  isWordLike: boolean;
}

/** Intl.Segmenter word segments of the whole text, segmented piece by piece (see WORD_CHUNK). */
export function* wordSegments(text: string, locale = guessLocale(text)): Generator<WordPart> {
  const words = segmenter(locale, 'word');
  for (let start = 0; start < text.length;) {
    const end = chunkEnd(text, start);
    for (const part of words.segment(text.slice(start, end))) {
      yield {
        segment: part.segment,
        index: part.index + start,
        isWordLike: part.isWordLike ?? false,
      };
    }
    start = end;
  }
}

/**
 * The words of the last texts split, shared (so read-only). One case splits its source five or
 * six times (extractiveness and quality-offline both analyse it, quality-offline and source
 * coverage read its salient words, the lead and each sentence), and a data set's rows often share
 * a source: Intl.Segmenter was 600 ms of the 830 ms those three metrics took over 120 SummEval
 * rows. Bounded by characters: 600,000 of English hold about 9 MB of segments (30 news articles);
 * a longer text is split each time, as before.
 */
const recentWords = new Map<string, readonly Segment[]>();
const RECENT_WORDS_CHARS = 600_000;
let recentWordsChars = 0;

/** Word-like segments (letters, digits, ideographs); punctuation and spaces dropped. */
export function splitWords(text: string, locale = guessLocale(text)): readonly Segment[] {
  const key = locale === undefined ? text : `${locale}\u0000${text}`;
  const known = recentWords.get(key);
  if (known) {
    // Most recently used last, so eviction drops the oldest.
    recentWords.delete(key);
    recentWords.set(key, known);
    return known;
  }
  const out: Segment[] = [];
  for (const part of wordSegments(text, locale)) {
    if (part.isWordLike) {
      out.push({ text: part.segment, start: part.index, end: part.index + part.segment.length });
    }
  }
  if (key.length <= RECENT_WORDS_CHARS) {
    recentWords.set(key, out);
    recentWordsChars += key.length;
    for (const [oldest] of recentWords) {
      if (recentWordsChars <= RECENT_WORDS_CHARS) break;
      recentWords.delete(oldest);
      recentWordsChars -= oldest.length;
    }
  }
  return out;
}

/**
 * Word-and-punctuation tokens (what SPEC §2 counts for entity density): every word-like segment
 * and every punctuation mark, whitespace dropped.
 */
export function splitTokens(text: string, locale = guessLocale(text)): Segment[] {
  const out: Segment[] = [];
  for (const part of wordSegments(text, locale)) {
    if (part.isWordLike) {
      out.push({ text: part.segment, start: part.index, end: part.index + part.segment.length });
    } else if (/\S/u.test(part.segment)) {
      // Non-word segments can hold several marks (e.g. '."'): each mark is a token.
      let i = part.index;
      for (const ch of part.segment) {
        if (/\S/u.test(ch)) out.push({ text: ch, start: i, end: i + ch.length });
        i += ch.length;
      }
    }
  }
  return out;
}

export function countTokens(text: string): number {
  return splitTokens(text).length;
}

export function countWords(text: string): number {
  return splitWords(text).length;
}

// A stand-alone sentence-final token in tokenised text (" . ", " ? ", " !! "), optionally followed
// by closing quotes or brackets as their own tokens (PTB: '' or -rrb-).
const TOKENISED_END =
  /(?<=\S)[ \t]+(?:\.|[!?]+)(?:[ \t]+(?:''|'|"|\u201d|\u2019|\)|-rrb-))*(?=[ \t]+\S)/gu;

/**
 * Each piece is cut again after a stand-alone `.`, `?` or `!` token, which
 * ordinary prose never has but tokenised, lower-cased text (SummEval's PTB-tokenised summaries:
 * "he was arrested . police said ...") uses for every sentence end; ICU and the lower-case merge
 * rule of `splitSentences` keep such text in one piece. A spaced ellipsis (". . .") is not cut.
 */
function splitTokenisedEnds(sentences: Segment[]): Segment[] {
  const out: Segment[] = [];
  for (const s of sentences) {
    let from = 0;
    for (const m of s.text.matchAll(TOKENISED_END)) {
      const at = m.index;
      const end = at + m[0].length;
      const before = s.text.slice(0, at);
      const after = s.text.slice(end);
      if (/(?:^|\s)\.$/u.test(before) || /^\s+\.(?:\s|$)/u.test(after)) continue; // ". . ."
      pushPiece(out, s, from, end);
      from = end;
    }
    pushPiece(out, s, from, s.text.length);
  }
  return out;
}

function pushPiece(out: Segment[], s: Segment, from: number, to: number): void {
  const raw = s.text.slice(from, to);
  const lead = raw.length - raw.trimStart().length;
  const text = raw.trim();
  if (!text) return;
  out.push({ text, start: s.start + from + lead, end: s.start + from + lead + text.length });
}
