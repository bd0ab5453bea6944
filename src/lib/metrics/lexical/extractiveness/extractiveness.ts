/**
 * Extractiveness: how much of the summary is copied from the source, after Grusky et al. 2018
 * (Newsroom). Over lower-cased word tokens (Intl.Segmenter words, punctuation dropped), the
 * paper's greedy algorithm cuts the summary into extractive fragments: at each summary position,
 * the longest run of words that also occurs, in order and contiguously, in the source. From them:
 * fragment coverage (share of summary words inside a fragment), fragment density (the mean
 * squared fragment length per summary word: the average length of the copied run a word sits
 * in) and the compression ratio (source words per summary word). The details add novel n-gram
 * rates, whole sentences copied verbatim and the longest copied fragment.
 *
 * The score is fragment coverage: it describes copying, and a copy of the source's first
 * sentences scores 1, so it is never a quality rating. The pure functions are exported for the
 * offline quality estimate, which reads the same signals.
 */
import { explained, ref } from '../../../i18n/message.ts';
import { notApplicable } from '../../results.ts';
import type { MetricResult, TextSpan } from '../../types.ts';
import { splitSentences, splitWords, type Segment } from '../../text/tokenize.ts';
import {
  backendWithTokenizer,
  tokenizerDetail,
  type CaseTokenizer,
} from '../../text/case-tokenizer.ts';

export const EXTRACTIVENESS_BACKEND = 'lexical fragments (Grusky et al. 2018 greedy)';

/** A summary sentence is called verbatim only from this many words: "He said." is no copy. */
export const MIN_VERBATIM_WORDS = 4;

export const NOVEL_NGRAM_SIZES = [1, 2, 3, 4] as const;

export interface Token {
  key: string;
  start: number;
  end: number;
}

/** Word segments with offsets: the case tokenizer's `words`, or by default Intl.Segmenter's. */
export type WordSplitter = (text: string) => readonly Segment[];

const defaultWords: WordSplitter = (text) => splitWords(text);

/** Lower-cased, NFKC-normalised word tokens with their offsets into `text`. */
export function lexicalTokens(text: string, words: WordSplitter = defaultWords): Token[] {
  return words(text).map((w) => ({
    key: w.text.normalize('NFKC').toLowerCase(),
    start: w.start,
    end: w.end,
  }));
}

export interface Fragment {
  /** First summary word of the fragment (0-based) and its length in words. */
  at: number;
  length: number;
  /** Where the same words start in the source (the first such place). */
  sourceAt: number;
}

/** Positions of every key in the source, for the matching loops. */
export function positionsOf(keys: readonly string[]): Map<string, number[]> {
  const positions = new Map<string, number[]>();
  for (const [i, key] of keys.entries()) {
    const list = positions.get(key);
    if (list) list.push(i);
    else positions.set(key, [i]);
  }
  return positions;
}

function matchLength(
  summary: readonly string[],
  i: number,
  source: readonly string[],
  j: number,
): number {
  let length = 0;
  while (i + length < summary.length && j + length < source.length) {
    if (summary[i + length] !== source[j + length]) break;
    length++;
  }
  return length;
}

/**
 * The greedy fragments of Grusky et al. 2018 (Algorithm 1). At summary position i the source is
 * scanned left to right; a match is followed to its end and the scan resumes after it, the longest
 * match seen is the fragment, and i jumps past it (or one word when nothing matched). Scanning
 * only the source positions holding the summary word gives the same fragments as the paper's
 * word-by-word scan.
 */
export function greedyFragments(
  summary: readonly string[],
  source: readonly string[],
  sourcePositions: Map<string, number[]> = positionsOf(source),
): Fragment[] {
  const fragments: Fragment[] = [];
  for (let i = 0; i < summary.length;) {
    let best: Fragment | undefined;
    let resume = 0;
    for (const j of sourcePositions.get(summary[i]) ?? []) {
      if (j < resume) continue;
      const length = matchLength(summary, i, source, j);
      if (!best || length > best.length) best = { at: i, length, sourceAt: j };
      resume = j + length;
    }
    if (best) {
      fragments.push(best);
      i += best.length;
    } else {
      i++;
    }
  }
  return fragments;
}

export interface FragmentStats {
  /** Share of summary words inside a fragment, 0–1. */
  coverage: number;
  /** Σ |fragment|² / summary words. */
  density: number;
  /** Source words per summary word. */
  compression: number;
  /** Length in words of the longest fragment (0 when nothing is copied). */
  longest: number;
}

