/**
 * compromise's parse, typed and aligned to the text (its terms as `Tok`s with UTF-16 offsets),
 * and the span building every label's rules share: splitting at punctuation, trimming edge words
 * and turning a term range into a character span. Kept apart from the label rules (names.ts,
 * dates.ts, numbers.ts) so that each rule file reads as what it recognises.
 */
import type nlp from 'compromise';
import { CJK_CHAR } from '../../text/tokenize.ts';

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

export interface Tok {
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

export type Doc = ReturnType<typeof nlp>;
/** Any compromise selection: its terms, the same objects as in the parsed document. */
export interface View {
  readonly docs: readonly (readonly object[])[];
}

/** Global term index of every term object of a parsed document. */
export type TermIndex = Map<object, number>;

export function termIndex(doc: Doc): TermIndex {
  const index: TermIndex = new Map();
  for (const sentence of doc.docs) for (const term of sentence) index.set(term, index.size);
  return index;
}

/** [first, last] global term indices of each match of a selection. (Reading `.docs` is ~10×
 * faster than `.json()` on a selection.) */
export function ranges(view: View, index: TermIndex): [number, number][] {
  const out: [number, number][] = [];
  for (const match of view.docs) {
    const first = match.length ? index.get(match[0]) : undefined;
    const last = match.length ? index.get(match[match.length - 1]) : undefined;
    if (first !== undefined && last !== undefined && last >= first) out.push([first, last]);
  }
  return out;
}

export function tokens(doc: Doc, text: string, base: number): Tok[] {
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

// Span building on term ranges

export interface Candidate {
  start: number;
  end: number;
  label: EntityLabel;
}

const UPPER = /\p{Lu}/u;

const BREAK_AFTER = /[,;:()[\]{}"“”!?|]/u;
const BREAK_BEFORE = /[()[\]{}"“”|]/u;

export function isPossessive(t: Tok): boolean {
  return t.tags.has('Possessive') && /['’]s?$/u.test(t.text);
}

export function breaksAfter(t: Tok): boolean {
  return BREAK_AFTER.test(t.post);
}

/** Split [a, b] at punctuation between terms; `keep(i)` may veto a break after term i. */
export function splitAtPunctuation(
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

export function has(t: Tok, ...tags: string[]): boolean {
  return tags.some((tag) => t.tags.has(tag));
}

/** Shrink [a, b] while an edge term is empty or dropped; null when nothing is left. */
export function trim(
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
export function charSpan(
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

export function hasUpper(t: Tok): boolean {
  return UPPER.test(t.text);
}

export function noUpper(t: Tok): boolean {
  return !UPPER.test(t.text);
}
