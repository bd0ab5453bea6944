/**
 * The built-in named-entity recogniser: compromise 14 (rule-based English NLP, no download) plus
 * the compromise-dates plugin, mapped onto a label set close to spaCy's OntoNotes entities, which is
 * what Chain of Density (Adams et al. 2023) counted.
 *
 * Labels (spaCy equivalents in brackets):
 * - PERSON (PERSON): `people()`, without a leading title ("Dr.", "Sir", "President").
 * - ORG (ORG): `organizations()`, and `places()` that end in Council, University, Ministry, …
 * - PLACE (GPE + LOC + FAC): `places()`, plus U.S./UK/EU-style acronyms.
 * - NORP (NORP): demonyms ("Chinese", "French").
 * - DATE (DATE): runs of #Date terms with a date anchor (month, weekday, year, holiday, season,
 *   quarter, duration, today/yesterday/…), ages ("26-year-old"), years and decades.
 * - TIME (TIME): the same runs when they hold a time of day ("4:30pm", "10 a.m.", "noon",
 *   "this morning") or a duration under a day ("30 minutes").
 * - MONEY (MONEY): numbers with a currency ("$2.6 million", "€5bn", "5 million dollars").
 * - PERCENT (PERCENT): "20%", "20 percent", "7 per cent", "3 percentage points".
 * - QUANTITY (QUANTITY): a number followed by a unit ("5 km", "30 tonnes").
 * - ORDINAL (ORDINAL): "first", "second", "21st".
 * - CARDINAL (CARDINAL): every other number ("three", "2.6 million", "6,000").
 * - MISC (PRODUCT, EVENT, WORK_OF_ART, LAW, unknown ORG): capitalised proper-noun runs that none
 *   of the above claimed ("Fed", "Tour"), and leftover all-capital acronyms.
 *
 * Spans: compromise's term offsets (`.json({offset: true})`), which are UTF-16 indices into the
 * original string; each term is checked against the text and re-aligned if it ever disagrees.
 * Spans never include edge punctuation, a leading preposition ("on Tuesday" → "Tuesday"), a
 * possessive "'s", or lower-case edge words; they are split at commas, semicolons, colons,
 * brackets and double quotes (so "Paris, France" is two places, while "March 3, 2021" stays one
 * date because a year or month follows the comma).
 *
 * Overlaps: the longer span wins; at equal length the more specific label wins, in the order
 * MONEY > PERCENT > QUANTITY > TIME > DATE > PERSON > ORG > PLACE > NORP > ORDINAL > CARDINAL >
 * MISC. So "$2.6 million" is one MONEY (not CARDINAL "2.6 million"), "April 2014" one DATE (not
 * CARDINAL "2014"). MISC is only taken where nothing else matched.
 *
 * Languages: compromise reads English only. On other text it still finds digits and some
 * capitalised words (on Chinese or Japanese text, where compromise cannot split words, a small
 * regex finds digit numbers, percentages and 年/月/日 dates instead), so entity density there
 * counts numbers mostly and undercounts. `languageSupport(text)` tells the caller so; see
 * `assessLanguage`.
 *
 * Runs in a Web Worker and in Node: no Node APIs, plugins are loaded once at module level.
 */
import nlp from 'compromise';
import datesPlugin from 'compromise-dates';
import type { TextSpan } from '../types.ts';
import { throwIfAborted } from './backends.ts';
import { CJK_CHAR, splitSentences } from '../text/tokenize.ts';
import type { LanguageAwareRecognizer } from './entity-density.ts';

nlp.extend(datesPlugin);

export type EntityLabel =
  | 'PERSON'
  | 'ORG'
  | 'PLACE'
  | 'NORP'
  | 'DATE'
  | 'TIME'
  | 'MONEY'
  | 'PERCENT'
  | 'QUANTITY'
  | 'ORDINAL'
  | 'CARDINAL'
  | 'MISC';

export const ENTITY_LABELS: readonly EntityLabel[] = [
  'PERSON',
  'ORG',
  'PLACE',
  'NORP',
  'DATE',
  'TIME',
  'MONEY',
  'PERCENT',
  'QUANTITY',
  'ORDINAL',
  'CARDINAL',
  'MISC',
];

