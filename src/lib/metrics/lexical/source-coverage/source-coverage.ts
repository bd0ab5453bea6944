/**
 * Source coverage: does the summary mention what the source is mostly about? Two recalls, no
 * model. Salient words: the source's K most frequent content words (English stopwords and words
 * without a letter removed, Porter stems so "charged" counts for "charges"); the score is the
 * share of them whose stem the summary uses. Salient sentences: the source's first three (news
 * puts the gist first); one counts as covered when the summary uses at least half of its
 * distinct content stems.
 *
 * K = 10 because the project measured, on SummEval dev, that the recall of the source's ten most
 * frequent content words helps predict expert coherence; ties in frequency go to the word the
 * source uses first. Only English stopwords are removed, so on other languages the salient words
 * include function words and the score says less.
 */
import { explained, ref } from '../../../i18n/message.ts';
import { notApplicable } from '../../results.ts';
import type { MetricResult } from '../../types.ts';
import { firstSentences } from '../../text/source-prefix.ts';
import { lexicalTokens, type Token } from '../extractiveness/extractiveness.ts';
import {
  backendWithTokenizer,
  tokenizerDetail,
  type CaseTokenizer,
} from '../../text/case-tokenizer.ts';
import { createPorterStemmer } from '../porter-stemmer.ts';

export const SOURCE_COVERAGE_BACKEND = 'lexical recall (top-10 content stems, lead-3)';

export const SALIENT_WORDS = 10;
export const SALIENT_SENTENCES = 3;
/** Share of a salient sentence's content stems the summary must use for it to count as covered. */
export const SENTENCE_COVERED_AT = 0.5;
/** Source sentences looked at for the salient ones (sentences without content words are skipped). */
const SALIENT_SCAN = 50;

/** Function words that are frequent in any English text and say nothing about its topic. */
const STOPWORDS = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before ' +
    'being below between both but by can could did do does doing down during each even ever few ' +
    'for from further get got had has have having he her here hers herself him himself his how i ' +
    'if in into is it its itself just like made make many may me might more most much must my ' +
    'myself no nor not now of off on once one only or other our ours ourselves out over own per ' +
    'said same say says she should since so some such than that the their theirs them themselves ' +
    'then there these they this those though through to too two under until up upon us very was ' +
    'we were what when where whether which while who whom whose why will with within without ' +
    'would yet you your yours yourself yourselves new year years told according also mr mrs ms ' +
    's t don didn doesn isn wasn weren won wouldn couldn shouldn ll re ve d m'
  ).split(' '),
);

/** A content word: has a letter, is not a stopword, and is longer than one character. */
export function isContentWord(key: string): boolean {
  return key.length > 1 && /\p{L}/u.test(key) && !STOPWORDS.has(key);
}

const stem = createPorterStemmer();

/** Stems of the content words among `tokens`, in order. */
export function contentStems(tokens: readonly Pick<Token, 'key'>[]): string[] {
  return tokens.filter((t) => isContentWord(t.key)).map((t) => stem(t.key));
}

export interface SalientWord {
  /** The stem that is matched, and the source's first spelling of it. */
  stem: string;
  word: string;
  /** How often the source uses it. */
  count: number;
  covered: boolean;
}

/** The source's `k` most frequent content stems; ties go to the one used first. */
export function salientWords(sourceTokens: readonly Token[], k = SALIENT_WORDS): SalientWord[] {
  const byStem = new Map<string, { word: string; count: number; first: number }>();
  for (const [i, t] of sourceTokens.entries()) {
    if (!isContentWord(t.key)) continue;
    const s = stem(t.key);
    const entry = byStem.get(s);
    if (entry) entry.count++;
    else byStem.set(s, { word: t.key, count: 1, first: i });
  }
  return [...byStem.entries()]
    .sort(([, a], [, b]) => b.count - a.count || a.first - b.first)
    .slice(0, k)
    .map(([s, { word, count }]) => ({ stem: s, word, count, covered: false }));
}

