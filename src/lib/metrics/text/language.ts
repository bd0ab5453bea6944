/**
 * The language of a case's text, decided once per case and read by every metric that depends on
 * it: the tokenizer (case-tokenizer.ts), entity density (the English-only recogniser says n/a on
 * other languages) and the judge prompts (told to answer in the source's language).
 *
 * cld3 (cld3-asm) detects the language; its wasm (~1 MB, embedded in its JS) is loaded only in
 * the language worker (workers/language.worker.ts) or in Node. Short texts and texts cld3 is
 * unsure about fall back to the dominant script (kana → ja, Hangul → ko, Han → zh, Cyrillic → ru,
 * …), which is what the tokenizer needs most. Codes are BCP-47 primary subtags ('zh', 'ja', 'ru',
 * 'id', 'en'); 'und' when neither cld3 nor the script can tell.
 */

/** How the language of a case was decided. */
export type LanguageBasis = 'detected' | 'script' | 'chosen' | 'unknown';

export interface TextLanguage {
  /** BCP-47 primary language subtag, or 'und'. */
  code: string;
  basis: LanguageBasis;
  /** cld3's probability, when cld3 decided. */
  probability?: number;
}

/** What cld3's `findLanguage` answers (cld3-asm's LanguageResult, the fields read here). */
export interface Cld3Result {
  language: string;
  probability: number;
  is_reliable: boolean;
}

export interface LanguageIdentifier {
  findLanguage(text: string): Cld3Result;
}

/**
 * Below this many letters cld3 guesses (it was trained on sentences); the script still tells
 * CJK, Hangul or Cyrillic apart from a handful of characters.
 */
export const MIN_DETECT_LETTERS = 24;

/** cld3 reads at most this much; the start of a text says its language as well as the whole. */
const DETECT_CHARS = 4000;

export const UNKNOWN_LANGUAGE: TextLanguage = Object.freeze({ code: 'und', basis: 'unknown' });

/** cld3's legacy or script-suffixed codes, as BCP-47 primary subtags. */
const LEGACY_CODES: Record<string, string> = { iw: 'he', jw: 'jv', in: 'id', ji: 'yi', fil: 'tl' };

export function normalizeLanguageCode(code: string): string {
  const primary = code.trim().toLowerCase().split(/[-_]/u)[0] ?? '';
  if (!/^[a-z]{2,3}$/u.test(primary)) return 'und';
  return LEGACY_CODES[primary] ?? primary;
}

const SCRIPTS: Array<{ code: string; test: RegExp }> = [
  { code: 'ja', test: /[\p{Script=Hiragana}\p{Script=Katakana}]/u },
  { code: 'ko', test: /\p{Script=Hangul}/u },
  { code: 'zh', test: /\p{Script=Han}/u },
  { code: 'ru', test: /\p{Script=Cyrillic}/u },
  { code: 'th', test: /\p{Script=Thai}/u },
  { code: 'ar', test: /\p{Script=Arabic}/u },
  { code: 'he', test: /\p{Script=Hebrew}/u },
  { code: 'el', test: /\p{Script=Greek}/u },
  { code: 'hi', test: /\p{Script=Devanagari}/u },
];

const LETTER = /\p{L}/u;
/**
 * A character outside Basic Latin, Latin-1, Latin Extended-A/B, General Punctuation, the
 * currency signs and their combining marks: only past these can a letter of another script be (the letters in them are
 * Latin, or of no script, as µ).
 */
export const BEYOND_LATIN = /[\u0250-\u1fff\u2070-\u209f\u2100-\u{10ffff}]/u;
const LATIN_LETTER = /\p{Script=Latin}/u;

function letterCount(text: string): number {
  let n = 0;
  for (const ch of text) if (LETTER.test(ch)) n++;
  return n;
}

/**
 * The language the dominant non-Latin script implies, or undefined for Latin text. Japanese mixes
 * Han with kana, so any kana share above a tenth of the CJK letters makes it Japanese.
 */
