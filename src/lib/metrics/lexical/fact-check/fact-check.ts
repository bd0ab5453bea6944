/**
 * Fact check (offline): the numbers, dates, names and quotes of the summary, each looked up in
 * the source. The score is the share found, the entity-level precision of Nan et al. 2021
 * ("Entity-level factual consistency of abstractive text summarization"), widened from named
 * entities to every checkable specific. An item not found is flagged, with the closest mention of
 * the same kind in the source: "18,480" → "8,480", "Doctors Without Borders" → "Save the
 * Children" (preferring the source sentence the summary sentence aligns to, text/aligner.ts).
 *
 * What is extracted (fact-check-numbers.ts has the number and date grammar):
 * - numbers and dates, in every language (digits, CJK numerals, English number words);
 * - quotes: "…", “…”, «…», „…“, 「…」, 『…』;
 * - names: capitalised word runs ("Save the Children", "Мария Иванова"; a lone capitalised word
 *   at a sentence start only when the summary capitalises it elsewhere too) and acronyms
 *   ("IOM", "UNHCR"), in every script with capitals; in English also compromise's people,
 *   places and organisations (`names` below), and its demonyms are not taken for names.
 *   Chinese and Japanese have no capitals: there only Latin-script names and acronyms are seen.
 *
 * How an item is found:
 * - numbers: by value (8,480 = 8480 = 8 480; "two million" = 2,000,000 = 2m; 3万 = 30000;
 *   ordinals only as ordinals). Rounding is accepted only after a hedge ("about 8,500"), within
 *   HEDGE_TOLERANCE in the hedge's direction; "18,480" never matches "8,480".
 * - dates: every part the summary states (day and month, year, weekday) occurs in a source date.
 * - names: the words in order, case-insensitive and diacritics folded, possessive 's dropped,
 *   Russian words on their stem (the word minus its case ending); a surname alone matches the
 *   full name ("Obama" in "Barack Obama"); up to two extra words may stand between ("Barack
 *   Hussein Obama"); an acronym matches the name the source defines it for ("International
 *   Organization for Migration (IOM)") or a capitalised source name with its initials, and the
 *   other way round.
 * - quotes: ≥ QUOTE_SHARE of the quoted words, in order, in one source window.
 *
 * Cost: the source is read in one linear pass (a token index, its numbers, dates and names,
 * built once); each item is a map lookup or a binary search, so a 300,000-word source takes
 * about a second and a summary with hundreds of numbers stays fast. Source sentences are split
 * and aligned only when an item is not found, and a long source is aligned on the sentences
 * that share the most words with the summary sentence (ALIGN_CANDIDATES).
 */
import { explained, ref } from '../../../i18n/message.ts';
import { notApplicable, withNotes } from '../../results.ts';
import type { MetricResult, TextSpan } from '../../types.ts';
import { splitSentences, type Segment } from '../../text/tokenize.ts';
import { firstSentences, sourcePrefix } from '../../text/source-prefix.ts';
import { alignSentences } from '../../text/aligner.ts';
import {
  backendWithTokenizer,
  tokenizerDetail,
  type CaseTokenizer,
} from '../../text/case-tokenizer.ts';
import { isContentWord } from '../source-coverage/source-coverage.ts';
import {
  dateIndexKeys,
  dateKeys,
  foldWidth,
  hedgeOf,
  hedgeRange,
  numbersAndDates,
  type DateMention,
  type DateParts,
  type NumberMention,
} from './fact-check-numbers.ts';
import { recentValues } from '../../../recent.ts';

export type FactKind = 'number' | 'date' | 'entity' | 'quote';
export const FACT_KINDS: readonly FactKind[] = ['number', 'date', 'entity', 'quote'];

/** How a found item matched. */
export type FactMatch =
  'exact' | 'hedged' | 'surname' | 'words' | 'acronym' | 'inflected' | 'partial';

/** Which extractors ran (compromise only on English). */
export type FactExtractor =
  'numbers' | 'dates' | 'quotes' | 'capitalised' | 'acronyms' | 'compromise';

export interface SourceMention {
  /** The mention in the source, UTF-16 offsets into the source. */
  start: number;
  end: number;
  text: string;
  /** Index of its source sentence, and that sentence (clipped around the mention when long). */
  sentence: number;
  context: string;
}

export interface FactItem {
  kind: FactKind;
  /** The item as the summary writes it, and where (UTF-16 offsets into the summary). */
  text: string;
  start: number;
  end: number;
  /** Index of its summary sentence (details.summarySentences). */
  sentence: number;
  found: boolean;
  match?: FactMatch;
  /** A hedge before or after a number ("about", "more than", "约", "以上"). */
  hedged: boolean;
  hedge?: string;
  /** Quotes: the share of the quoted words found in order in the best source window. */
  share?: number;
  /** Found: where the source says it. Not found: the closest mention of the same kind, if any. */
  source?: SourceMention;
}

export interface FactCounts {
  total: number;
  found: number;
}

export interface FactCheckDetails {
  kind: 'fact-check';
  items: FactItem[];
  counts: Record<FactKind, FactCounts>;
  total: number;
  found: number;
  /** found / total; null when the summary states nothing to check. */
  score: number | null;
  summarySentences: Segment[];
  extractors: FactExtractor[];
  /** The case's language, which decides whether compromise ran. */
  language: string;
  sourceChars: number;
  /** Source sentences read to align summary sentences (0 when every item was found). */
  alignedSourceSentences: number;
  caseTokenizer?: string;
}

