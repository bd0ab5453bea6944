/** The fact check's index of the source: its numbers, dates and tokens, searched by every lookup. */
import type { Segment } from '../../text/tokenize.ts';
import { firstSentences } from '../../text/source-prefix.ts';
import { numbersAndDates, type DateMention, type NumberMention } from './fact-check-numbers.ts';
import { dateIndexKeys } from './dates.ts';
import type { SourceMention } from './fact-check.ts';
import { type Tokens, factTokens } from './fact-tokens.ts';
import { ACRONYM, type NameSpan, initialsOf, nameSpans } from './names.ts';

// ── the source index ─────────────────────────────────────────────────────────────────────────

interface IndexedNumber {
  value: number;
  mention: NumberMention;
}

/** Everything the lookups read, built from the source once. */
export class SourceIndex {
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

export function lowerBound(sorted: ArrayLike<number>, x: number): number {
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
export function within<T extends { start: number }>(
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

export function valueKey(v: number, ordinal: boolean): string {
  return `${ordinal ? 'o:' : ''}${Number(Math.abs(v).toPrecision(12))}`;
}
