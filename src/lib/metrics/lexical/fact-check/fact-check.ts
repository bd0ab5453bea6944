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
import { sourcePrefix } from '../../text/source-prefix.ts';
import {
  backendWithTokenizer,
  tokenizerDetail,
  type CaseTokenizer,
} from '../../text/case-tokenizer.ts';
import { foldWidth } from './number-words.ts';
import { hedgeOf, numbersAndDates } from './fact-check-numbers.ts';
import { recentValues } from '../../../recent.ts';
import {
  FACT_CHECK_BASE,
  FACT_SOURCE_CHARS,
  NOT_IN_SOURCE_LABEL,
  factTokens,
} from './fact-tokens.ts';
import { SourceIndex } from './source-index.ts';
import { type Candidate, entityCandidates, quoteCandidates } from './candidates.ts';
import { type Lookup, lookupDate, lookupEntity, lookupNumber, lookupQuote } from './lookups.ts';
import { alignQueries, clauseOf, closestDate, closestName, closestNumber } from './closest.ts';

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
