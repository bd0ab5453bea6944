/** Whether the source has a summary item: the lookup of each kind (entity, number, date, quote). */
import {
  hedgeOf,
  hedgeRange,
  type DateMention,
  type DateParts,
  type NumberMention,
} from './fact-check-numbers.ts';
import { dateKeys } from './dates.ts';
import type { FactMatch } from './fact-check.ts';
import { QUOTE_SHARE, factTokens } from './fact-tokens.ts';
import { ACRONYM, initialsOf } from './names.ts';
import { SourceIndex, lowerBound, valueKey, within } from './source-index.ts';

// ── lookups ──────────────────────────────────────────────────────────────────────────────────

export interface Lookup {
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

export function lookupEntity(index: SourceIndex, text: string): Lookup {
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

export function lookupNumber(
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

export function lookupDate(index: SourceIndex, d: DateMention): Lookup {
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

export function lookupQuote(index: SourceIndex, text: string): Lookup {
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

export function editDistance(a: string, b: string): number {
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