/** Names found by a recogniser (compromise's PERSON, ORG, PLACE; NORP spans are dropped). */
export interface NameRecognizer {
  backend: string;
  recognize(text: string, signal?: AbortSignal): Promise<readonly TextSpan[]>;
}

export const FACT_CHECK_BASE = 'fact-check';
/** Quotes are found with at least this share of their words, in order, in one source window. */
export const QUOTE_SHARE = 0.8;
/** A source longer than this (≈ 650,000 English words) is checked on its first part, saying so. */
export const FACT_SOURCE_CHARS = 4_000_000;
/** Source sentences, per summary sentence, that a long source is aligned on. */
export const ALIGN_CANDIDATES = 40;
/** Up to this many source sentences every sentence is aligned on. */
const ALIGN_ALL_UP_TO = 1500;
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

interface Tokens {
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

// Letters of scripts with capitals only: a Latin acronym in Chinese text ends at the first Han
// character ("IOM说" is "IOM").
const CAP_WORD = "\\p{Lu}[\\p{Script=Latin}\\p{Script=Cyrillic}\\p{Script=Greek}\\p{M}\\p{N}'’-]*";
const CONNECTOR = '(?:of|the|for|de|del|della|di|da|du|des|la|le|van|von|der|den|al|el|bin|ibn|y)';
const NAME_RE = new RegExp(
  `(?<![\\p{L}\\p{M}\\p{N}])${CAP_WORD}(?:[ \\u00a0](?:${CONNECTOR}[ \\u00a0])*${CAP_WORD})*`,
  'gu',
);
const ACRONYM = /^[\p{Lu}][\p{Lu}\p{N}&]{1,9}$/u;
const RU_FUNCTION = new Set(
  'в во на по и но это как после для при из за от к с у о об а же не что этот эта эти тот та те когда где'.split(
    ' ',
  ),
);
const TITLES = new Set(
  'mr mrs ms miss dr prof sir dame lord lady president minister senator governor general gen col capt lt sgt king queen prince princess pope rev st saint'.split(
    ' ',
  ),
);
const MONTH_OR_DAY =
  /^(?:January|February|March|April|May|June|July|August|September|October|November|December|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)$/u;

interface NameSpan {
  start: number;
  end: number;
  text: string;
  words: number;
}

function isFunctionWord(word: string): boolean {
  const key = word.toLowerCase().replace(/[’']s$/u, '');
  if (RU_FUNCTION.has(key)) return true;
  if (/^\p{Script=Latin}+$/u.test(key))
    return !isContentWord(key) || TITLES.has(key.replace(/\.$/u, ''));
  return false;
}

/** Capitalised runs of `text` from `from` to `to`, leading function words and titles dropped. */
function nameSpans(text: string, from = 0, to = text.length): NameSpan[] {
  const out: NameSpan[] = [];
  NAME_RE.lastIndex = from;
  for (let m = NAME_RE.exec(text); m && m.index < to; m = NAME_RE.exec(text)) {
    let start = m.index;
    let body = m[0];
    // Drop leading function words and titles ("The IOM", "In Libya", "President Obama").
    for (;;) {
      const first = /^(\S+)[ \u00a0]+/u.exec(body);
      if (!first || !isFunctionWord(first[1].replace(/\.$/u, ''))) break;
      start += first[0].length;
      body = body.slice(first[0].length);
      // A lower-case connector left at the front is no name either.
      const connector = new RegExp(`^(?:${CONNECTOR}[ \\u00a0])+`, 'u').exec(body);
      if (connector) {
        start += connector[0].length;
        body = body.slice(connector[0].length);
      }
    }
    body = body.replace(/['’-]+$/u, '').replace(/['’]s$/u, '');
    if (body.length === 0 || isFunctionWord(body) || MONTH_OR_DAY.test(body)) continue;
    if (!/\p{L}/u.test(body)) continue;
    out.push({
      start,
      end: start + body.length,
      text: body,
      words: body.split(/[ \u00a0]+/u).length,
    });
  }
  return out;
}

/** Upper-case initials of a name's capitalised words ("International Organization for Migration" → "IOM"). */
function initialsOf(name: string): string[] {
  const words = name.split(/[ \u00a0-]+/u).filter((w) => w.length > 0);
  if (words.length < 2) return [];
  const caps = words.filter((w) => /^\p{Lu}/u.test(w)).map((w) => w[0]);
  const all = words.map((w) => w[0].toUpperCase());
  return [...new Set([caps.join(''), all.join('')])].filter((s) => s.length >= 2);
}

function atSentenceStart(text: string, start: number): boolean {
  let i = start - 1;
  while (i >= 0 && /[\s"“”«»„'‘’([—–•*-]/u.test(text[i])) {
    if (text[i] === '\n') return true;
    i--;
  }
  return i < 0 || /[.!?…:;。！？]/u.test(text[i]);
}

// ── the source index ─────────────────────────────────────────────────────────────────────────

interface IndexedNumber {
  value: number;
  mention: NumberMention;
}

/** Everything the lookups read, built from the source once. */
class SourceIndex {
  readonly text: string;
  readonly tokens: Tokens;
  readonly positions = new Map<string, number[]>();
  readonly acronyms = new Set<string>();
  /** Number mentions by value key ("o:" before an ordinal), source order. */
  readonly numbers = new Map<string, NumberMention[]>();
  /** Distinct cardinal values, ascending, with a mention each (for hedges and closest values). */
  readonly sortedValues: Float64Array;
  readonly sortedMentions: NumberMention[];
  readonly numberMentions: NumberMention[];
  readonly dateKeys = new Set<string>();
  readonly dates: DateMention[];
  readonly names: NameSpan[];
  /** Acronym (lower case) → the name it stands for; name key → acronym. */
  readonly acronymNames = new Map<string, NameSpan>();
  /** Distinct names by frequency, for the closest-name search when no aligned sentence has one. */
  readonly frequentNames: NameSpan[];
  #sentences: Segment[] | undefined;

  constructor(text: string) {
    this.text = text;
    this.tokens = factTokens(text);
    const { keys, starts, ends } = this.tokens;
    for (let i = 0; i < keys.length; i++) {
      const list = this.positions.get(keys[i]);
      if (list) list.push(i);
      else this.positions.set(keys[i], [i]);
      if (ends[i] - starts[i] >= 2 && ACRONYM.test(text.slice(starts[i], ends[i]))) {
        this.acronyms.add(keys[i]);
      }
    }
    const { numbers, dates } = numbersAndDates(text);
    this.dates = dates;
    const cardinal: IndexedNumber[] = [];
    const add = (key: string, m: NumberMention) => {
      const list = this.numbers.get(key);
      if (!list) this.numbers.set(key, [m]);
      else if (list.length < 8) list.push(m);
    };
    this.numberMentions = numbers;
    for (const m of numbers) {
      for (const v of m.values) {
        add(valueKey(v, m.ordinal), m);
        if (!m.ordinal) cardinal.push({ value: v, mention: m });
      }
    }
    for (const d of dates) {
      for (const r of d.readings) for (const k of dateIndexKeys(r)) this.dateKeys.add(k);
      const year = d.readings[0].year;
      // A year is a number too ("1500 people" reads as a year).
      if (year !== undefined) {
        const m: NumberMention = {
          ...d,
          values: [year],
          ordinal: false,
          percent: false,
          money: false,
        };
        add(valueKey(year, false), m);
        cardinal.push({ value: year, mention: m });
      }
    }
    cardinal.sort((a, b) => a.value - b.value || a.mention.start - b.mention.start);
    const distinct = cardinal.filter((c, i) => i === 0 || c.value !== cardinal[i - 1].value);
    this.sortedValues = Float64Array.from(distinct.map((c) => c.value));
    this.sortedMentions = distinct.map((c) => c.mention);

    this.names = nameSpans(text);
    const counts = new Map<string, { span: NameSpan; count: number }>();
    for (const n of this.names) {
      const key = n.text.toLowerCase();
      const seen = counts.get(key);
      if (seen) seen.count++;
      else counts.set(key, { span: n, count: 1 });
      const after = text.slice(n.end, n.end + 14);
      const defined = /^\s*\(([\p{Lu}][\p{Lu}\p{N}&]{1,9})\)/u.exec(after);
      if (defined && n.words >= 2) this.acronymNames.set(defined[1].toLowerCase(), n);
      for (const initials of initialsOf(n.text)) {
        const k = initials.toLowerCase();
        if (!this.acronymNames.has(k)) this.acronymNames.set(k, n);
      }
    }
    this.frequentNames = [...counts.values()]
      .sort((a, b) => b.count - a.count)
      .slice(0, 2000)
      .map((c) => c.span);
  }

  get sentences(): Segment[] {
    this.#sentences ??= firstSentences(this.text, Number.POSITIVE_INFINITY).sentences;
    return this.#sentences;
  }

  sentenceOf(offset: number): number {
    const s = this.sentences;
    let lo = 0;
    let hi = s.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (s[mid].start <= offset) lo = mid;
      else hi = mid - 1;
    }
    return Math.max(0, lo);
  }

  mention(start: number, end: number): SourceMention {
    const sentence = this.sentenceOf(start);
    const s = this.sentences[sentence] ?? { start, end, text: this.text.slice(start, end) };
    return {
      start,
      end,
      text: this.text.slice(start, end),
      sentence,
      context: clipAround(s, start, end),
    };
  }

  /** Token index range [from, to) of the characters [start, end). */
  tokenRange(start: number, end: number): [number, number] {
    return [lowerBound(this.tokens.starts, start), lowerBound(this.tokens.starts, end)];
  }
}

function lowerBound(sorted: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Items of a list sorted by start that lie within [start, end). */
function within<T extends { start: number }>(
  sorted: readonly T[],
  start: number,
  end: number,
): T[] {
  const out: T[] = [];
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid].start < start) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < sorted.length && sorted[i].start < end; i++) out.push(sorted[i]);
  return out;
}

const CONTEXT_CHARS = 280;

function clipAround(s: Segment, start: number, end: number): string {
  if (s.text.length <= CONTEXT_CHARS) return s.text;
  const from = Math.max(s.start, Math.min(start - 100, s.end - CONTEXT_CHARS));
  const to = Math.min(s.end, Math.max(end + 100, from + CONTEXT_CHARS));
  return `${from > s.start ? '…' : ''}${s.text.slice(from - s.start, to - s.start)}${to < s.end ? '…' : ''}`;
}

function valueKey(v: number, ordinal: boolean): string {
  return `${ordinal ? 'o:' : ''}${Number(Math.abs(v).toPrecision(12))}`;
}

// ── summary items ────────────────────────────────────────────────────────────────────────────

interface Candidate {
  kind: FactKind;
  start: number;
  end: number;
  text: string;
  number?: NumberMention;
  date?: DateMention;
}

const QUOTE_RE =
  /"([^"\n]{1,600})"|“([^”\n]{1,600})”|«([^»\n]{1,600})»|„([^“”\n]{1,600})[“”]|「([^」\n]{1,600})」|『([^』\n]{1,600})』/gu;

