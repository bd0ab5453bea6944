/**
 * Number spans: MONEY, PERCENT, QUANTITY, ORDINAL, CARDINAL, ages and bare years from
 * compromise's numbers and money, and the regex fallback for Chinese and Japanese text, where
 * compromise cannot split words and only digits can be found.
 */
import {
  breaksAfter,
  charSpan,
  has,
  ranges,
  splitAtPunctuation,
  trim,
  type Candidate,
  type Doc,
  type EntityLabel,
  type TermIndex,
  type Tok,
} from './terms.ts';

const CURRENCY_TEXT = /^(?:[A-Z]{0,3}[$€£¥₹₩₽₺₦₱]\s?\d|\d[\d.,]*\s?[€£¥₹₩₽])/u;
const NON_QUANTITY_UNITS =
  /^(?:years?|old|months?|weeks?|days?|decades?|centuries|century|percent|%|pct|cents?)$/u;

export function numberSpans(
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

// Chinese / Japanese fallback

const CJK_ENTITY =
  /(?<![\w.,/:-])(?:(\d{4}年(?:\d{1,2}月(?:\d{1,2}日)?)?|\d{1,2}月\d{1,2}日)|(\d+(?:[.,]\d+)*\s?[%％])|(\d+(?:[.,]\d+)*[万亿億兆]*))(?![\w/:-])/gu;

/** In text without spaces compromise sees whole clauses as one term: find numbers by regex. */
export function cjkSpans(tok: Tok, out: Candidate[]): void {
  for (const m of tok.text.matchAll(CJK_ENTITY)) {
    const start = tok.start + (m.index ?? 0);
    const label: EntityLabel = m[1] ? 'DATE' : m[2] ? 'PERCENT' : 'CARDINAL';
    out.push({ start, end: start + m[0].length, label });
  }
}