export function fragmentStats(
  fragments: readonly Fragment[],
  summaryWords: number,
  sourceWords: number,
): FragmentStats {
  let copied = 0;
  let squares = 0;
  let longest = 0;
  for (const f of fragments) {
    copied += f.length;
    squares += f.length * f.length;
    longest = Math.max(longest, f.length);
  }
  return {
    coverage: summaryWords > 0 ? copied / summaryWords : 0,
    density: summaryWords > 0 ? squares / summaryWords : 0,
    compression: summaryWords > 0 ? sourceWords / summaryWords : 0,
    longest,
  };
}

export interface NovelNgramRate {
  n: number;
  /** Summary n-grams (occurrences) not found anywhere in the source. */
  novel: number;
  total: number;
  /** novel / total; null when the summary has fewer than n words. */
  rate: number | null;
}

function ngramSet(keys: readonly string[], n: number): Set<string> {
  const set = new Set<string>();
  for (let i = 0; i + n <= keys.length; i++) set.add(keys.slice(i, i + n).join('\u0001'));
  return set;
}

/** Share of the summary's n-gram occurrences that the source never has. */
export function novelNgramRate(
  summary: readonly string[],
  source: readonly string[],
  n: number,
): NovelNgramRate {
  const known = ngramSet(source, n);
  const total = Math.max(0, summary.length - n + 1);
  let novel = 0;
  for (let i = 0; i < total; i++) {
    if (!known.has(summary.slice(i, i + n).join('\u0001'))) novel++;
  }
  return { n, novel, total, rate: total > 0 ? novel / total : null };
}

export interface VerbatimSentence {
  /** Index among the summary's sentences. */
  index: number;
  start: number;
  end: number;
  text: string;
  /** Where its words start in the source, in words. */
  sourceAt: number;
}

/** Word index ranges [from, to) of each sentence, by the tokens' offsets. */
export function sentenceWordRanges(
  sentences: readonly Segment[],
  tokens: readonly Token[],
): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  let t = 0;
  for (const s of sentences) {
    while (t < tokens.length && tokens[t].start < s.start) t++;
    const from = t;
    while (t < tokens.length && tokens[t].end <= s.end) t++;
    ranges.push([from, t]);
  }
  return ranges;
}

/**
 * Summary sentences of at least MIN_VERBATIM_WORDS words whose words occur whole, contiguously and
 * in order, in the source.
 */
export function verbatimSentences(
  sentences: readonly Segment[],
  summaryTokens: readonly Token[],
  source: readonly string[],
  sourcePositions: Map<string, number[]> = positionsOf(source),
): VerbatimSentence[] {
  const keys = summaryTokens.map((t) => t.key);
  const out: VerbatimSentence[] = [];
  for (const [index, [from, to]] of sentenceWordRanges(sentences, summaryTokens).entries()) {
    const words = to - from;
    if (words < MIN_VERBATIM_WORDS) continue;
    const sentenceKeys = keys.slice(from, to);
    const sourceAt = (sourcePositions.get(sentenceKeys[0]) ?? []).find(
      (j) => matchLength(sentenceKeys, 0, source, j) === words,
    );
    if (sourceAt === undefined) continue;
    const s = sentences[index];
    out.push({ index, start: s.start, end: s.end, text: s.text, sourceAt });
  }
  return out;
}

export interface CopiedFragment {
  start: number;
  end: number;
  text: string;
  words: number;
}

export interface ExtractivenessDetails {
  kind: 'extractiveness';
  summaryWords: number;
  sourceWords: number;
  stats: FragmentStats;
  novel: NovelNgramRate[];
  /** Copied fragments of two or more words, in summary order (single shared words are common). */
  fragments: CopiedFragment[];
  sentences: number;
  verbatim: VerbatimSentence[];
  longestFragment: CopiedFragment | null;
  /** The tokenizer the backend line names. */
  caseTokenizer?: string;
}

/** The signals of one summary against its source, shared with the quality estimate. */
export interface ExtractiveAnalysis {
  summaryTokens: Token[];
  sourceKeys: string[];
  fragments: Fragment[];
  stats: FragmentStats;
  sentences: Segment[];
  verbatim: VerbatimSentence[];
}