function quoteCandidates(summary: string): Candidate[] {
  const out: Candidate[] = [];
  for (const m of summary.matchAll(QUOTE_RE)) {
    const group = m.slice(1).findIndex((g) => g !== undefined) + 1;
    const inner = m[group];
    const lead = inner.length - inner.trimStart().length;
    const text = inner.trim();
    if (!/[\p{L}\p{N}]/u.test(text)) continue;
    const start = m.index + 1 + lead;
    out.push({ kind: 'quote', start, end: start + text.length, text });
  }
  return out;
}

function entityCandidates(
  summary: string,
  recognized: readonly TextSpan[] | undefined,
  taken: readonly { start: number; end: number }[],
): Candidate[] {
  const spans = nameSpans(summary);
  const demonyms = new Set(
    (recognized ?? []).filter((r) => r.label === 'NORP').map((r) => `${r.start}:${r.end}`),
  );
  // Words the summary capitalises somewhere other than at a sentence start.
  const midSentence = new Set(
    spans.filter((s) => !atSentenceStart(summary, s.start)).map((s) => s.text.toLowerCase()),
  );
  const labelled = (recognized ?? []).filter((r) => ['PERSON', 'ORG', 'PLACE'].includes(r.label));
  const labelledAt = new Set(labelled.map((r) => `${r.start}:${r.end}`));
  const cands: Candidate[] = [];
  for (const s of spans) {
    if (demonyms.has(`${s.start}:${s.end}`)) continue;
    const lone = s.words === 1 && !ACRONYM.test(s.text);
    if (
      lone &&
      atSentenceStart(summary, s.start) &&
      !midSentence.has(s.text.toLowerCase()) &&
      !labelledAt.has(`${s.start}:${s.end}`)
    ) {
      continue;
    }
    cands.push({ kind: 'entity', start: s.start, end: s.end, text: s.text });
  }
  for (const r of labelled) {
    // compromise's span, trimmed of a leading title and a trailing possessive.
    const inner = nameSpans(summary, r.start, r.end).find(
      (n) => n.start >= r.start && n.end <= r.end,
    );
    const start = inner?.start ?? r.start;
    const text = summary.slice(start, r.end).replace(/['’]s$/u, '');
    if (text.length === 0 || !/^\p{Lu}/u.test(text)) continue;
    cands.push({ kind: 'entity', start, end: start + text.length, text });
  }
  // Longer first; an entity never overlaps a number or a date, nor another entity.
  cands.sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start);
  const kept: Candidate[] = [];
  const overlapsAny = (c: Candidate, list: readonly { start: number; end: number }[]) =>
    list.some((k) => c.start < k.end && k.start < c.end);
  for (const c of cands) {
    if (overlapsAny(c, taken) || overlapsAny(c, kept)) continue;
    kept.push(c);
  }
  return kept;
}

// ── lookups ──────────────────────────────────────────────────────────────────────────────────

interface Lookup {
  found: boolean;
  match?: FactMatch;
  /** Source character range of the evidence (found) or of the closest partial match. */
  at?: [number, number];
  share?: number;
}

function findSequence(
  index: SourceIndex,
  keys: readonly string[],
  slack: number,
): [number, number] | undefined {
  const first = index.positions.get(keys[0]);
  if (!first) return undefined;
  const { keys: src } = index.tokens;
  let checked = 0;
  for (const p of first) {
    if (++checked > 5000) break;
    let at = p;
    let ok = true;
    for (let k = 1; k < keys.length; k++) {
      let next = -1;
      for (let q = at + 1; q <= at + 1 + slack && q < src.length; q++) {
        if (src[q] === keys[k]) {
          next = q;
          break;
        }
      }
      if (next < 0) {
        ok = false;
        break;
      }
      at = next;
    }
    if (ok) return [p, at];
  }
  return undefined;
}

function lookupEntity(index: SourceIndex, text: string): Lookup {
  const { keys } = factTokens(text);
  if (keys.length === 0) return { found: false };
  const toChars = ([a, b]: [number, number]): [number, number] => [
    index.tokens.starts[a],
    index.tokens.ends[b],
  ];
  const exact = findSequence(index, keys, 0);
  if (exact) {
    const at = toChars(exact);
    const written = factTokensPlain(text);
    const inflected = written.some((w, i) => w !== keys[i]);
    // A surname: the last word of a longer source name ("Obama" in "Barack Obama").
    const surname =
      keys.length === 1 &&
      within(index.names, at[0] - 80, at[1]).some(
        (n) => n.words >= 2 && n.start < at[0] && n.end === at[1],
      );
    return { found: true, match: surname ? 'surname' : inflected ? 'inflected' : 'exact', at };
  }
  if (keys.length >= 2) {
    const loose = findSequence(index, keys, 2);
    if (loose) return { found: true, match: 'words', at: toChars(loose) };
  }
  if (ACRONYM.test(text)) {
    const name = index.acronymNames.get(text.toLowerCase());
    if (name) return { found: true, match: 'acronym', at: [name.start, name.end] };
  }
  for (const initials of initialsOf(text)) {
    const k = initials.toLowerCase();
    if (index.acronyms.has(k)) {
      const p = index.positions.get(k)![0];
      return { found: true, match: 'acronym', at: [index.tokens.starts[p], index.tokens.ends[p]] };
    }
  }
  return { found: false };
}

/** Lower-cased words without stemming, to tell an inflected match from an exact one. */
function factTokensPlain(text: string): string[] {
  return (text.match(/[\p{L}\p{M}\p{N}]+/gu) ?? [])
    .filter((w, i, all) => !(i > 0 && (w === 's' || w === 'S') && all.length > 1))
    .map((w) =>
      w
        .normalize('NFKD')
        .replace(/\p{M}+/gu, '')
        .toLowerCase(),
    );
}

function lookupNumber(
  index: SourceIndex,
  n: NumberMention,
  hedge: ReturnType<typeof hedgeOf>,
): Lookup {
  for (const v of n.values) {
    const hit = index.numbers.get(valueKey(v, n.ordinal));
    if (hit) return { found: true, match: 'exact', at: [hit[0].start, hit[0].end] };
  }
  if (hedge && !n.ordinal) {
    const v = Math.abs(n.values[0]);
    const [lo, hi] = hedgeRange(v, hedge.direction);
    let best: NumberMention | undefined;
    let bestGap = Infinity;
    for (let i = lowerBound(index.sortedValues, lo); i < index.sortedValues.length; i++) {
      const s = index.sortedValues[i];
      if (s > hi) break;
      if (Math.abs(s - v) < bestGap) {
        bestGap = Math.abs(s - v);
        best = index.sortedMentions[i];
      }
    }
    if (best) return { found: true, match: 'hedged', at: [best.start, best.end] };
  }
  return { found: false };
}

function lookupDate(index: SourceIndex, d: DateMention): Lookup {
  for (const r of d.readings) {
    const keys = dateKeys(r);
    if (keys.length > 0 && keys.every((k) => index.dateKeys.has(k))) {
      const at = index.dates.find((s) => s.readings.some((x) => sameDate(x, r)));
      return { found: true, match: 'exact', at: at ? [at.start, at.end] : undefined };
    }
  }
  return { found: false };
}

function sameDate(a: DateParts, b: DateParts): boolean {
  return (['year', 'month', 'day', 'weekday', 'decade'] as const).every(
    (k) => b[k] === undefined || a[k] === b[k],
  );
}

/** Length of the longest common subsequence of two key lists (small: a quote and its window). */
function lcsLength(a: readonly string[], b: readonly string[]): number {
  let prev = new Uint16Array(b.length + 1);
  let cur = new Uint16Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      cur[j] = a[i - 1] === b[j - 1] ? prev[j - 1] + 1 : Math.max(prev[j], cur[j - 1]);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length];
}

