/** The fact check's constants and its tokens: words, CJK characters and Russian stems, as lookup keys. */

export const FACT_CHECK_BASE = 'fact-check';
/** Quotes are found with at least this share of their words, in order, in one source window. */
export const QUOTE_SHARE = 0.8;
/** A source longer than this (≈ 650,000 English words) is checked on its first part, saying so. */
export const FACT_SOURCE_CHARS = 4_000_000;
/** Source sentences, per summary sentence, that a long source is aligned on. */
export const ALIGN_CANDIDATES = 40;
/** Up to this many source sentences every sentence is aligned on. */
export const ALIGN_ALL_UP_TO = 1500;
/** Label of a highlighted item the source does not have. */
export const NOT_IN_SOURCE_LABEL = 'not in source';

// ── tokens ───────────────────────────────────────────────────────────────────────────────────

const CLASS = new Uint8Array(65536); // 0 unknown, 1 word, 2 CJK (a token per character), 3 other
const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;
const CJK_CHAR_RE = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]/u;

function charClass(code: number): number {
  let c = CLASS[code];
  if (c === 0) {
    const ch = String.fromCharCode(code);
    c = CJK_CHAR_RE.test(ch) ? 2 : (code >= 0xd800 && code <= 0xdfff) || WORD_CHAR.test(ch) ? 1 : 3;
    CLASS[code] = c;
  }
  return c;
}

const CYRILLIC = /\p{Script=Cyrillic}/u;
const RU_ENDINGS = [
  'ями',
  'ами',
  'ого',
  'его',
  'ому',
  'ему',
  'ыми',
  'ими',
  'иях',
  'ием',
  'иям',
  'ией',
  'ый',
  'ий',
  'ой',
  'ей',
  'ою',
  'ею',
  'ая',
  'яя',
  'ую',
  'юю',
  'ое',
  'ее',
  'ые',
  'ие',
  'ым',
  'им',
  'ых',
  'их',
  'ом',
  'ем',
  'ах',
  'ях',
  'ам',
  'ям',
  'а',
  'я',
  'у',
  'ю',
  'е',
  'и',
  'ы',
  'о',
  'ь',
];

/** A Russian word minus its case ending ("Ивановой", "Иванова" → "иванов"). */
export function russianStem(word: string): string {
  if (word.length < 4) return word;
  for (const e of RU_ENDINGS) {
    if (word.endsWith(e) && word.length - e.length >= 3) return word.slice(0, -e.length);
  }
  return word;
}

const keyCache = new Map<string, string>();

/** The comparable form of one token: lower case, diacritics folded, Russian stemmed. */
export function tokenKey(token: string): string {
  if (/^[\x20-\x7e]*$/u.test(token)) return token.toLowerCase();
  const known = keyCache.get(token);
  if (known !== undefined) return known;
  let key = token.normalize('NFKC');
  if (CYRILLIC.test(key)) {
    // Cyrillic keeps й (NFKD would fold it to и and hide the case endings).
    key = russianStem(key.toLowerCase().replace(/ё/gu, 'е'));
  } else if (!CJK_CHAR_RE.test(key)) {
    key = key
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase();
  }
  if (keyCache.size > 50_000) keyCache.clear();
  keyCache.set(token, key);
  return key;
}

export interface Tokens {
  keys: string[];
  starts: number[];
  ends: number[];
}

/**
 * Word tokens of `text` (letters, marks, digits; each CJK character alone), with the possessive
 * "'s" dropped. Linear and allocation-light: this runs over the whole source.
 */
export function factTokens(text: string, from = 0, to = text.length): Tokens {
  const keys: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  for (let i = from; i < to;) {
    const c = charClass(text.charCodeAt(i));
    if (c === 3) {
      i++;
      continue;
    }
    if (c === 2) {
      keys.push(text[i]);
      starts.push(i);
      ends.push(i + 1);
      i++;
      continue;
    }
    let j = i + 1;
    while (j < to && charClass(text.charCodeAt(j)) === 1) j++;
    const word = text.slice(i, j);
    const possessive =
      (word === 's' || word === 'S') &&
      i >= 2 &&
      /['’]/u.test(text[i - 1]) &&
      charClass(text.charCodeAt(i - 2)) === 1;
    if (!possessive) {
      keys.push(tokenKey(word));
      starts.push(i);
      ends.push(j);
    }
    i = j;
  }
  return { keys, starts, ends };
}

// ── names ────────────────────────────────────────────────────────────────────────────────────
