/**
 * Finding the text a judge quotes (a supporting source span, a repeated phrase) in the ORIGINAL
 * string, as UTF-16 offsets the UI can highlight. Judges copy loosely: first an exact search, then
 * one with whitespace runs collapsed, then one that also ignores case. Quotes, ellipses and spaces
 * the judge wraps the quote in are trimmed first. Nothing found → null (never a guess).
 */

export interface Offsets {
  start: number;
  end: number;
}

// Wrapping the judge often adds: straight and curly quotes, ellipses, spaces.
const WRAPPING = /^[\s"'“”‘’«»„…]+|[\s"'“”‘’«»„…]+$/gu;
// ... and an ASCII ellipsis ("...") at either end.
const DOTS = /^\.{3,}|\.{3,}$/gu;

export function cleanQuote(quote: string): string {
  let q = quote;
  for (let i = 0; i < 3; i++) q = q.replace(WRAPPING, '').replace(DOTS, '');
  return q;
}

interface Normalised {
  text: string;
  /** For each code unit of `text`, the index of the original code unit it came from. */
  map: number[];
}

/** Collapses whitespace runs to one space (and lower-cases when asked), keeping a map back. */
function normalise(text: string, foldCase: boolean): Normalised {
  let out = '';
  const map: number[] = [];
  let inSpace = false;
  let i = 0;
  for (const ch of text) {
    if (/\s/u.test(ch)) {
      if (!inSpace) {
        out += ' ';
        map.push(i);
      }
      inSpace = true;
    } else {
      inSpace = false;
      const piece = foldCase ? ch.toLowerCase() : ch;
      for (let k = 0; k < piece.length; k++) {
        out += piece[k];
        // Every unit of a folded character maps to the start of the original character.
        map.push(i + Math.min(k, ch.length - 1));
      }
    }
    i += ch.length;
  }
  return { text: out, map };
}

/** Where the original character behind normalised index `k` ends. */
function originalEnd(text: string, start: number): number {
  const code = text.codePointAt(start) ?? 0;
  return start + (code > 0xffff ? 2 : 1);
}

/** The first place `quote` occurs in `haystack` (exact, then whitespace-, then case-insensitive). */
export function locateSpan(haystack: string, quote: string | null | undefined): Offsets | null {
  if (!quote) return null;
  const q = cleanQuote(quote);
  if (!q) return null;
  const exact = haystack.indexOf(q);
  if (exact >= 0) return { start: exact, end: exact + q.length };
  for (const foldCase of [false, true]) {
    const h = normalise(haystack, foldCase);
    const n = normalise(q, foldCase).text.trim();
    if (!n) return null;
    const at = h.text.indexOf(n);
    if (at >= 0) {
      const start = h.map[at];
      const end = originalEnd(haystack, h.map[at + n.length - 1]);
      return { start, end };
    }
  }
  return null;
}

/** Every non-overlapping occurrence of `quote` (same matching rules as `locateSpan`). */
export function locateAll(haystack: string, quote: string | null | undefined): Offsets[] {
  const out: Offsets[] = [];
  let from = 0;
  while (from < haystack.length) {
    const hit = locateSpan(haystack.slice(from), quote);
    if (!hit) break;
    out.push({ start: from + hit.start, end: from + hit.end });
    from += hit.end;
  }
  return out;
}
