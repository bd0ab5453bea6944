/**
 * DATE and TIME spans: runs of compromise's #Date terms, split at prepositions and punctuation,
 * kept when they hold a date or time anchor (see the label list in compromise-ner.ts).
 */
import {
  charSpan,
  has,
  splitAtPunctuation,
  trim,
  type Candidate,
  type EntityLabel,
  type Tok,
} from './terms.ts';

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

export function dateSpans(toks: Tok[], text: string, out: Candidate[]): void {
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