/** The first and last positions of `b` in one longest common subsequence with `a`. */
function lcsEnds(a: readonly string[], b: readonly string[]): [number, number] {
  const w = b.length + 1;
  const table = new Uint16Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i * w + j] =
        a[i] === b[j]
          ? table[(i + 1) * w + j + 1] + 1
          : Math.max(table[(i + 1) * w + j], table[i * w + j + 1]);
    }
  }
  let first = -1;
  let last = -1;
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    if (a[i] === b[j]) {
      if (first < 0) first = j;
      last = j;
      i++;
      j++;
    } else if (table[(i + 1) * w + j] >= table[i * w + j + 1]) i++;
    else j++;
  }
  return first < 0 ? [0, 0] : [first, last];
}

const MAX_QUOTE_TOKENS = 300;
const QUOTE_ANCHORS = 200;

function lookupQuote(index: SourceIndex, text: string): Lookup {
  const keys = factTokens(text).keys.slice(0, MAX_QUOTE_TOKENS);
  const k = keys.length;
  if (k === 0) return { found: false };
  const need = Math.ceil(QUOTE_SHARE * k);
  const src = index.tokens.keys;
  // If ≥ need words are there, one of the (k − need + 1) rarest distinct words is among them.
  const distinct = [...new Set(keys)].sort(
    (a, b) => (index.positions.get(a)?.length ?? 0) - (index.positions.get(b)?.length ?? 0),
  );
  const anchors = distinct.filter((key) => index.positions.has(key)).slice(0, k - need + 2);
  const slack = Math.ceil(k * (1 - QUOTE_SHARE)) + 1;
  let best = 0;
  let bestAt: [number, number] | undefined;
  const tried = new Set<number>();
  for (const anchor of anchors) {
    const at = keys.indexOf(anchor);
    for (const p of (index.positions.get(anchor) ?? []).slice(0, QUOTE_ANCHORS)) {
      const from = Math.max(0, p - at - slack);
      if (tried.has(from)) continue;
      tried.add(from);
      const to = Math.min(src.length, p - at + k + slack);
      const window = src.slice(from, to);
      const common = lcsLength(keys, window);
      if (common > best) {
        best = common;
        // The evidence: from the window's first matched word to its last.
        const [a, b] = lcsEnds(keys, window);
        bestAt = [index.tokens.starts[from + a], index.tokens.ends[from + b]];
      }
      if (best === k) break;
    }
    if (best === k) break;
  }
  const share = best / k;
  if (best >= need && bestAt) {
    return { found: true, match: best === k ? 'exact' : 'partial', at: bestAt, share };
  }
  return { found: false, at: best > 0 ? bestAt : undefined, share };
}

