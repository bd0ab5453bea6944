/**
 * The lexical signals the offline quality estimate combines (quality.ts), each a plain number of
 * one summary against its source. They are computed here once for the metric and for the script
 * that fits the weights (scripts/fit-quality.ts), so the two cannot drift apart.
 */
import {
  analyseExtractiveness,
  lexicalTokens,
  novelNgramRate,
  type ExtractiveAnalysis,
} from './extractiveness.ts';
import { findRepeats } from './repetition.ts';
import { rougeNFromTokens } from './rouge.ts';
import { contentStems, salientWords } from './source-coverage.ts';
import { firstSentences } from '../text/source-prefix.ts';

export const QUALITY_FEATURE_IDS = [
  'repeat-share',
  'sentences',
  'salient-recall',
  'bigram-logprob',
  'longest-copy-share',
  'rouge2-lead3',
  'novel-4gram-rate',
  'verbatim-share',
  'fragment-density',
] as const;
export type QualityFeatureId = (typeof QUALITY_FEATURE_IDS)[number];

export const QUALITY_FEATURE_LABELS: Record<QualityFeatureId, string> = {
  'repeat-share': 'share of words repeating an earlier phrase',
  sentences: 'sentences',
  'salient-recall': "recall of the source's 10 most frequent content words",
  'bigram-logprob': "mean log-probability of the summary's word pairs under the source",
  'longest-copy-share': 'longest copied fragment / summary words',
  'rouge2-lead3': "ROUGE-2 F against the source's first three sentences",
  'novel-4gram-rate': 'share of 4-grams not in the source',
  'verbatim-share': 'share of sentences copied whole from the source',
  'fragment-density': 'log(1 + copied-fragment density), Grusky et al. 2018',
};

export type QualityFeatures = Record<QualityFeatureId, number>;

/** Sentences of the source that make its lead. */
const LEAD_SENTENCES = 3;

/**
 * Mean log-probability of the summary's word pairs under a bigram model of the source, the
 * bigram counts interpolated with add-one unigram probabilities (weight BIGRAM_PRIOR), so unseen
 * pairs and words get a small, finite probability. High when the summary reads like the source.
 */
const BIGRAM_PRIOR = 1;

export function sourceBigramLogProb(summary: readonly string[], source: readonly string[]): number {
  if (summary.length < 2) return 0;
  const unigrams = new Map<string, number>();
  const bigrams = new Map<string, number>();
  for (const [i, w] of source.entries()) {
    unigrams.set(w, (unigrams.get(w) ?? 0) + 1);
    if (i > 0) {
      const key = `${source[i - 1]}\u0001${w}`;
      bigrams.set(key, (bigrams.get(key) ?? 0) + 1);
    }
  }
  const vocabulary = unigrams.size + 1;
  const unigram = (w: string) => ((unigrams.get(w) ?? 0) + 1) / (source.length + vocabulary);
  let sum = 0;
  for (let i = 1; i < summary.length; i++) {
    const previous = unigrams.get(summary[i - 1]) ?? 0;
    const pair = bigrams.get(`${summary[i - 1]}\u0001${summary[i]}`) ?? 0;
    sum += Math.log((pair + BIGRAM_PRIOR * unigram(summary[i])) / (previous + BIGRAM_PRIOR));
  }
  return sum / (summary.length - 1);
}

/** The features of one summary, from an analysis already made for the guards too. */
export function qualityFeatures(
  source: string,
  summary: string,
  analysis: ExtractiveAnalysis = analyseExtractiveness(source, summary),
): QualityFeatures {
  const keys = analysis.summaryTokens.map((t) => t.key);
  const words = keys.length;
  const repeated = findRepeats(keys).reduce((sum, r) => sum + r.length, 0);
  const salient = salientWords(lexicalTokens(source));
  const used = new Set(contentStems(analysis.summaryTokens));
  const lead = firstSentences(source, LEAD_SENTENCES).sentences.flatMap((s) =>
    lexicalTokens(s.text).map((t) => t.key),
  );
  const sentences = analysis.sentences.length;
  return {
    'repeat-share': words > 0 ? repeated / words : 0,
    sentences,
    'salient-recall':
      salient.length > 0 ? salient.filter((w) => used.has(w.stem)).length / salient.length : 0,
    'bigram-logprob': sourceBigramLogProb(keys, analysis.sourceKeys),
    'longest-copy-share': words > 0 ? analysis.stats.longest / words : 0,
    'rouge2-lead3': rougeNFromTokens(lead, keys, 2).fmeasure,
    'novel-4gram-rate': novelNgramRate(keys, analysis.sourceKeys, 4).rate ?? 0,
    'verbatim-share': sentences > 0 ? analysis.verbatim.length / sentences : 0,
    'fragment-density': Math.log1p(analysis.stats.density),
  };
}
