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
 * Code: this file parses and resolves overlaps; the rules per label family are in compromise/
 * (terms.ts: the typed parse and span building they share; names.ts, dates.ts, numbers.ts;
 * language.ts: the language check).
 *
 * Runs in a Web Worker and in Node: no Node APIs, plugins are loaded once at module level.
 */
import nlp from 'compromise';
import datesPlugin from 'compromise-dates';
import type { TextSpan } from '../types.ts';
import { throwIfAborted } from './backends.ts';
import { CJK_CHAR, splitSentences } from '../text/tokenize.ts';
import type { LanguageAwareRecognizer } from './entity-density/entity-density.ts';
import { dateSpans } from './compromise/dates.ts';
import { assessLanguage, type LanguageAssessment } from './compromise/language.ts';
import { leftoverSpans, nameSpans } from './compromise/names.ts';
import { cjkSpans, numberSpans } from './compromise/numbers.ts';
import { termIndex, tokens, type Candidate, type EntityLabel } from './compromise/terms.ts';

export { assessLanguage, type LanguageAssessment, type EntityLabel };

nlp.extend(datesPlugin);

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

/** Parses kept per recogniser: a worker's single-case form and a run's repeated texts. */
export const DEFAULT_PARSE_CACHE_SIZE = 256;

/**
 * compromise (+ compromise-dates) as an EntityRecognizer; see the file header for the labels.
 *
 * A parse is the largest share of an offline pass, and the same text comes back (Score again
 * after editing the source, a run resumed or scored again, a summary shared by rows), so the
 * spans of the last `cacheSize` texts are kept. The parse is a pure function of the text, so a
 * cached answer is the same answer; callers get copies, so that one cannot change another's.
 */
export class CompromiseRecognizer implements LanguageAwareRecognizer {
  readonly backend = COMPROMISE_BACKEND;
  readonly #cacheSize: number;
  readonly #parses = new Map<string, readonly TextSpan[]>();
  #parsed = 0;

  constructor(options: { cacheSize?: number } = {}) {
    this.#cacheSize = Math.max(0, options.cacheSize ?? DEFAULT_PARSE_CACHE_SIZE);
  }

  /** Texts parsed by compromise so far (cache misses). */
  get parsed(): number {
    return this.#parsed;
  }

  async recognize(text: string, signal?: AbortSignal): Promise<TextSpan[]> {
    throwIfAborted(signal);
    const cached = this.#parses.get(text);
    if (cached) {
      // Most recently used last: the first key is the one to drop.
      this.#parses.delete(text);
      this.#parses.set(text, cached);
      return cached.map((span) => ({ ...span }));
    }
    const spans = await this.#parse(text, signal);
    this.#parsed++;
    if (this.#cacheSize > 0) {
      this.#parses.set(
        text,
        spans.map((span) => ({ ...span })),
      );
      if (this.#parses.size > this.#cacheSize) {
        this.#parses.delete(this.#parses.keys().next().value as string);
      }
    }
    return spans;
  }

  async #parse(text: string, signal?: AbortSignal): Promise<TextSpan[]> {
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