// ── closest mentions ─────────────────────────────────────────────────────────────────────────

function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return row[b.length];
}

function digitsOf(v: number): string {
  return String(Number(Math.abs(v).toPrecision(12))).replace('.', '');
}

/** Source numbers near `v` in value or one digit away: 18,480 → 8,480. */
function closestNumber(
  index: SourceIndex,
  n: NumberMention,
  aligned: Segment | undefined,
): NumberMention | undefined {
  const v = Math.abs(n.values[0]);
  const candidates = new Set<NumberMention>();
  if (aligned)
    for (const m of within(index.numberMentions, aligned.start, aligned.end)) candidates.add(m);
  const at = lowerBound(index.sortedValues, v);
  for (let i = Math.max(0, at - 6); i < Math.min(index.sortedValues.length, at + 6); i++) {
    candidates.add(index.sortedMentions[i]);
  }
  // One digit dropped, changed or added.
  const digits = digitsOf(v);
  const scale = Number.isInteger(v) ? 1 : 10 ** -(String(v).split('.')[1]?.length ?? 0);
  const variants = new Set<string>();
  for (let i = 0; i < digits.length; i++) {
    variants.add(digits.slice(0, i) + digits.slice(i + 1));
    for (const d of '0123456789') variants.add(digits.slice(0, i) + d + digits.slice(i + 1));
  }
  for (let i = 0; i <= digits.length; i++) {
    for (const d of '0123456789') variants.add(digits.slice(0, i) + d + digits.slice(i));
  }
  for (const variant of variants) {
    if (variant === '' || variant === digits) continue;
    for (const value of [Number(variant), Number(variant) * scale]) {
      const hit = index.numbers.get(valueKey(value, n.ordinal));
      if (hit) candidates.add(hit[0]);
    }
  }
  let best: NumberMention | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    for (const s of c.values) {
      const ratio = Math.abs(Math.log10((Math.abs(s) + 1e-9) / (v + 1e-9)));
      const inAligned = aligned && c.start >= aligned.start && c.end <= aligned.end ? 1 : 0;
      const score =
        Math.min(editDistance(digitsOf(s), digits), 3) +
        2 * ratio -
        inAligned +
        (c.ordinal === n.ordinal ? 0 : 1);
      if (score < bestScore) {
        bestScore = score;
        best = c;
      }
    }
  }
  return best;
}

