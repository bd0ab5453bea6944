/** For an item the source lacks, the closest source mention, so that the reader can compare. */
import type { Segment } from '../../text/tokenize.ts';
import { alignSentences } from '../../text/aligner.ts';
import type { CaseTokenizer } from '../../text/case-tokenizer.ts';
import { isContentWord } from '../source-coverage/source-coverage.ts';
import type { DateMention, DateParts, NumberMention } from './fact-check-numbers.ts';
import { ALIGN_ALL_UP_TO, ALIGN_CANDIDATES, factTokens } from './fact-tokens.ts';
import type { NameSpan } from './names.ts';
import { SourceIndex, lowerBound, valueKey, within } from './source-index.ts';
import { editDistance } from './lookups.ts';

function digitsOf(v: number): string {
  return String(Number(Math.abs(v).toPrecision(12))).replace('.', '');
}

/** Source numbers near `v` in value or one digit away: 18,480 → 8,480. */
export function closestNumber(
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
export function closestName(
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

export function closestDate(
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
export function alignQueries(
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
export function clauseOf(sentence: Segment, at: number): Segment {
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
