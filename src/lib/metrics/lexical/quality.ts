/**
 * The offline quality estimate: per human dimension (coherence, consistency), a transparent ridge
 * combination of lexical signals of the summary against its source (quality-features.ts), with
 * weights fit on SummEval dev by scripts/fit-quality.ts (quality-weights.json). The card shows
 * each estimate and each ingredient's contribution (weight × standardised value), and quotes the
 * cross-validated agreement, not the in-sample one.
 *
 * What it is not: an absolute grade. It was fit to rank the 12 summaries of one news article
 * against each other, and SummEval's coherence ratings go with extractiveness (Steen & Markert
 * 2022), so copying the source scores well. The guards below name the cheap ways to exploit that
 * (a copied lead, one sentence, reversed order, a cut-off ending, a repeated sentence); they are
 * flags on the card, the score itself is left as the model computes it.
 */
import { english, explained, ref, type MessageRef } from '../../i18n/message.ts';
import { notApplicable } from '../results.ts';
import type { MetricResult } from '../types.ts';
import { firstSentences } from '../text/source-prefix.ts';
import type { Segment } from '../text/tokenize.ts';
import { backendWithTokenizer, type CaseTokenizer } from '../text/case-tokenizer.ts';
import {
  analyseExtractiveness,
  lexicalTokens,
  MIN_VERBATIM_WORDS,
  sentenceWordRanges,
  type ExtractiveAnalysis,
} from './extractiveness.ts';
import { QUALITY_FEATURE_LABELS, qualityFeatures } from './quality-features.ts';
import {
  estimateDimension,
  QUALITY_DIMENSIONS,
  scoreOfEstimates,
  type DimensionEstimate,
  type QualityWeights,
} from './quality-model.ts';
import weightsJson from './quality-weights.json';

export const QUALITY_BACKEND = 'lexical ridge (fit on SummEval dev)';

const WEIGHTS = weightsJson as QualityWeights;

export type GamingFlagId =
  'lead-copy' | 'one-sentence' | 'reversed-order' | 'cut-mid-sentence' | 'repeated-sentence';

export interface GamingFlag {
  id: GamingFlagId;
  /** English, for the CLI and exports. */
  message: string;
  /** The same sentence, worded by the page in the reader's language. */
  messageRef: MessageRef;
}

function flag(id: GamingFlagId, message: MessageRef): GamingFlag {
  return { id, message: english(message.key, message.values), messageRef: message };
}

export interface QualityDetails {
  kind: 'quality-offline';
  estimates: DimensionEstimate[];
  /** The mean of the dimensions' standardised estimates; the score is its normal CDF. */
  meanStandardized: number;
  flags: GamingFlag[];
  /** What the model was fit on and how it was cross-validated. */
  dataset: string;
  cv: string;
  featureLabels: Record<string, string>;
}

/** The copied opening must hold this share of the summary's words to count as a lead copy. */
export const LEAD_COPY_SHARE = 0.6;
/** Source words, from the start, where a copied opening may begin (a byline can come first). */
const LEAD_WINDOW = 40;
/** A summary sentence aligns with the source sentence sharing this share of its words. */
export const ALIGN_SHARE = 0.5;
/** Reversed order is called from this many aligned sentences (two can be swapped by design). */
const MIN_ALIGNED_FOR_ORDER = 3;

/** Longest run of the summary's first words found in the source's first LEAD_WINDOW words. */
function copiedOpening(keys: readonly string[], source: readonly string[]): number {
  let best = 0;
  for (let j = 0; j < Math.min(LEAD_WINDOW, source.length); j++) {
    let length = 0;
    while (length < keys.length && j + length < source.length) {
      if (keys[length] !== source[j + length]) break;
      length++;
    }
    best = Math.max(best, length);
  }
  return best;
}

/**
 * For each summary sentence, the source sentence that shares the most of its distinct words, if
 * that is at least ALIGN_SHARE of them; -1 otherwise.
 */
export function alignSentences(
  summarySentences: readonly Segment[],
  sourceSentences: readonly Segment[],
): number[] {
  const sourceSets = sourceSentences.map((s) => new Set(lexicalTokens(s.text).map((t) => t.key)));
  return summarySentences.map((s) => {
    const words = new Set(lexicalTokens(s.text).map((t) => t.key));
    if (words.size === 0) return -1;
    let best = -1;
    let bestShared = 0;
    for (const [i, set] of sourceSets.entries()) {
      let shared = 0;
      for (const w of words) if (set.has(w)) shared++;
      if (shared > bestShared) [best, bestShared] = [i, shared];
    }
    return bestShared / words.size >= ALIGN_SHARE ? best : -1;
  });
}

/** Source sentences the order guard aligns to: every ordinary source whole. */
const ALIGN_SCAN = 400;