function bigrams(s: string): string[] {
  const t = ` ${s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')} `;
  const out: string[] = [];
  for (let i = 0; i + 2 <= t.length; i++) out.push(t.slice(i, i + 2));
  return out;
}

function dice(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const x of a) counts.set(x, (counts.get(x) ?? 0) + 1);
  let common = 0;
  for (const x of b) {
    const c = counts.get(x);
    if (c) {
      common++;
      counts.set(x, c - 1);
    }
  }
  return (2 * common) / (a.length + b.length);
}

/**
 * The source name most like `text`: among the names of the aligned source sentence first,
 * preferring one the summary never mentions (the likeliest to have been replaced), then by
 * character bigrams and word count; else the most similar frequent name of the source.
 */
function closestName(
  index: SourceIndex,
  text: string,
  aligned: Segment | undefined,
  summaryKeys: ReadonlySet<string>,
): NameSpan | undefined {
  const grams = bigrams(text);
  const words = text.split(/\s+/u).length;
  const score = (n: NameSpan, inAligned: boolean) => {
    const unmentioned = factTokens(n.text).keys.every((k) => !summaryKeys.has(k));
    return (
      dice(grams, bigrams(n.text)) +
      (inAligned ? 0.5 : 0) +
      (inAligned && unmentioned ? 0.25 : 0) +
      0.15 * (1 - Math.abs(n.words - words) / Math.max(n.words, words))
    );
  };
  let best: NameSpan | undefined;
  let bestScore = -Infinity;
  const consider = (n: NameSpan, inAligned: boolean) => {
    if (n.text.toLowerCase() === text.toLowerCase()) return;
    const s = score(n, inAligned);
    if (s > bestScore) {
      bestScore = s;
      best = n;
    }
  };
  if (aligned) for (const n of within(index.names, aligned.start, aligned.end)) consider(n, true);
  if (best) return best;
  for (const n of index.frequentNames) consider(n, false);
  return bestScore >= 0.3 ? best : undefined;
}

function dateDistance(a: DateParts, b: DateParts): number {
  let d = 0;
  for (const k of ['year', 'month', 'day', 'weekday', 'decade'] as const) {
    if (a[k] === undefined && b[k] === undefined) continue;
    if (a[k] === undefined || b[k] === undefined) d += 0.5;
    else if (a[k] !== b[k]) d += 1 + Math.min(1, Math.abs(a[k] - b[k]) / 100);
  }
  return d;
}

function closestDate(
  index: SourceIndex,
  d: DateMention,
  aligned: Segment | undefined,
): DateMention | undefined {
  const pool = new Set<DateMention>(aligned ? within(index.dates, aligned.start, aligned.end) : []);
  for (const x of index.dates.slice(0, 2000)) pool.add(x);
  let best: DateMention | undefined;
  let bestScore = Infinity;
  for (const c of pool) {
    const inAligned = aligned && c.start >= aligned.start && c.end <= aligned.end ? 0.75 : 0;
    for (const r of c.readings) {
      const s = Math.min(...d.readings.map((x) => dateDistance(x, r))) - inAligned;
      if (s < bestScore) {
        bestScore = s;
        best = c;
      }
    }
  }
  return best;
}

// ── alignment ────────────────────────────────────────────────────────────────────────────────

/**
 * The source sentence each query (a summary sentence or clause) aligns to (text/aligner.ts), -1
 * for none. A long source is aligned on the ALIGN_CANDIDATES sentences sharing the most words
 * with each query, so that a 300,000-word source is never tokenised whole a second time.
 */