export function analyseExtractiveness(
  source: string,
  summary: string,
  tokenizer?: CaseTokenizer,
): ExtractiveAnalysis {
  const summaryTokens = lexicalTokens(summary, tokenizer?.words);
  const sourceKeys = lexicalTokens(source, tokenizer?.words).map((t) => t.key);
  const positions = positionsOf(sourceKeys);
  const keys = summaryTokens.map((t) => t.key);
  const fragments = greedyFragments(keys, sourceKeys, positions);
  const sentences = tokenizer ? splitSentences(summary, tokenizer.locale) : splitSentences(summary);
  return {
    summaryTokens,
    sourceKeys,
    fragments,
    stats: fragmentStats(fragments, keys.length, sourceKeys.length),
    sentences,
    verbatim: verbatimSentences(sentences, summaryTokens, sourceKeys, positions),
  };
}

function copiedFragment(summary: string, tokens: readonly Token[], f: Fragment): CopiedFragment {
  const start = tokens[f.at].start;
  const end = tokens[f.at + f.length - 1].end;
  return { start, end, text: summary.slice(start, end), words: f.length };
}

/** Label of a highlighted sentence that the source has word for word. */
export const VERBATIM_LABEL = 'sentence copied whole';

/** Fragment length in words from which the view uses its darkest shade. */
export const LONG_FRAGMENT = 10;

/**
 * Highlights for the card: each verbatim sentence as one span, and the copied fragments outside
 * them, labelled with their length (the view shades by it). Spans never overlap.
 */
export function extractivenessSpans(details: ExtractivenessDetails): TextSpan[] {
  const sentences = details.verbatim.map((v) => ({
    start: v.start,
    end: v.end,
    text: v.text,
    label: VERBATIM_LABEL,
  }));
  const inSentence = (f: CopiedFragment) =>
    sentences.some((v) => f.start < v.end && v.start < f.end);
  const fragments = details.fragments
    .filter((f) => !inSentence(f))
    .map((f) => ({ start: f.start, end: f.end, text: f.text, label: `copied, ${f.words} words` }));
  return [...sentences, ...fragments].sort((a, b) => a.start - b.start);
}

export function scoreExtractiveness(
  source: string,
  summary: string,
  tokenizer?: CaseTokenizer,
): MetricResult<'extractiveness'> {
  const backend = backendWithTokenizer(EXTRACTIVENESS_BACKEND, tokenizer);
  if (source.trim() === '') {
    return notApplicable('extractiveness', backend, ref('lexical.reason.needsSource'), {});
  }
  const analysis = analyseExtractiveness(source, summary, tokenizer);
  const { summaryTokens, sourceKeys, stats } = analysis;
  if (summaryTokens.length === 0) {
    return notApplicable('extractiveness', backend, ref('lexical.reason.summaryNoWords'), {});
  }
  if (sourceKeys.length === 0) {
    return notApplicable('extractiveness', backend, ref('lexical.reason.sourceNoWords'), {});
  }
  const keys = summaryTokens.map((t) => t.key);
  const copied = analysis.fragments
    .filter((f) => f.length >= 2)
    .map((f) => copiedFragment(summary, summaryTokens, f));
  const longest = analysis.fragments.reduce<Fragment | undefined>(
    (best, f) => (!best || f.length > best.length ? f : best),
    undefined,
  );
  const details: ExtractivenessDetails = {
    kind: 'extractiveness',
    summaryWords: keys.length,
    sourceWords: sourceKeys.length,
    stats,
    novel: NOVEL_NGRAM_SIZES.map((n) => novelNgramRate(keys, sourceKeys, n)),
    fragments: copied,
    sentences: analysis.sentences.length,
    verbatim: analysis.verbatim,
    longestFragment: longest ? copiedFragment(summary, summaryTokens, longest) : null,
    ...tokenizerDetail(tokenizer),
  };
  return {
    id: 'extractiveness',
    status: 'ok',
    score: stats.coverage,
    raw: stats.density,
    ...explained('lexical.extractiveness.explanation', {
      coverage: stats.coverage,
      words: keys.length,
      density: stats.density,
      longest: stats.longest,
      verbatim: details.verbatim.length,
      sentences: details.sentences,
    }),
    backend: backend,
    details,
  };
}

declare module '../../types.ts' {
  interface OfflineMetricDetails {
    extractiveness: ExtractivenessDetails;
  }
}
