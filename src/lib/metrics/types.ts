/**
 * The one shape every metric returns (SPEC §2): a score, a status that says why there is no score,
 * the backend that produced it, and details a person can audit.
 */

/** Metrics computed in the page's workers with no LLM. */
export const OFFLINE_METRIC_IDS = [
  'entity-density',
  'coherence',
  'rouge-1',
  'rouge-2',
  'rouge-l',
  'rouge-lsum',
  'bleu',
  'token-f1',
  'repetition-offline',
] as const;

/** Metrics that need an LLM judge (SPEC §3); 'geval-custom' cards hold user-defined criteria. */
export const JUDGE_METRIC_IDS = [
  'summarization',
  'alignment',
  'coverage',
  'vagueness',
  'repetitiveness',
  'geval-coherence',
  'geval-consistency',
  'geval-fluency',
  'geval-relevance',
  'geval-custom',
  'ccai-accuracy',
  'ccai-adherence',
  'ccai-completeness',
] as const;

/** Every metric id; the worker protocol validates against this list. */
export const METRIC_IDS = [...OFFLINE_METRIC_IDS, ...JUDGE_METRIC_IDS] as const;

export type MetricId = (typeof METRIC_IDS)[number];
export type OfflineMetricId = (typeof OFFLINE_METRIC_IDS)[number];
export type JudgeMetricId = (typeof JUDGE_METRIC_IDS)[number];

export type MetricStatus = 'ok' | 'n/a' | 'error';

/** What a metric needs before it can run; decides which worker hosts it. */
export type MetricNeeds = 'reference' | 'embedding' | 'ner' | 'llm';

/** One section of summary instructions (SPEC §1); with `categories` it is categorical: the summary
 * must be exactly one of those values. */
export interface SummarySection {
  name: string;
  instruction: string;
  categories?: string[];
}

export interface CaseInput {
  source: string;
  summary: string;
  reference?: string;
  /** Summary instructions, for the call-center adherence and completeness metrics. */
  instructions?: SummarySection[];
}

export interface MetricResult<Details = unknown> {
  id: MetricId;
  status: MetricStatus;
  /** Main score, higher is better; null unless status is 'ok'. */
  score: number | null;
  /** A raw value behind the score where it differs (e.g. entities per token). */
  raw?: number;
  /** One human sentence: what this number says for this case. */
  explanation: string;
  /** Why there is no score (status 'n/a' or 'error'). */
  reason?: string;
  /** Which method or model produced the score; scores of different backends never compare. */
  backend: string;
  details: Details;
  /** Wall time of the computation in milliseconds. */
  elapsedMs?: number;
  /** How the backend ran, when the user should know (e.g. "WebGPU is not available: using WASM"). */
  notes?: string[];
}

export function notApplicable<D>(
  id: MetricId,
  backend: string,
  reason: string,
  details: D,
): MetricResult<D> {
  return { id, status: 'n/a', score: null, explanation: reason, reason, backend, details };
}

export function failed<D>(
  id: MetricId,
  backend: string,
  reason: string,
  details: D,
): MetricResult<D> {
  return { id, status: 'error', score: null, explanation: reason, reason, backend, details };
}

/** A highlighted stretch of the summary, as UTF-16 offsets into the original string. */
export interface TextSpan {
  start: number;
  end: number;
  text: string;
  label: string;
}

/** The three text boxes of a pasted case (instructions are edited separately). */
export type CaseTexts = Required<Pick<CaseInput, 'source' | 'summary' | 'reference'>>;