function alignQueries(
  index: SourceIndex,
  queries: readonly Segment[],
  tokenizer: CaseTokenizer | undefined,
): { aligned: number[]; read: number } {
  const sentences = index.sentences;
  if (sentences.length === 0 || queries.length === 0) {
    return { aligned: queries.map(() => -1), read: 0 };
  }
  let pool: number[];
  if (sentences.length <= ALIGN_ALL_UP_TO) {
    pool = sentences.map((_, i) => i);
  } else {
    const chosen = new Set<number>();
    const tooCommon = Math.max(200, index.tokens.keys.length / 50);
    for (const q of queries) {
      const counts = new Map<number, number>();
      for (const key of new Set(factTokens(q.text).keys)) {
        if (/^[a-z]+$/u.test(key) && !isContentWord(key)) continue;
        const positions = index.positions.get(key);
        if (!positions || positions.length > tooCommon) continue;
        let last = -1;
        for (const p of positions) {
          const s = index.sentenceOf(index.tokens.starts[p]);
          if (s === last) continue;
          last = s;
          counts.set(s, (counts.get(s) ?? 0) + 1);
        }
      }
      const top = [...counts.entries()]
        .sort((a, b) => b[1] - a[1] || a[0] - b[0])
        .slice(0, ALIGN_CANDIDATES);
      for (const [s] of top) chosen.add(s);
    }
    pool = [...chosen].sort((a, b) => a - b);
  }
  if (pool.length === 0) return { aligned: queries.map(() => -1), read: 0 };
  const result = alignSentences(
    queries,
    pool.map((i) => sentences[i]),
    { tokenizer },
  );
  return { aligned: result.map((r) => (r.index >= 0 ? pool[r.index] : -1)), read: pool.length };
}

/**
 * The clause of a summary sentence holding `at` (cut at ; : — – and brackets): "X said …; Y
 * said …" speaks of two source sentences. A clause under three words is its whole sentence.
 */
function clauseOf(sentence: Segment, at: number): Segment {
  let start = sentence.start;
  let end = sentence.end;
  const cut = /[;:—–()]/gu;
  for (const m of sentence.text.matchAll(cut)) {
    const offset = sentence.start + m.index;
    if (offset < at) start = offset + 1;
    else if (offset >= at) {
      end = offset;
      break;
    }
  }
  const raw = sentence.text.slice(start - sentence.start, end - sentence.start);
  const lead = raw.length - raw.trimStart().length;
  const text = raw.trim();
  if (text.split(/\s+/u).length < 3 && !/[\u3040-\u30ff\u3400-\u9fff]/u.test(text)) return sentence;
  return { text, start: start + lead, end: start + lead + text.length };
}

// ── the metric ───────────────────────────────────────────────────────────────────────────────

export interface FactCheckOptions {
  tokenizer?: CaseTokenizer;
  /** Spans of a recogniser (compromise) on the summary: PERSON, ORG, PLACE, NORP are read. */
  names?: readonly TextSpan[];
  /** Its backend name, for the backend line. */
  namesBackend?: string;
}

function sentenceIndexOf(sentences: readonly Segment[], offset: number): number {
  let lo = 0;
  let hi = sentences.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (sentences[mid].start <= offset) lo = mid;
    else hi = mid - 1;
  }
  return Math.max(0, lo);
}

export function factCheckBackend(options: FactCheckOptions = {}): string {
  const base = options.namesBackend
    ? `${FACT_CHECK_BASE} (numbers, dates, entities, quotes; ${options.namesBackend})`
    : `${FACT_CHECK_BASE} (numbers, dates, capitalised names, quotes)`;
  return backendWithTokenizer(base, options.tokenizer);
}

/**
 * The index of the last few sources: in one case the fact check's card and the quality estimate
 * check the same source, and a data set scores several summaries of one source in a row. The
 * index only caches what it computes from its text, so sharing it cannot change a result.
 */
const recentSourceIndexes = recentValues<string, SourceIndex>(4, (a, b) => a === b);
const sourceIndexOf = (source: string): SourceIndex =>
  recentSourceIndexes(source, () => new SourceIndex(source));