const TERMINAL = /[.!?…。！？]["'”’)\]»]*$/u;

/** The guards: each flag names a way to score well here without writing a better summary. */
export function gamingFlags(source: string, analysis: ExtractiveAnalysis): GamingFlag[] {
  const flags: GamingFlag[] = [];
  const keys = analysis.summaryTokens.map((t) => t.key);
  const { sentences } = analysis;

  const opening = copiedOpening(keys, analysis.sourceKeys);
  if (opening >= MIN_VERBATIM_WORDS && opening / keys.length >= LEAD_COPY_SHARE) {
    flags.push(
      flag('lead-copy', ref('lexical.quality.flag.leadCopy', { opening, words: keys.length })),
    );
  }

  if (sentences.length === 1) {
    flags.push(flag('one-sentence', ref('lexical.quality.flag.oneSentence')));
  }

  const aligned = alignSentences(sentences, firstSentences(source, ALIGN_SCAN).sentences).filter(
    (i) => i >= 0,
  );
  const decreasing = aligned.every((x, i) => i === 0 || x < aligned[i - 1]);
  if (aligned.length >= MIN_ALIGNED_FOR_ORDER && decreasing) {
    flags.push(
      flag(
        'reversed-order',
        ref('lexical.quality.flag.reversedOrder', {
          count: aligned.length,
          order: aligned.map((i) => i + 1).join(' → '),
        }),
      ),
    );
  }

  const last = sentences[sentences.length - 1];
  if (last && !TERMINAL.test(last.text)) {
    const lastWord = keys[keys.length - 1] ?? '';
    const midWord =
      !analysis.sourceKeys.includes(lastWord) &&
      analysis.sourceKeys.some((w) => w.length > lastWord.length && w.startsWith(lastWord));
    flags.push(
      flag(
        'cut-mid-sentence',
        midWord
          ? ref('lexical.quality.flag.cutMidWord', { word: lastWord })
          : ref('lexical.quality.flag.noTerminalPunctuation'),
      ),
    );
  }

  const ranges = sentenceWordRanges(sentences, analysis.summaryTokens);
  const seen = new Map<string, number>();
  for (const [index, [from, to]] of ranges.entries()) {
    if (to - from < MIN_VERBATIM_WORDS) continue;
    const key = keys.slice(from, to).join(' ');
    const first = seen.get(key);
    if (first !== undefined) {
      flags.push(
        flag(
          'repeated-sentence',
          ref('lexical.quality.flag.repeatedSentence', { later: index + 1, earlier: first + 1 }),
        ),
      );
      break;
    }
    seen.set(key, index);
  }
  return flags;
}

export function scoreQuality(
  source: string,
  summary: string,
  tokenizer?: CaseTokenizer,
): MetricResult<'quality-offline'> {
  const backend = backendWithTokenizer(QUALITY_BACKEND, tokenizer);
  if (source.trim() === '') {
    return notApplicable('quality-offline', backend, ref('lexical.reason.needsSource'), {});
  }
  const analysis = analyseExtractiveness(source, summary, tokenizer);
  if (analysis.summaryTokens.length === 0) {
    return notApplicable('quality-offline', backend, ref('lexical.reason.summaryNoWords'), {});
  }
  if (analysis.sourceKeys.length === 0) {
    return notApplicable('quality-offline', backend, ref('lexical.reason.sourceNoWords'), {});
  }
  const features = qualityFeatures(source, summary, analysis);
  const estimates = QUALITY_DIMENSIONS.map((d) =>
    estimateDimension(d, WEIGHTS.dimensions[d], features),
  );
  const meanStandardized = estimates.reduce((sum, e) => sum + e.standardized, 0) / estimates.length;
  const flags = gamingFlags(source, analysis);
  const estimateOf = (dimension: (typeof estimates)[number]['dimension']) =>
    estimates.find((e) => e.dimension === dimension)?.estimate ?? Number.NaN;
  const ratings = { coherence: estimateOf('coherence'), consistency: estimateOf('consistency') };
  return {
    id: 'quality-offline',
    status: 'ok',
    score: scoreOfEstimates(estimates),
    raw: meanStandardized,
    ...(flags.length > 0
      ? explained('lexical.quality.explanationFlagged', {
          ...ratings,
          flags: flags.map((f) => f.id).join(', '),
        })
      : explained('lexical.quality.explanation', ratings)),
    backend: backend,
    details: {
      kind: 'quality-offline',
      estimates,
      meanStandardized,
      flags,
      dataset: WEIGHTS.dataset,
      cv: WEIGHTS.cv,
      featureLabels: QUALITY_FEATURE_LABELS,
    },
  };
}

declare module '../types.ts' {
  interface OfflineMetricDetails {
    'quality-offline': QualityDetails;
  }
}