/** Share of the source's salient words whose stem the summary uses (null: no content words). */
export function salientWordRecall(
  source: string,
  summary: string,
  k = SALIENT_WORDS,
): number | null {
  const salient = salientWords(lexicalTokens(source), k);
  if (salient.length === 0) return null;
  const used = new Set(contentStems(lexicalTokens(summary)));
  return salient.filter((w) => used.has(w.stem)).length / salient.length;
}

export interface SalientSentence {
  index: number;
  text: string;
  /** Distinct content stems of the sentence, and how many of them the summary uses. */
  stems: number;
  used: number;
  covered: boolean;
}

export interface SourceCoverageDetails {
  kind: 'source-coverage';
  words: SalientWord[];
  wordRecall: number;
  sentences: SalientSentence[];
  /** Share of the salient sentences covered; null when the source has none with content words. */
  sentenceRecall: number | null;
  /** The tokenizer the backend line names. */
  caseTokenizer?: string;
}

function salientSentences(
  source: string,
  summaryStems: ReadonlySet<string>,
  tokenizer?: CaseTokenizer,
): SalientSentence[] {
  const out: SalientSentence[] = [];
  // The salient sentences are among the first; a huge source is not split past them.
  for (const [index, s] of firstSentences(source, SALIENT_SCAN).sentences.entries()) {
    if (out.length === SALIENT_SENTENCES) break;
    const stems = new Set(contentStems(lexicalTokens(s.text, tokenizer?.words)));
    if (stems.size === 0) continue;
    const used = [...stems].filter((x) => summaryStems.has(x)).length;
    out.push({
      index,
      text: s.text,
      stems: stems.size,
      used,
      covered: used / stems.size >= SENTENCE_COVERED_AT,
    });
  }
  return out;
}

export function scoreSourceCoverage(
  source: string,
  summary: string,
  tokenizer?: CaseTokenizer,
): MetricResult<'source-coverage'> {
  const backend = backendWithTokenizer(SOURCE_COVERAGE_BACKEND, tokenizer);
  const sourceTokens = lexicalTokens(source, tokenizer?.words);
  const words = salientWords(sourceTokens);
  if (words.length === 0) {
    return notApplicable(
      'source-coverage',
      backend,
      source.trim() === ''
        ? ref('lexical.reason.needsSource')
        : ref('lexical.reason.sourceNoContentWords'),
      {},
    );
  }
  const summaryTokens = lexicalTokens(summary, tokenizer?.words);
  if (summaryTokens.length === 0) {
    return notApplicable('source-coverage', backend, ref('lexical.reason.summaryNoWords'), {});
  }
  const used = new Set(contentStems(summaryTokens));
  for (const w of words) w.covered = used.has(w.stem);
  const wordRecall = words.filter((w) => w.covered).length / words.length;
  const sentences = salientSentences(source, used, tokenizer);
  const sentenceRecall =
    sentences.length > 0 ? sentences.filter((s) => s.covered).length / sentences.length : null;
  const missed = words.filter((w) => !w.covered).map((w) => w.word);
  return {
    id: 'source-coverage',
    status: 'ok',
    score: wordRecall,
    ...explained('lexical.sourceCoverage.explanation', {
      used: words.length - missed.length,
      words: words.length,
      share: wordRecall,
      missingCount: missed.length,
      missing: `${missed.slice(0, 5).join(', ')}${missed.length > 5 ? '…' : ''}`,
      sentencesCompared: sentenceRecall === null ? 'no' : 'yes',
      covered: sentences.filter((s) => s.covered).length,
      sentences: sentences.length,
    }),
    backend: backend,
    details: {
      kind: 'source-coverage',
      words,
      wordRecall,
      sentences,
      sentenceRecall,
      ...tokenizerDetail(tokenizer),
    },
  };
}

declare module '../../types.ts' {
  interface OfflineMetricDetails {
    'source-coverage': SourceCoverageDetails;
  }
}