/** Higher wins when two overlapping spans have the same length. */
const PRIORITY: Record<EntityLabel, number> = {
  MONEY: 12,
  PERCENT: 11,
  QUANTITY: 10,
  TIME: 9,
  DATE: 8,
  PERSON: 7,
  ORG: 6,
  PLACE: 5,
  NORP: 4,
  ORDINAL: 3,
  CARDINAL: 2,
  MISC: 1,
};

const [major = '14', minor = '17'] = String((nlp as unknown as { version?: string }).version).split(
  '.',
);

/** The backend name stored with every score: method + library version + plugin. */
export const COMPROMISE_BACKEND = `compromise-${major}.${minor} (+dates)`;

// ---------------------------------------------------------------------------------------------
// Language check

/** Frequent English function words (none of them frequent in the languages below). */
const ENGLISH_WORDS = new Set(
  (
    'the of and to is was for on that with as by at from it he she they we you his her their ' +
    'its our this these those be been are were has have had not but or which who will would ' +
    'can could said after before into over than more most also about up out one two new all so ' +
    'if no when there what him them do did does my me your just then only other some such'
  ).split(' '),
);

/** Frequent function words of other Latin-script languages (Indonesian/Malay, Spanish,
 * Portuguese, French, Italian, German, Dutch), without words English shares ("a", "in"). */
const OTHER_WORDS = new Set(
  (
    'yang dan di ke dari ini itu untuk dengan tidak ada akan pada juga atau dalam oleh sebagai ' +
    'adalah bisa karena saat lebih telah sudah hanya tersebut mereka kami kita jika ' +
    'el la los las del que y en un una por con para es se su al lo como más pero sus le ' +
    'les des du et est une dans pour qui sur pas au avec ce sont aux ou ' +
    'os da do em não um com uma dos ao das ' +
    'il di che per non sono della delle nel alla gli ' +
    'der das und ist nicht ein eine zu den von mit sich auf für dem des im auch werden wird ' +
    'het een van en niet zijn op te dat voor met ook'
  ).split(' '),
);

export interface LanguageAssessment {
  /** False when compromise (English only) will miss most entities of this text. */
  supported: boolean;
  /** Share of letters in the Latin script (1 for text without letters). */
  latinShare: number;
  /** Frequent English / other-language function words among the Latin words. */
  englishWords: number;
  otherWords: number;
  /** Why it is not supported, for the UI. */
  note?: string;
}

/**
 * Whether compromise can read this text. Mostly non-Latin letters → not supported. Latin text
 * where frequent function words of other languages (Indonesian, Spanish, French, German, …)
 * outnumber English ones, at least 3 of them → not supported either. Dense English with few
 * function words ("Williams beat Errani 4-6 7-6(3) 6-3.") stays supported.
 */
export function assessLanguage(text: string): LanguageAssessment {
  let letters = 0;
  let latin = 0;
  for (const m of text.matchAll(/\p{L}/gu)) {
    letters++;
    if (/\p{Script=Latin}/u.test(m[0])) latin++;
  }
  const latinShare = letters === 0 ? 1 : latin / letters;
  let englishWords = 0;
  let otherWords = 0;
  for (const [w] of text.toLowerCase().matchAll(/\p{Script=Latin}+/gu)) {
    if (ENGLISH_WORDS.has(w)) englishWords++;
    else if (OTHER_WORDS.has(w)) otherWords++;
  }
  const counts = { latinShare, englishWords, otherWords };
  if (latinShare < 0.5) {
    return {
      supported: false,
      ...counts,
      note: 'The text is mostly in a non-Latin script; compromise reads English only and finds mostly numbers here.',
    };
  }
  if (otherWords >= 3 && otherWords > englishWords) {
    return {
      supported: false,
      ...counts,
      note: 'The text does not look like English; compromise reads English only and finds mostly numbers and some capitalised names here.',
    };
  }
  return { supported: true, ...counts };
}

// ---------------------------------------------------------------------------------------------
// compromise output, typed

interface RawTerm {
  text: string;
  pre: string;
  post: string;
  normal: string;
  tags: string[];
  offset: { index: number; start: number; length: number };
}
interface RawMatch {
  terms: RawTerm[];
  offset?: { index: number; start: number; length: number };
}

interface Tok {
  text: string;
  normal: string;
  pre: string;
  post: string;
  tags: Set<string>;
  start: number;
  end: number;
  sentence: number;
  /** False if the term could not be found in the original text (then no span may use it). */
  aligned: boolean;
}

