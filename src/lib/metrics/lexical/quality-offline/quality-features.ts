/**
 * The signals the offline quality estimate combines (quality.ts), each a plain number of one
 * summary against its source, grouped by the dimension they may feed. They are computed here once
 * for the metric and for the script that fits the weights (scripts/fit-quality.ts), so the two
 * cannot drift apart.
 *
 * What is deliberately absent: anything that rises with copying as such — the longest copied
 * fragment, fragment density, novel n-grams, ROUGE against the lead, a bigram model of the source.
 * SummEval's raters rewarded copying (Steen & Markert 2022), so those signals fit SummEval and
 * penalise the abstractive summaries LLMs write. The word-level signals kept here are bags of
 * content stems: a faithful paraphrase that reuses the source's vocabulary in its own sentences
 * scores as well as a copy. Extractiveness stays its own card, describing, not grading.
 */
import { alignSentences, alignSourceToSummary } from '../../text/aligner.ts';
import type { CaseTokenizer } from '../../text/case-tokenizer.ts';
import { firstSentences } from '../../text/source-prefix.ts';
import type { Segment } from '../../text/tokenize.ts';
import { kendallTauB } from '../../../stats/correlation.ts';
import {
  analyseExtractiveness,
  lexicalTokens,
  type ExtractiveAnalysis,
  type Token,
} from '../extractiveness/extractiveness.ts';
import {
  checkFacts,
  type FactCheckDetails,
  type FactCheckOptions,
} from '../fact-check/fact-check.ts';
import { findRepeats } from '../repetition-offline/repetition.ts';
import { contentStems, salientWords } from '../source-coverage/source-coverage.ts';
import { recentValues } from '../../../recent.ts';

export const QUALITY_FEATURE_IDS = [
  'fact-precision',
  'facts-unfound',
  'content-support',
  'unsupported-sentences',
  'aligned-support',
  'negation-mismatch',
  'salient-recall',
  'weighted-recall',
  'central-sentences',
  'log-words',
  'repeat-share',
  'redundancy',
  'order-tau',
  'cut-ending',
  'sentences',
  'dangling-start',
  'adjacent-overlap',
  'sentence-words',
] as const;
export type QualityFeatureId = (typeof QUALITY_FEATURE_IDS)[number];

export const QUALITY_FEATURE_LABELS: Record<QualityFeatureId, string> = {
  'fact-precision': 'share of numbers, names, dates and quotes found in the source (fact check)',
  'facts-unfound': 'log(1 + facts not found in the source)',
  'content-support': "share of the summary's content words found in the source",
  'unsupported-sentences': 'share of sentences with under 60% of their content words in the source',
  'aligned-support': "mean share of a sentence's content words in its aligned source sentence",
  'negation-mismatch':
    'share of sentences whose negation (not, no, never…) differs from their aligned source sentence',
  'salient-recall': "recall of the source's 10 most frequent content words",
  'weighted-recall': "frequency-weighted recall of the source's 30 most frequent content words",
  'central-sentences': "share of the source's 5 most central sentences the summary covers",
  'log-words': 'log(words)',
  'repeat-share': 'share of words repeating an earlier phrase',
  redundancy: 'largest content-word overlap (Jaccard) of two summary sentences',
  'order-tau': 'Kendall τ of the aligned source positions (0 with under two aligned)',
  'cut-ending': 'last sentence has no terminal punctuation (1) or has (0)',
  sentences: 'sentences',
  'dangling-start':
    'first sentence opens with a pronoun or connective that needs an earlier sentence (1) or not (0)',
  'adjacent-overlap': 'mean content-word overlap (Jaccard) of neighbouring summary sentences',
  'sentence-words': 'mean words per sentence',
};

export type QualityFeatures = Record<QualityFeatureId, number>;

/** Everything one computation yields: the features, and what the guards and the card reuse. */
export interface QualitySignals {
  features: QualityFeatures;
  analysis: ExtractiveAnalysis;
  facts: FactCheckDetails;
}

/** A sentence is unsupported below this share of its distinct content stems in the source. */
export const SENTENCE_SUPPORTED_AT = 0.6;
/** A source sentence counts as covered when a summary sentence holds this share of its stems. */
const COVERED_AT = 0.5;
/** An aligned pair counts for the order signal from this lexical share. */
const ORDER_ALIGNED_AT = 0.3;
const CENTRAL_SENTENCES = 5;
const WEIGHTED_WORDS = 30;
/** Source sentences compared: every ordinary article whole, a bounded cost for a huge one. */
const SOURCE_SENTENCE_SCAN = 400;

