/**
 * The offline quality estimate: one estimate per dimension — faithfulness (fact check, word-level
 * support), coverage (the source's salient content covered, through the aligner) and coherence
 * (repetition, redundancy, order, a cut-off ending) — each a linear score of signals
 * (quality-features.ts) whose weights were fit on pairs of summaries of one source across several
 * human-rated data sets (scripts/fit-quality.ts, quality-weights.json). The card shows each
 * estimate, each ingredient's contribution, and the figures each reached on data it was not fit on.
 *
 * No ingredient rises with copying as such (see quality-features.ts). The degenerate summaries a
 * person would never accept — a word or two, a copy of the source's opening, a text cut off
 * mid-sentence, a sentence said twice — are guards: each is a flag on the card, the score board,
 * the comparison and the leaderboard, and caps the score at DEGENERATE_CAP, because a fit on
 * real summaries has seen too few of them to rank them low by itself.
 */
import { english, explained, ref, type MessageRef } from '../../../i18n/message.ts';
import { notApplicable } from '../../results.ts';
import type { MetricResult } from '../../types.ts';
import { firstSentences } from '../../text/source-prefix.ts';
import type { Segment } from '../../text/tokenize.ts';
import { backendWithTokenizer, type CaseTokenizer } from '../../text/case-tokenizer.ts';
import {
  analyseExtractiveness,
  lexicalTokens,
  MIN_VERBATIM_WORDS,
  sentenceWordRanges,
  type ExtractiveAnalysis,
} from '../extractiveness/extractiveness.ts';
import type { FactCheckOptions } from '../fact-check/fact-check.ts';
import { QUALITY_FEATURE_LABELS, qualitySignals } from './quality-features.ts';
import {
  estimateDimension,
  QUALITY_DIMENSIONS,
  scoreOfEstimates,
  type DimensionEstimate,
  type QualityDimension,
  type QualityWeights,
} from './quality-model.ts';
import weightsJson from './quality-weights.json';

export const QUALITY_BACKEND =
  'lexical pairwise estimate (fact check, support, coverage, coherence)';

const WEIGHTS = weightsJson as QualityWeights;

/** Every flag the estimate raises: what a `not-flag` check offers (assertions). */
export const GAMING_FLAG_IDS = [
  'too-short',
  'lead-copy',
  'cut-mid-sentence',
  'repeated-sentence',
  'reversed-order',
  'no-final-punctuation',
] as const;
export type GamingFlagId = (typeof GAMING_FLAG_IDS)[number];

/**
 * English words no sentence ends on (articles, prepositions, conjunctions, subject pronouns): a
 * text that stops on one without a full stop was cut off mid-sentence.
 */
const CANNOT_END = new Set(
  (
    'a an the and or but nor of to in on at by for with from into onto as than that which who ' +
    'whose if because while although though when where his their its our your my they we he she i'
  ).split(' '),
);

/** The flags that mark a summary nobody would accept; each caps the score. */
export const DEGENERATE_FLAGS: ReadonlySet<GamingFlagId> = new Set([
  'too-short',
  'lead-copy',
  'cut-mid-sentence',
  'repeated-sentence',
]);

/** The highest score a summary with a degenerate flag gets: below three in four real summaries. */
export const DEGENERATE_CAP = 0.2;

/** Fewer words than this is not a summary of a source with at least ten times as many. */
export const TOO_SHORT_WORDS = 5;

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
  /** True when a degenerate flag capped the score at DEGENERATE_CAP. */
  capped: boolean;
  /** How the model was fit and validated. */
  method: string;
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

  const sourceWords = analysis.sourceKeys.length;
  if (keys.length < TOO_SHORT_WORDS && sourceWords >= 10 * keys.length) {
    flags.push(flag('too-short', ref('lexical.quality.flag.tooShort', { words: keys.length })));
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
    if (midWord) {
      flags.push(
        flag('cut-mid-sentence', ref('lexical.quality.flag.cutMidWord', { word: lastWord })),
      );
    } else if (CANNOT_END.has(lastWord)) {
      flags.push(
        flag('cut-mid-sentence', ref('lexical.quality.flag.cutAfterWord', { word: lastWord })),
      );
    } else {
      // A last sentence without a full stop may be cut off, or only unpunctuated: said, not capped.
      flags.push(flag('no-final-punctuation', ref('lexical.quality.flag.noTerminalPunctuation')));
    }
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
  names: Pick<FactCheckOptions, 'names' | 'namesBackend'> = {},
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
  const { features } = qualitySignals(source, summary, tokenizer, analysis, names);
  const estimates = QUALITY_DIMENSIONS.map((d) =>
    estimateDimension(d, WEIGHTS.dimensions[d], features),
  );
  const meanStandardized = estimates.reduce((sum, e) => sum + e.standardized, 0) / estimates.length;
  const flags = gamingFlags(source, analysis);
  const capped = flags.some((f) => DEGENERATE_FLAGS.has(f.id));
  const score = cappedScore(scoreOfEstimates(estimates), flags);
  const estimateOf = (dimension: QualityDimension) =>
    estimates.find((e) => e.dimension === dimension)?.estimate ?? Number.NaN;
  const positions = {
    faithfulness: estimateOf('faithfulness'),
    coverage: estimateOf('coverage'),
    coherence: estimateOf('coherence'),
  };
  return {
    id: 'quality-offline',
    status: 'ok',
    score,
    raw: meanStandardized,
    ...(flags.length > 0
      ? explained(
          capped ? 'lexical.quality.explanationCapped' : 'lexical.quality.explanationFlagged',
          {
            ...positions,
            flags: flags.map((f) => f.id).join(', '),
            cap: DEGENERATE_CAP,
          },
        )
      : explained('lexical.quality.explanation', positions)),
    backend: backend,
    details: {
      kind: 'quality-offline',
      estimates,
      meanStandardized,
      flags,
      capped,
      method: WEIGHTS.method,
      featureLabels: QUALITY_FEATURE_LABELS,
    },
  };
}

/** The score after the guards: a degenerate flag caps it. */
export function cappedScore(score: number, flags: readonly Pick<GamingFlag, 'id'>[]): number {
  return flags.some((f) => DEGENERATE_FLAGS.has(f.id)) ? Math.min(score, DEGENERATE_CAP) : score;
}

declare module '../../types.ts' {
  interface OfflineMetricDetails {
    'quality-offline': QualityDetails;
  }
}