/** The summary's checkable items, each looked up in the source: the metric without its result. */
export function checkFacts(
  source: string,
  summary: string,
  options: FactCheckOptions = {},
): FactCheckDetails {
  const { tokenizer, names } = options;
  const summarySentences = splitSentences(summary, tokenizer?.locale);
  const { numbers, dates } = numbersAndDates(summary);
  const numberDate: Candidate[] = [
    ...numbers.map((n) => ({
      kind: 'number' as const,
      start: n.start,
      end: n.end,
      text: n.text,
      number: n,
    })),
    ...dates.map((d) => ({
      kind: 'date' as const,
      start: d.start,
      end: d.end,
      text: d.text,
      date: d,
    })),
  ];
  const candidates = [
    ...numberDate,
    ...entityCandidates(summary, names, numberDate),
    ...quoteCandidates(summary),
  ].sort((a, b) => a.start - b.start || b.end - a.end);

  const index = sourceIndexOf(source);
  const folded = foldWidth(summary);
  const items: FactItem[] = [];
  const lookups: Lookup[] = [];
  for (const c of candidates) {
    const hedge = c.number ? hedgeOf(folded, c.number.start, c.number.end) : undefined;
    const lookup =
      c.kind === 'number'
        ? lookupNumber(index, c.number!, hedge)
        : c.kind === 'date'
          ? lookupDate(index, c.date!)
          : c.kind === 'entity'
            ? lookupEntity(index, c.text)
            : lookupQuote(index, c.text);
    if (c.kind === 'entity' && factTokens(c.text).keys.length === 0) continue;
    lookups.push(lookup);
    items.push({
      kind: c.kind,
      text: c.text,
      start: c.start,
      end: c.end,
      sentence: sentenceIndexOf(summarySentences, c.start),
      found: lookup.found,
      ...(lookup.match ? { match: lookup.match } : {}),
      hedged: hedge !== undefined,
      ...(hedge ? { hedge: hedge.text } : {}),
      ...(lookup.share !== undefined ? { share: lookup.share } : {}),
    });
  }

  // Evidence for found items; the closest mention for the rest, near the aligned sentence.
  const queries: Segment[] = [];
  const queryOf = new Map<string, number>();
  const queryIndex = (segment: Segment) => {
    const key = `${segment.start}:${segment.end}`;
    let at = queryOf.get(key);
    if (at === undefined) {
      at = queries.length;
      queries.push(segment);
      queryOf.set(key, at);
    }
    return at;
  };
  const itemQueries = new Map<FactItem, [number, number]>();
  for (const item of items) {
    if (item.found || !summarySentences[item.sentence]) continue;
    const sentence = summarySentences[item.sentence];
    itemQueries.set(item, [queryIndex(clauseOf(sentence, item.start)), queryIndex(sentence)]);
  }
  const { aligned, read } = alignQueries(index, queries, tokenizer);
  const summaryKeys = new Set(factTokens(summary).keys);
  for (const [k, item] of items.entries()) {
    const lookup = lookups[k];
    const c = candidates.find(
      (x) => x.start === item.start && x.end === item.end && x.kind === item.kind,
    )!;
    if (lookup.at) {
      item.source = index.mention(lookup.at[0], lookup.at[1]);
      continue;
    }
    if (item.found) continue;
    const [clause, whole] = itemQueries.get(item) ?? [-1, -1];
    const sentenceAt =
      clause >= 0 && aligned[clause] >= 0 ? aligned[clause] : whole >= 0 ? aligned[whole] : -1;
    const alignedSentence = sentenceAt >= 0 ? index.sentences[sentenceAt] : undefined;
    let closest: { start: number; end: number } | undefined;
    if (item.kind === 'number') closest = closestNumber(index, c.number!, alignedSentence);
    else if (item.kind === 'date') closest = closestDate(index, c.date!, alignedSentence);
    else if (item.kind === 'entity')
      closest = closestName(index, item.text, alignedSentence, summaryKeys);
    if (closest) item.source = index.mention(closest.start, closest.end);
  }

  const counts = Object.fromEntries(
    FACT_KINDS.map((kind) => {
      const ofKind = items.filter((i) => i.kind === kind);
      return [kind, { total: ofKind.length, found: ofKind.filter((i) => i.found).length }];
    }),
  ) as Record<FactKind, FactCounts>;
  const extractors: FactExtractor[] = ['numbers', 'dates', 'quotes', 'capitalised', 'acronyms'];
  if (options.namesBackend) extractors.push('compromise');
  return {
    kind: 'fact-check',
    items,
    counts,
    total: items.length,
    found: items.filter((i) => i.found).length,
    score: items.length > 0 ? items.filter((i) => i.found).length / items.length : null,
    summarySentences,
    extractors,
    language: tokenizer?.language ?? 'und',
    sourceChars: source.length,
    alignedSourceSentences: read,
    ...tokenizerDetail(tokenizer),
  };
}

/** The card's highlights: each item the source does not have, never overlapping. */
export function factCheckSpans(details: FactCheckDetails): TextSpan[] {
  const spans: TextSpan[] = [];
  const flagged = details.items
    .filter((i) => !i.found)
    .sort((a, b) => a.start - b.start || b.end - a.end);
  let cursor = 0;
  for (const i of flagged) {
    if (i.start < cursor) continue;
    spans.push({
      start: i.start,
      end: i.end,
      text: i.text,
      label: NOT_IN_SOURCE_LABEL,
      labelRef: ref('lexical.factCheck.notInSource'),
    });
    cursor = i.end;
  }
  return spans;
}

const EXAMPLES = 3;

/** The metric: the share of the summary's numbers, dates, names and quotes the source has. */
export function scoreFactCheck(
  source: string,
  summary: string,
  options: FactCheckOptions = {},
): MetricResult<'fact-check'> {
  const backend = factCheckBackend(options);
  if (source.trim() === '') {
    return notApplicable('fact-check', backend, ref('lexical.reason.needsSource'), {});
  }
  const prefix = sourcePrefix(source, FACT_SOURCE_CHARS);
  const details = checkFacts(prefix.text, summary, options);
  if (details.total === 0) {
    return notApplicable('fact-check', backend, ref('lexical.factCheck.noItems'), details);
  }
  const missing = details.items.filter((i) => !i.found);
  const examples = missing
    .slice(0, EXAMPLES)
    .map((i) => `“${i.text}”`)
    .join(', ');
  const score = details.found / details.total;
  const result: MetricResult<'fact-check'> = {
    id: 'fact-check',
    status: 'ok',
    score,
    ...(missing.length === 0
      ? explained('lexical.factCheck.allFound', { total: details.total })
      : explained('lexical.factCheck.explanation', {
          found: details.found,
          total: details.total,
          examples,
          more: Math.max(0, missing.length - EXAMPLES),
        })),
    backend,
    details,
  };
  if (prefix.truncated) {
    const note = ref('lexical.sourcePrefix', {
      limit: FACT_SOURCE_CHARS,
      compared: prefix.text.length,
    });
    return withNotes(result, [note]);
  }
  return result;
}