export function languageFromScript(text: string): string | undefined {
  // Most texts hold nothing but Latin letters, punctuation and symbols: one native scan says so
  // (a cold process scoring 600 pairs spent 26 ms in the loop below, 9 ms here).
  if (!BEYOND_LATIN.test(text)) return undefined;
  const counts = new Map<string, number>();
  let latin = 0;
  for (let i = 0; i < text.length; i++) {
    // ASCII (most of any English text) without a regex: a score of 600 pairs spent a tenth of
    // its time here testing each character against \p{L}.
    const unit = text.charCodeAt(i);
    if (unit < 0x80) {
      if ((unit | 0x20) >= 0x61 && (unit | 0x20) <= 0x7a) latin++;
      continue;
    }
    const point = text.codePointAt(i)!;
    if (point > 0xffff) i++;
    const ch = String.fromCodePoint(point);
    if (!LETTER.test(ch)) continue;
    if (LATIN_LETTER.test(ch)) {
      latin++;
      continue;
    }
    const script = SCRIPTS.find((s) => s.test.test(ch));
    if (script) counts.set(script.code, (counts.get(script.code) ?? 0) + 1);
  }
  const kana = counts.get('ja') ?? 0;
  const han = counts.get('zh') ?? 0;
  if (kana > 0 && kana >= (kana + han) / 10) {
    counts.set('ja', kana + han);
    counts.delete('zh');
  } else if (kana > 0) {
    counts.set('zh', kana + han);
    counts.delete('ja');
  }
  let best: string | undefined;
  let bestCount = 0;
  for (const [code, n] of counts) {
    if (n > bestCount) {
      best = code;
      bestCount = n;
    }
  }
  // CJK packs a word into one or two characters: a tenth of the letters is already most words.
  const cjk = best === 'zh' || best === 'ja' || best === 'ko';
  if (!best || (cjk ? bestCount * 10 < latin : bestCount < latin)) return undefined;
  return best;
}

/** The language of `text` (a case's source and summary joined). */
export function detectLanguage(text: string, identifier?: LanguageIdentifier): TextLanguage {
  const sample = text.slice(0, DETECT_CHARS);
  const script = languageFromScript(sample);
  if (identifier && letterCount(sample) >= MIN_DETECT_LETTERS) {
    const found = identifier.findLanguage(sample);
    const code = normalizeLanguageCode(found.language);
    // A romanised code (zh-Latn) on CJK text, or a Latin guess on Cyrillic text, is a miss.
    const romanised = /-latn$/iu.test(found.language);
    const agrees = script === undefined || scriptOf(code) === scriptOf(script);
    if (found.is_reliable && code !== 'und' && !romanised && agrees) {
      return { code, basis: 'detected', probability: found.probability };
    }
  }
  if (script) return { code: script, basis: 'script' };
  return UNKNOWN_LANGUAGE;
}

/** The language of each text, in order (a run's rows in one call to the language worker). */
export function detectLanguages(
  texts: readonly string[],
  identifier?: LanguageIdentifier,
): TextLanguage[] {
  return texts.map((text) => detectLanguage(text, identifier));
}

/** The script family a language is written in, for checking cld3 against the text's script. */
function scriptOf(code: string): string {
  switch (code) {
    case 'zh':
    case 'ja':
      return 'cjk';
    case 'ko':
      return 'ko';
    case 'ru':
    case 'uk':
    case 'bg':
    case 'sr':
    case 'mk':
    case 'be':
    case 'kk':
    case 'ky':
    case 'mn':
    case 'tg':
      return 'cyrillic';
    default:
      return SCRIPTS.some((s) => s.code === code) ? code : 'latin';
  }
}

/** The text a case's language is detected on: its source and summary. */
export function languageSample(input: { source: string; summary: string }): string {
  return `${input.source}\n${input.summary}`;
}

/** What a data-set row's language is detected on: the start of its source and of its summary. */
export const ROW_SAMPLE_CHARS = { source: 700, summary: 300 } as const;

/**
 * A row's detection sample: a thousand characters tell cld3 a language as surely as four
 * thousand (its cost grows with the text up to about that), so that a run detects 600 rows in a
 * fraction of a second; the summary's start is kept, however long the source.
 */
export function rowLanguageSample(input: { source: string; summary: string }): string {
  return languageSample({
    source: input.source.slice(0, ROW_SAMPLE_CHARS.source),
    summary: input.summary.slice(0, ROW_SAMPLE_CHARS.summary),
  });
}

/** True when the code names English or nothing known: English-only tools serve it as today. */
export function isEnglishOrUnknown(code: string | undefined): boolean {
  return code === undefined || code === 'en' || code === 'und';
}

/** The languages the override list offers (the interface's five first). */
export const LANGUAGE_CHOICES = [
  'en',
  'zh',
  'ja',
  'ru',
  'id',
  'ko',
  'de',
  'fr',
  'es',
  'pt',
  'it',
  'nl',
  'pl',
  'tr',
  'uk',
  'vi',
  'th',
  'ar',
  'hi',
] as const;

/** A language's English name ("Chinese"), for prompts and logs; the page words it in its own. */
export function englishLanguageName(code: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
}

let cld3: Promise<LanguageIdentifier> | undefined;

/** cld3, loaded once (in a worker or Node: the module carries its ~1 MB wasm inline). */
export function loadLanguageIdentifier(): Promise<LanguageIdentifier> {
  // The CommonJS build: the ESM build imports the emscripten runtime as a namespace object,
  // which a bundler leaves uncallable ("t is not a function" in the browser).
  cld3 ??= import('cld3-asm/dist/cjs/index.js').then(async ({ loadModule }) => {
    const factory = await loadModule();
    return factory.create(0, DETECT_CHARS);
  });
  return cld3;
}
