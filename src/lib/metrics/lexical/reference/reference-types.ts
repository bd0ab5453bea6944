/**
 * The result shapes and options of the reference-based metrics (reference-metrics.ts), apart so
 * that the records and the detail views can name them without the calculators.
 */
import type { BleuScore, BleuTokenize } from './bleu.ts';
import type { RougeTokenizerKind, RougeType } from './rouge.ts';
import type { TokenF1Language, TokenF1Segmentation } from './token-f1.ts';
import type { WordSegmenter } from '../cjk-words.ts';
import type { CaseTokenizer } from '../../text/case-tokenizer.ts';
import type { MetricResult } from '../../types.ts';

/** The metrics scored together by scoreReferenceMetrics, in its output order. */
export const REFERENCE_METRIC_IDS = [
  'rouge-1',
  'rouge-2',
  'rouge-l',
  'rouge-lsum',
  'bleu',
  'token-f1',
] as const;
export type ReferenceMetricId = (typeof REFERENCE_METRIC_IDS)[number];

export function isReferenceMetricId(id: string): id is ReferenceMetricId {
  return (REFERENCE_METRIC_IDS as readonly string[]).includes(id);
}

/** How the two texts were tokenised: shared by computed and skipped ROUGE results. */
interface RougeTokenization {
  tokenizer: RougeTokenizerKind;
  /** Chinese word segmenter behind the 'intl-segmenter' tokenizer, when the text is Chinese. */
  wordSegmenter?: 'jieba' | 'intl-segmenter';
  /** Why Intl.Segmenter ran instead of jieba (jieba failed to load). */
  segmenterFallbackReason?: string;
  stemmed: boolean;
  summaryTokens: number;
  referenceTokens: number;
  /** The tokenizer the backend line names: 'rouge_score', 'jieba', 'intl-segmenter', …. */
  caseTokenizer?: string;
}

export interface RougeDetails extends RougeTokenization {
  kind: 'rouge';
  rougeType: RougeType;
  precision: number;
  recall: number;
  fmeasure: number;
  /** ROUGE-L: LCS length; ROUGE-Lsum: union-LCS hits. */
  lcsHits?: number;
  /** ROUGE-Lsum only. */
  sentenceSplit?: 'newline' | 'intl-segmenter';
  summarySentences?: number;
  referenceSentences?: number;
}

/** ROUGE-L/Lsum not computed because the LCS table would be too large. */
export interface RougeSkippedDetails extends RougeTokenization {
  kind: 'rouge-skipped';
  rougeType: 'rougeL' | 'rougeLsum';
  cells: number;
  budget: number;
}

export interface BleuDetails extends Omit<BleuScore, 'score'> {
  kind: 'bleu';
  tokenize: BleuTokenize;
  /** The words behind 'intl-segmenter' tokens when the case tokenizer ran ('jieba', …). */
  caseTokenizer?: string;
  smoothing: 'exp';
  effectiveOrder: true;
}

export interface TokenF1Details {
  kind: 'token-f1';
  precision: number;
  recall: number;
  f1: number;
  /** Tokens the summary shares with the reference, with multiplicity. */
  commonTokens: string[];
  summaryTokens: number;
  referenceTokens: number;
  language: 'en' | 'zh' | 'ja';
  segmentation: TokenF1Segmentation;
  /** Why Intl.Segmenter ran instead of jieba (jieba failed to load). */
  segmenterFallbackReason?: string;
  /** The tokenizer the backend line names ('whitespace' for SQuAD's English split). */
  caseTokenizer?: string;
}

/** `details` is null when no reference was given. */
export type ReferenceMetricResult = MetricResult<ReferenceMetricId>;

export interface ReferenceMetricsOptions {
  /** Porter stemming for ROUGE; default true (see the file header). */
  useStemmer?: boolean;
  /** Split Lsum sentences with Intl.Segmenter instead of newlines; default false. */
  lsumSplitSentences?: boolean;
  /** ROUGE/BLEU tokenizer; 'auto' (default) uses Intl.Segmenter for non-Latin text. */
  tokenizer?: 'auto' | RougeTokenizerKind;
  /** Token F1 variant; 'auto' (default) picks Chinese/Japanese segmentation for CJK text. */
  tokenF1Language?: TokenF1Language;
  /** LCS cell budget for ROUGE-L/Lsum. */
  lcsCellBudget?: number;
  /**
   * Chinese word segmenter for ROUGE and token F1, already loaded (`loadJiebaNode()`,
   * `loadJiebaBrowser(url)`); default Intl.Segmenter.
   */
  wordSegmenter?: WordSegmenter;
  /**
   * The case's one tokenizer (text/case-tokenizer.ts). Given, it decides the words of non-Latin
   * text for ROUGE, BLEU and token F1 alike (its segmenter replaces `wordSegmenter`), and every
   * result's details name it (`caseTokenizer`) as its backend line does.
   */
  caseTokenizer?: CaseTokenizer;
  /** The metrics to compute (default all): BLEU and token F1 are not paid for when only ROUGE is asked. */
  only?: readonly ReferenceMetricId[];
}

declare module '../../types.ts' {
  interface OfflineMetricDetails {
    'rouge-1': RougeDetails;
    'rouge-2': RougeDetails;
    'rouge-l': RougeDetails;
    'rouge-lsum': RougeDetails;
    bleu: BleuDetails;
    'token-f1': TokenF1Details;
  }
}