type Doc = ReturnType<typeof nlp>;
/** Any compromise selection: its terms, the same objects as in the parsed document. */
interface View {
  readonly docs: readonly (readonly object[])[];
}

/** Global term index of every term object of a parsed document. */
type TermIndex = Map<object, number>;

function termIndex(doc: Doc): TermIndex {
  const index: TermIndex = new Map();
  for (const sentence of doc.docs) for (const term of sentence) index.set(term, index.size);
  return index;
}

/** [first, last] global term indices of each match of a selection. (Reading `.docs` is ~10×
 * faster than `.json()` on a selection.) */
function ranges(view: View, index: TermIndex): [number, number][] {
  const out: [number, number][] = [];
  for (const match of view.docs) {
    const first = match.length ? index.get(match[0]) : undefined;
    const last = match.length ? index.get(match[match.length - 1]) : undefined;
    if (first !== undefined && last !== undefined && last >= first) out.push([first, last]);
  }
  return out;
}

function tokens(doc: Doc, text: string, base: number): Tok[] {
  const out: Tok[] = [];
  let cursor = 0;
  const sentences = doc.json({ offset: true, terms: { offset: true } }) as RawMatch[];
  sentences.forEach((sentence, s) => {
    for (const t of sentence.terms) {
      let start = t.offset.start;
      let aligned = text.slice(start, start + t.text.length) === t.text;
      if (!aligned) {
        const found = t.text ? text.indexOf(t.text, cursor) : -1;
        if (found >= 0) {
          start = found;
          aligned = true;
        }
      }
      const end = start + t.text.length;
      if (aligned) cursor = end;
      out.push({
        text: t.text,
        normal: t.normal,
        pre: t.pre,
        post: t.post,
        tags: new Set(t.tags),
        start: start + base,
        end: end + base,
        sentence: s,
        aligned,
      });
    }
  });
  return out;
}

// ---------------------------------------------------------------------------------------------
// Span building on term ranges

interface Candidate {
  start: number;
  end: number;
  label: EntityLabel;
}

const UPPER = /\p{Lu}/u;