/**
 * Words that point back to something said before: a summary that opens with one was cut out of a
 * longer text (an extractive habit) and leaves the reader without its antecedent. English only;
 * other languages simply never fire it.
 */
const DANGLING = new Set(
  (
    'he she it they him her them his hers its their theirs this these those that such ' +
    'but however also and so yet meanwhile moreover furthermore therefore thus instead besides'
  ).split(' '),
);

/** English negations: a sentence that says "not" where its source sentence does not, or the reverse. */
const NEGATION = /\b(?:not|no|never|none|nobody|nothing|neither|nor|without|cannot)\b|n[’']t\b/giu;

function negations(text: string): number {
  return text.match(NEGATION)?.length ?? 0;
}

const TERMINAL = /[.!?…。！？]["'”’)\]»」』]*$/u;

function stemSet(text: string, tokenizer?: CaseTokenizer): Set<string> {
  return new Set(contentStems(lexicalTokens(text, tokenizer?.words)));
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const x of a) if (b.has(x)) shared++;
  return shared / (a.size + b.size - shared);
}

/** The source sentences with the most frequent content stems (position plays no part). */
function centralSentences(
  source: readonly Set<string>[],
  frequency: ReadonlyMap<string, number>,
): number[] {
  const weight = (set: Set<string>) => {
    let sum = 0;
    for (const s of set) sum += Math.log1p(frequency.get(s) ?? 0);
    // Per stem, so a long sentence is not central for its length alone.
    return set.size > 0 ? sum / Math.sqrt(set.size) : 0;
  };
  return source
    .map((set, index) => ({ index, w: weight(set) }))
    .sort((a, b) => b.w - a.w || a.index - b.index)
    .slice(0, CENTRAL_SENTENCES)
    .map((s) => s.index);
}

interface SourceSide {
  sentences: Segment[];
  tokens: Token[];
  stemSet: Set<string>;
  frequency: Map<string, number>;
  sentenceStems: Set<string>[];
  central: number[];
}

/**
 * The source's half of the signals, kept for the last few sources: a data set scores several
 * summaries of one source in a row, and a long transcript costs more to split than all the rest.
 */
const recentSourceSides = recentValues<
  { source: string; tokenizer: CaseTokenizer | undefined },
  SourceSide
>(4, (a, b) => a.source === b.source && a.tokenizer === b.tokenizer);

function sourceSide(source: string, tokenizer?: CaseTokenizer): SourceSide {
  return recentSourceSides({ source, tokenizer }, () => {
    const sentences = firstSentences(source, SOURCE_SENTENCE_SCAN).sentences;
    const tokens = lexicalTokens(source, tokenizer?.words);
    const stems = contentStems(tokens);
    const frequency = new Map<string, number>();
    for (const s of stems) frequency.set(s, (frequency.get(s) ?? 0) + 1);
    const sentenceStems = sentences.map((s) => stemSet(s.text, tokenizer));
    return {
      sentences,
      tokens,
      stemSet: new Set(stems),
      frequency,
      sentenceStems,
      central: centralSentences(sentenceStems, frequency),
    };
  });
}

export function qualitySignals(
  source: string,
  summary: string,
  tokenizer?: CaseTokenizer,
  analysis: ExtractiveAnalysis = analyseExtractiveness(source, summary, tokenizer),
  /** Names a recogniser found in the summary (compromise, English), as the fact-check card uses. */
  names: Pick<FactCheckOptions, 'names' | 'namesBackend'> = {},
): QualitySignals {
  const keys = analysis.summaryTokens.map((t) => t.key);
  const words = keys.length;
  const summarySentences: Segment[] = analysis.sentences;
  const {
    sentences: sourceSentences,
    tokens: sourceTokens,
    stemSet: sourceStemSet,
    frequency,
    central,
  } = sourceSide(source, tokenizer);

  const summaryStems = contentStems(analysis.summaryTokens);
  const summaryStemSet = new Set(summaryStems);
  const sentenceStems = summarySentences.map((s) => stemSet(s.text, tokenizer));

  const facts = checkFacts(source, summary, { tokenizer, ...names });
  const factItems = facts.items;
  const unfound = factItems.filter((i) => !i.found).length;

  const withStems = sentenceStems.filter((s) => s.size > 0);
  const unsupported = withStems.filter((set) => {
    let inSource = 0;
    for (const s of set) if (sourceStemSet.has(s)) inSource++;
    return inSource / set.size < SENTENCE_SUPPORTED_AT;
  }).length;

  const alignment = alignSentences(summarySentences, sourceSentences, { tokenizer });
  const aligned = alignment.filter((_, i) => sentenceStems[i].size > 0);
  const negationMismatches = alignment.filter(
    (a, i) =>
      a.index >= 0 &&
      negations(summarySentences[i].text) % 2 !== negations(sourceSentences[a.index].text) % 2,
  ).length;

  const salient = salientWords(sourceTokens);
  const topWeighted = [...frequency.entries()].sort((a, b) => b[1] - a[1]).slice(0, WEIGHTED_WORDS);
  const weightedTotal = topWeighted.reduce((sum, [, n]) => sum + n, 0);
  const weightedCovered = topWeighted.reduce(
    (sum, [s, n]) => sum + (summaryStemSet.has(s) ? n : 0),
    0,
  );

  const reverse = alignSourceToSummary(summarySentences, sourceSentences, { tokenizer });
  const centralCovered = central.filter((i) => (reverse[i]?.lexical ?? 0) >= COVERED_AT).length;

  let redundancy = 0;
  for (let i = 0; i < sentenceStems.length; i++) {
    for (let j = i + 1; j < sentenceStems.length; j++) {
      redundancy = Math.max(redundancy, jaccard(sentenceStems[i], sentenceStems[j]));
    }
  }

  const positions = alignment
    .filter((a) => a.index >= 0 && a.lexical >= ORDER_ALIGNED_AT)
    .map((a) => a.index);
  const order =
    positions.length >= 2
      ? (kendallTauB(
          positions.map((_, i) => i),
          positions,
        ) ?? 0)
      : 0;

  let adjacent = 0;
  for (let i = 1; i < sentenceStems.length; i++) {
    adjacent += jaccard(sentenceStems[i - 1], sentenceStems[i]);
  }
  const firstWord = analysis.summaryTokens[0]?.key ?? '';

  const repeated = findRepeats(keys).reduce((sum, r) => sum + r.length, 0);
  const last = summarySentences[summarySentences.length - 1];

  const features: QualityFeatures = {
    'fact-precision': factItems.length > 0 ? (factItems.length - unfound) / factItems.length : 1,
    'facts-unfound': Math.log1p(unfound),
    'content-support':
      summaryStems.length > 0
        ? summaryStems.filter((s) => sourceStemSet.has(s)).length / summaryStems.length
        : 0,
    'unsupported-sentences': withStems.length > 0 ? unsupported / withStems.length : 0,
    'aligned-support':
      aligned.length > 0 ? aligned.reduce((sum, a) => sum + a.lexical, 0) / aligned.length : 0,
    'negation-mismatch':
      summarySentences.length > 0 ? negationMismatches / summarySentences.length : 0,
    'salient-recall':
      salient.length > 0
        ? salient.filter((w) => summaryStemSet.has(w.stem)).length / salient.length
        : 0,
    'weighted-recall': weightedTotal > 0 ? weightedCovered / weightedTotal : 0,
    'central-sentences': central.length > 0 ? centralCovered / central.length : 0,
    'log-words': Math.log(Math.max(1, words)),
    'repeat-share': words > 0 ? repeated / words : 0,
    redundancy,
    'order-tau': order,
    'cut-ending': last && !TERMINAL.test(last.text.trim()) ? 1 : 0,
    sentences: summarySentences.length,
    'dangling-start': DANGLING.has(firstWord) ? 1 : 0,
    'adjacent-overlap': sentenceStems.length > 1 ? adjacent / (sentenceStems.length - 1) : 0,
    'sentence-words': summarySentences.length > 0 ? words / summarySentences.length : words,
  };
  return { features, analysis, facts };
}

/** The features alone (the fit script's view). */
export function qualityFeatures(
  source: string,
  summary: string,
  tokenizer?: CaseTokenizer,
): QualityFeatures {
  return qualitySignals(source, summary, tokenizer).features;
}