const BREAK_AFTER = /[,;:()[\]{}"“”!?|]/u;
const BREAK_BEFORE = /[()[\]{}"“”|]/u;

function isPossessive(t: Tok): boolean {
  return t.tags.has('Possessive') && /['’]s?$/u.test(t.text);
}

function breaksAfter(t: Tok): boolean {
  return BREAK_AFTER.test(t.post);
}

/** Split [a, b] at punctuation between terms; `keep(i)` may veto a break after term i. */
function splitAtPunctuation(
  toks: Tok[],
  a: number,
  b: number,
  keep: (i: number) => boolean = () => false,
): [number, number][] {
  const parts: [number, number][] = [];
  let from = a;
  for (let i = a; i < b; i++) {
    // A possessive ends a name: "Pakistan's Balochistan" is two places.
    const brk = breaksAfter(toks[i]) || BREAK_BEFORE.test(toks[i + 1].pre) || isPossessive(toks[i]);
    if (brk && !keep(i)) {
      parts.push([from, i]);
      from = i + 1;
    }
  }
  parts.push([from, b]);
  return parts;
}

function has(t: Tok, ...tags: string[]): boolean {
  return tags.some((tag) => t.tags.has(tag));
}

/** Shrink [a, b] while an edge term is empty or dropped; null when nothing is left. */
function trim(
  toks: Tok[],
  a: number,
  b: number,
  dropLeft: (t: Tok, i: number) => boolean,
  dropRight: (t: Tok, i: number) => boolean = dropLeft,
): [number, number] | null {
  while (a <= b && (toks[a].text === '' || dropLeft(toks[a], a))) a++;
  while (b >= a && (toks[b].text === '' || dropRight(toks[b], b))) b--;
  return a <= b ? [a, b] : null;
}

const TRAILING_ABBREVIATIONS = new Set(['inc', 'corp', 'co', 'ltd', 'jr', 'sr', 'bros', 'plc']);

/** Character span of terms [a, b]; null when a term is unaligned or the span is empty. */
function charSpan(
  toks: Tok[],
  a: number,
  b: number,
  text: string,
  label: EntityLabel,
): Candidate | null {
  for (let i = a; i <= b; i++) {
    // Unalignable terms, web addresses and handles never make an entity.
    if (!toks[i].aligned || has(toks[i], 'Url', 'Email', 'AtMention', 'HashTag')) return null;
  }
  let first = a;
  let last = b;
  while (first <= last && toks[first].text === '') first++;
  while (last >= first && toks[last].text === '') last--;
  if (first > last) return null;
  const start = toks[first].start;
  let end = toks[last].end;
  const tail = toks[last];
  // "Wenger's" → "Wenger", "Jones'" → "Jones", "next month's" → "next month".
  const possessive = /(?:['’]s|s['’])$/u.exec(tail.text);
  if (possessive && (tail.tags.has('Possessive') || /['’]s$/u.test(tail.text))) {
    end -= possessive[0].endsWith('s') ? 2 : 1;
  }
  // Edge punctuation that compromise left inside a term ("'Fixed", "2014.").
  while (end > start && /[,;:!?"“”‘'’([{]/u.test(text[end - 1])) end--;
  if (
    end > start &&
    text[end - 1] === '.' &&
    !/\.\p{L}\.?$|\p{L}\.\p{L}/u.test(text.slice(start, end))
  )
    end--;
  // "Apple Inc." keeps its full stop.
  if (TRAILING_ABBREVIATIONS.has(tail.normal.replace(/\.$/u, '')) && text[end] === '.') end++;
  let s = start;
  while (s < end && /[\p{Ps}\p{Pi}"'“‘]/u.test(text[s])) s++;
  // Chinese or Japanese glued to Latin text ("Github）来展示…"): cjkSpans handles those terms.
  if (s >= end || CJK_CHAR.test(text.slice(s, end))) return null;
  return { start: s, end, label };
}

function hasUpper(t: Tok): boolean {
  return UPPER.test(t.text);
}

function noUpper(t: Tok): boolean {
  return !UPPER.test(t.text);
}

// --- names -----------------------------------------------------------------------------------

const ORG_HEADS = new Set(
  (
    'council committee commission ministry department university college school institute ' +
    'agency authority bank party club association federation union company corporation group ' +
    'foundation court parliament senate assembly police service services office board trust ' +
    'league team fc'
  ).split(' '),
);
const PLACE_ACRONYMS = new Set(['u.s.', 'us', 'u.s', 'usa', 'u.s.a.', 'uk', 'u.k.', 'eu', 'uae']);

function nameSpans(
  toks: Tok[],
  index: TermIndex,
  view: View,
  label: EntityLabel,
  text: string,
  out: Candidate[],
): void {
  for (const [a, b] of ranges(view, index)) {
    for (const [p, q] of splitAtPunctuation(toks, a, b)) {
      const r = trim(
        toks,
        p,
        q,
        (t, i) =>
          noUpper(t) ||
          has(t, 'Preposition', 'Conjunction', 'Determiner') ||
          (has(t, 'Honorific') && i < q),
        (t) => noUpper(t) || has(t, 'Preposition', 'Conjunction', 'Determiner'),
      );
      if (!r) continue;
      let l = label;
      if (l === 'PLACE' && ORG_HEADS.has(toks[r[1]].normal)) l = 'ORG';
      // compromise calls "Argentine" or "Pakistani" an organisation at times.
      if (toks.slice(r[0], r[1] + 1).every((t) => t.text === '' || has(t, 'Demonym'))) l = 'NORP';
      // A lone title ("President") or a lone honorific is not a person.
      if (l === 'PERSON' && r[0] === r[1] && has(toks[r[0]], 'Honorific')) continue;
      const c = charSpan(toks, r[0], r[1], text, l);
      if (c) out.push(c);
    }
  }
}

// --- dates and times -------------------------------------------------------------------------

const DATE_WORDS = new Set(
  (
    'today yesterday tomorrow weekend weekends decade decades century centuries fortnight ' +
    'annual annually yearly monthly weekly daily quarter quarters spring summer autumn fall winter'
  ).split(' '),
);
const TIME_WORDS = new Set(
  (
    'noon midnight morning mornings afternoon afternoons evening evenings night nights tonight ' +
    "overnight dawn dusk midday o'clock oclock"
  ).split(' '),
);
const SHORT_UNITS = /^(?:seconds?|minutes?|mins?|hours?|hrs?)$/u;

function isTimeAnchor(t: Tok): boolean {
  const n = t.normal;
  if (TIME_WORDS.has(n)) return true;
  if (/\d:\d\d/u.test(n)) return true;
  if (/^\d{1,2}(?::\d\d)?\s?[ap]\.?m\.?$/u.test(n) || /^[ap]\.?m\.?$/u.test(n)) return true;
  return t.tags.has('Duration') && SHORT_UNITS.test(n);
}

/** "sat", "sun", "wed", "mar" in lower case are words, not Saturday or March. */
function lowerCaseAbbreviation(t: Tok): boolean {
  return has(t, 'WeekDay', 'Month') && /^\p{Ll}{3,4}\.?$/u.test(t.text) && t.normal.length <= 4;
}

function isDateAnchor(t: Tok): boolean {
  if (lowerCaseAbbreviation(t)) return false;
  if (has(t, 'Month', 'WeekDay', 'Year', 'Holiday', 'Season', 'FinancialQuarter', 'Duration'))
    return true;
  const n = t.normal;
  if (DATE_WORDS.has(n)) return true;
  if (/^(?:\d{4}|'\d0)s$/u.test(n)) return true;
  return /^\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}$/u.test(n) && t.tags.has('Date');
}

function standsAlone(t: Tok): boolean {
  if (lowerCaseAbbreviation(t)) return false;
  if (has(t, 'Month', 'WeekDay', 'Year', 'Holiday', 'Season', 'FinancialQuarter')) return true;
  if (/^(?:today|yesterday|tomorrow|tonight|noon|midnight|overnight)$/u.test(t.normal)) return true;
  return /\d/u.test(t.normal);
}

const SEASONS = new Set(['spring', 'summer', 'autumn', 'fall', 'winter']);
const SEASON_LEAD = new Set(
  'in this last next the early late during since until by each every of through over'.split(' '),
);

function seasonContext(toks: Tok[], i: number): boolean {
  const before = toks[i - 1];
  const after = toks[i + 1];
  if (before && before.sentence === toks[i].sentence && SEASON_LEAD.has(before.normal)) return true;
  return Boolean(after && after.sentence === toks[i].sentence && has(after, 'Year'));
}

function dateSpans(toks: Tok[], text: string, out: Candidate[]): void {
  let i = 0;
  while (i < toks.length) {
    if (!toks[i].tags.has('Date')) {
      i++;
      continue;
    }
    let j = i;
    while (
      j + 1 < toks.length &&
      toks[j + 1].tags.has('Date') &&
      toks[j + 1].sentence === toks[i].sentence
    )
      j++;
    // "March 3, 2021" and "Monday, June 8" stay whole; "yesterday, last week" splits.
    const keep = (k: number) => has(toks[k + 1], 'Year', 'Month');
    for (const [p0, q0] of splitAtPunctuation(toks, i, j, keep)) {
      // "at 4:30pm on March 3rd" → "at 4:30pm" | "on March 3rd"; "the end of May" stays.
      let from = p0;
      const pieces: [number, number][] = [];
      for (let k = p0 + 1; k <= q0; k++) {
        if (toks[k].tags.has('Preposition') && toks[k].normal !== 'of') {
          pieces.push([from, k - 1]);
          from = k;
        }
      }
      pieces.push([from, q0]);
      for (const [p, q] of pieces) {
        const r = trim(
          toks,
          p,
          q,
          (t) => has(t, 'Preposition', 'Conjunction'),
          (t) => has(t, 'Preposition', 'Conjunction', 'Determiner'),
        );
        if (!r) continue;
        const terms = toks.slice(r[0], r[1] + 1);
        // A bare unit ("the hour record", "a quarter of") is not a date.
        if (terms.length === 1 && !standsAlone(terms[0])) continue;
        // "a 5 percent fall", "prices spring back": a season word is a date only in a date's
        // context ("in spring", "last fall", "fall 2020").
        if (terms.length === 1 && SEASONS.has(terms[0].normal) && !seasonContext(toks, r[0]))
          continue;
        const label: EntityLabel | null = terms.some(isTimeAnchor)
          ? 'TIME'
          : terms.some(isDateAnchor)
            ? 'DATE'
            : null;
        if (!label) continue;
        const c = charSpan(toks, r[0], r[1], text, label);
        if (c) out.push(c);
      }
    }
    i = j + 1;
  }
}

// --- numbers ---------------------------------------------------------------------------------

const CURRENCY_TEXT = /^(?:[A-Z]{0,3}[$€£¥₹₩₽₺₦₱]\s?\d|\d[\d.,]*\s?[€£¥₹₩₽])/u;
const NON_QUANTITY_UNITS =
  /^(?:years?|old|months?|weeks?|days?|decades?|centuries|century|percent|%|pct|cents?)$/u;

function numberSpans(
  toks: Tok[],
  index: TermIndex,
  doc: Doc,
  text: string,
  out: Candidate[],
): void {
  const found = ranges(doc.numbers(), index);
  // compromise sometimes returns "2.6" and "million" as two numbers: join them.
  const merged: [number, number][] = [];
  for (const r of found) {
    const prev = merged[merged.length - 1];
    const allMultiple = toks
      .slice(r[0], r[1] + 1)
      .every((t) => t.text === '' || has(t, 'Multiple'));
    if (prev && prev[1] + 1 === r[0] && allMultiple && !breaksAfter(toks[prev[1]])) prev[1] = r[1];
    else merged.push([...r]);
  }
  // Currency-prefixed numbers compromise does not see ("US$5").
  toks.forEach((t, i) => {
    if (CURRENCY_TEXT.test(t.text) && !merged.some(([a, b]) => a <= i && i <= b))
      merged.push([i, i]);
  });
  for (const [a0, b0] of merged) {
    const r = trim(toks, a0, b0, (t) => has(t, 'Preposition', 'Conjunction', 'Determiner'));
    if (!r) continue;
    const [a] = r;
    let b = r[1];
    const terms = toks.slice(a, b + 1);
    const next = (k: number): Tok | undefined =>
      b + k < toks.length && toks[b + k].sentence === toks[b].sentence ? toks[b + k] : undefined;
    const n1 = breaksAfter(toks[b]) ? undefined : next(1);
    const n2 = n1 && !breaksAfter(n1) ? next(2) : undefined;
    let label: EntityLabel;
    if (n1?.normal === "o'clock") {
      label = 'TIME';
      b += 1;
    } else if (
      n1?.text === '' &&
      n2 &&
      /^(?:year|month|week|day)$/u.test(n2.normal) &&
      next(3)?.normal === 'old'
    ) {
      // "26-year-old" (compromise: "26" + hyphenated "year" + "old"): an age, a DATE in spaCy.
      label = 'DATE';
      b += 3;
    } else if (
      n1 &&
      /^(?:year|month|week|day)s?$/u.test(n1.normal) &&
      n1.tags.has('Hyphenated') &&
      next(2)?.normal === 'old'
    ) {
      label = 'DATE';
      b += 2;
    } else if (
      terms.some((t) => t.tags.has('Percent') || t.text.includes('%')) ||
      (n1 && /^(?:percent|pct|%|per)$/u.test(n1.normal))
    ) {
      label = 'PERCENT';
      if (n1 && /^(?:percent|pct|%)$/u.test(n1.normal)) b += 1;
      else if (n1?.normal === 'per' && n2?.normal === 'cent') b += 2;
      else if (n1?.normal === 'percentage' && n2 && /^points?$/u.test(n2.normal)) b += 2;
    } else if (n1?.normal === 'percentage' && n2 && /^points?$/u.test(n2.normal)) {
      label = 'PERCENT';
      b += 2;
    } else if (terms.some((t) => has(t, 'Money', 'Currency') || CURRENCY_TEXT.test(t.text))) {
      label = 'MONEY';
      if (n1?.tags.has('Currency') && n1.normal !== 'cent') b += 1;
    } else if (n1?.tags.has('Currency') && n1.normal !== 'cent') {
      label = 'MONEY';
      b += 1;
    } else if (
      terms.length === 1 &&
      (terms[0].tags.has('Year') ||
        /^(?:\d{4}|'\d0)s$/u.test(terms[0].normal) ||
        // "the 2012 Tour winner": a bare 19xx/20xx is a year unless things are counted
        // ("2000 people").
        (/^(?:19|20)\d\d$/u.test(terms[0].text) && !n1?.tags.has('Plural')))
    ) {
      label = 'DATE';
    } else if (terms.every((t) => t.text === '' || !t.tags.has('Value') || t.tags.has('Ordinal'))) {
      label = 'ORDINAL';
    } else if (terms.some((t) => t.text === '' && t.tags.has('Unit'))) {
      label = 'QUANTITY'; // "253.5km": compromise adds an empty unit term
    } else if (
      n1?.tags.has('Unit') &&
      !n1.tags.has('Date') &&
      !NON_QUANTITY_UNITS.test(n1.normal)
    ) {
      label = 'QUANTITY';
      b += 1;
    } else {
      label = 'CARDINAL';
    }
    const c = charSpan(toks, a, b, text, label);
    if (c) out.push(c);
  }
  // "5 million dollars", "300 yen": compromise's money selection.
  for (const [a, b] of ranges(doc.money(), index)) {
    for (const [p, q] of splitAtPunctuation(toks, a, b)) {
      const r = trim(toks, p, q, (t) => has(t, 'Preposition', 'Conjunction', 'Determiner'));
      if (!r) continue;
      const terms = toks.slice(r[0], r[1] + 1);
      if (!terms.some((t) => t.tags.has('Value') || /\d/u.test(t.text))) continue;
      const c = charSpan(toks, r[0], r[1], text, 'MONEY');
      if (c) out.push(c);
    }
  }
}

// --- leftovers: proper nouns and acronyms ----------------------------------------------------

const NOT_MISC_ACRONYMS = new Set(
  'CEO CFO COO CTO TV AM PM OK ID PC PR HR IT AI UFO DIY FAQ PS'.split(' '),
);

function leftoverSpans(
  toks: Tok[],
  covered: (i: number) => boolean,
  text: string,
  out: Candidate[],
): void {
  const placeAcronym = (t: Tok) => t.tags.has('Acronym') && PLACE_ACRONYMS.has(t.normal);
  const isName = (t: Tok, i: number) =>
    !covered(i) &&
    t.text !== '' &&
    hasUpper(t) &&
    (t.tags.has('ProperNoun') || (t.tags.has('Acronym') && /^\p{Lu}{2,}$/u.test(t.text))) &&
    // Titles ("President", "Brother") are not names on their own.
    !has(t, 'Date', 'Value', 'Pronoun', 'Honorific', 'Actor');
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i];
    if (!covered(i) && hasUpper(t) && placeAcronym(t)) {
      const c = charSpan(toks, i, i, text, 'PLACE');
      if (c) out.push(c);
      continue;
    }
    if (!isName(t, i)) continue;
    let j = i;
    while (
      j + 1 < toks.length &&
      toks[j + 1].sentence === t.sentence &&
      !breaksAfter(toks[j]) &&
      !isPossessive(toks[j]) &&
      !placeAcronym(toks[j + 1]) &&
      isName(toks[j + 1], j + 1)
    )
      j++;
    // "Chamber of Commerce", "Department of Justice": one name, not two.
    while (
      j + 2 < toks.length &&
      toks[j + 1].normal === 'of' &&
      toks[j + 1].text === 'of' &&
      toks[j + 2].sentence === t.sentence &&
      !breaksAfter(toks[j]) &&
      !breaksAfter(toks[j + 1]) &&
      isName(toks[j + 2], j + 2)
    ) {
      j += 2;
      while (
        j + 1 < toks.length &&
        toks[j + 1].sentence === t.sentence &&
        !breaksAfter(toks[j]) &&
        isName(toks[j + 1], j + 1)
      )
        j++;
    }
    if (!(i === j && NOT_MISC_ACRONYMS.has(t.text))) {
      const c = charSpan(toks, i, j, text, 'MISC');
      if (c) out.push(c);
    }
    i = j;
  }
}

// --- Chinese / Japanese fallback -------------------------------------------------------------

const CJK_ENTITY =
  /(?<![\w.,/:-])(?:(\d{4}年(?:\d{1,2}月(?:\d{1,2}日)?)?|\d{1,2}月\d{1,2}日)|(\d+(?:[.,]\d+)*\s?[%％])|(\d+(?:[.,]\d+)*[万亿億兆]*))(?![\w/:-])/gu;

/** In text without spaces compromise sees whole clauses as one term: find numbers by regex. */
function cjkSpans(tok: Tok, out: Candidate[]): void {
  for (const m of tok.text.matchAll(CJK_ENTITY)) {
    const start = tok.start + (m.index ?? 0);
    const label: EntityLabel = m[1] ? 'DATE' : m[2] ? 'PERCENT' : 'CARDINAL';
    out.push({ start, end: start + m[0].length, label });
  }
}

// ---------------------------------------------------------------------------------------------

/** Longest first, then the more specific label; drop whatever overlaps an accepted span. */
export function resolveOverlaps<T extends { start: number; end: number; label: string }>(
  spans: readonly T[],
): T[] {
  const prio = (l: string) => PRIORITY[l as EntityLabel] ?? 0;
  const order = [...spans].sort(
    (x, y) =>
      y.end - y.start - (x.end - x.start) || prio(y.label) - prio(x.label) || x.start - y.start,
  );
  const kept: T[] = [];
  for (const s of order) {
    if (s.end <= s.start) continue;
    if (kept.every((k) => s.end <= k.start || k.end <= s.start)) kept.push(s);
  }
  return kept.sort((x, y) => x.start - y.start);
}

/** Entities of full.slice(base, end), with offsets into `full`. */
function recognizeChunk(full: string, base: number, end: number): Candidate[] {
  const chunk = full.slice(base, end);
  const doc = nlp(chunk);
  const toks = tokens(doc, chunk, base);
  const index = termIndex(doc);
  if (index.size !== toks.length) throw new Error('compromise: term list and JSON disagree');
  const cands: Candidate[] = [];
  nameSpans(toks, index, doc.people(), 'PERSON', full, cands);
  nameSpans(toks, index, doc.organizations(), 'ORG', full, cands);
  nameSpans(toks, index, doc.places(), 'PLACE', full, cands);
  nameSpans(toks, index, doc.match('#Demonym'), 'NORP', full, cands);
  dateSpans(toks, full, cands);
  numberSpans(toks, index, doc, full, cands);
  for (const t of toks) if (t.aligned && CJK_CHAR.test(t.text)) cjkSpans(t, cands);
  const kept = resolveOverlaps(cands);
  const isCovered = new Uint8Array(toks.length);
  let k = 0;
  toks.forEach((t, i) => {
    while (k < kept.length && kept[k].end <= t.start) k++;
    if (k < kept.length && kept[k].start < t.end) isCovered[i] = 1;
  });
  const covered = (i: number) => isCovered[i] === 1;
  const rest: Candidate[] = [];
  leftoverSpans(toks, covered, full, rest);
  return resolveOverlaps([...kept, ...rest]);
}

/** compromise works sentence by sentence, so runs of whole sentences can be parsed apart. This
 * bounds how long the worker is blocked before it can see a cancel, and keeps long texts linear:
 * one compromise parse of a very long text costs far more than the sum of its parts. */
const CHUNK_CHARS = 20_000;

function chunks(text: string): [number, number][] {
  if (text.length <= CHUNK_CHARS) return [[0, text.length]];
  const out: [number, number][] = [];
  let start = 0;
  let lastBoundary = 0;
  for (const sentence of splitSentences(text)) {
    if (sentence.end - start > CHUNK_CHARS && lastBoundary > start) {
      out.push([start, lastBoundary]);
      start = lastBoundary;
    }
    // A "sentence" this long has no punctuation to go by: cut it at a space.
    while (sentence.end - start > 2 * CHUNK_CHARS) {
      const space = text.lastIndexOf(' ', start + CHUNK_CHARS);
      const cut = space > start ? space + 1 : start + CHUNK_CHARS;
      out.push([start, cut]);
      start = cut;
    }
    lastBoundary = sentence.end;
  }
  out.push([start, text.length]);
  return out;
}

const nextTick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** compromise (+ compromise-dates) as an EntityRecognizer; see the file header for the labels. */
export class CompromiseRecognizer implements LanguageAwareRecognizer {
  readonly backend = COMPROMISE_BACKEND;

  async recognize(text: string, signal?: AbortSignal): Promise<TextSpan[]> {
    throwIfAborted(signal);
    const parts = chunks(text);
    const spans: TextSpan[] = [];
    for (const [k, [start, end]] of parts.entries()) {
      if (k > 0) {
        await nextTick();
        throwIfAborted(signal);
      }
      for (const c of recognizeChunk(text, start, end)) {
        spans.push({
          start: c.start,
          end: c.end,
          text: text.slice(c.start, c.end),
          label: c.label,
        });
      }
    }
    return spans;
  }

  languageSupport(text: string): LanguageAssessment {
    return assessLanguage(text);
  }
}
