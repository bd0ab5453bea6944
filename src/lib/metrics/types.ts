/**
 * The one shape every metric returns (SPEC §2): a score, a status that says why there is no score,
 * the backend that produced it, and details a person can audit.
 */

/**
 * The details of a scored result, by metric id. Each metric module adds its own id here (declaration
 * merging, `declare module '…/types.ts'`), next to its record; the id lists (METRIC_IDS …) are the
 * keys of the registry (registry.ts), which the compiler checks against these maps in both directions.
 */
/** @public Filled by each offline metric module's `declare module` block, which knip does not see. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by each offline metric module
export interface OfflineMetricDetails {}
/** @public Filled by each judge metric module's `declare module` block, which knip does not see. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by each judge metric module
export interface JudgeMetricDetails {}
export type MetricDetailsById = OfflineMetricDetails & JudgeMetricDetails;

/** Metrics computed in the page's workers with no LLM. */
export type OfflineMetricId = keyof OfflineMetricDetails & string;
/** Metrics that need an LLM judge (SPEC §3); 'geval-custom' cards hold user-defined criteria. */
export type JudgeMetricId = keyof JudgeMetricDetails & string;
export type MetricId = OfflineMetricId | JudgeMetricId;

// Types only: a runtime import here would put this module, which every metric imports, on a cycle
// (the id lists are values of registry.ts, which imports every metric).
import type { MessageRef } from '../i18n/message.ts';

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
  /**
   * The texts' language (BCP-47 primary subtag: detected in the page, or chosen by the user);
   * it picks the case's one tokenizer (text/case-tokenizer.ts) and the judge's reply language.
   * Absent: the script decides.
   */
  language?: string;
  /** True when the user chose `language` instead of detection (restored with the case). */
  languageChosen?: boolean;
}

interface MetricResultFields<K extends MetricId> {
  id: K;
  /** Main score, higher is better; null unless status is 'ok'. */
  score: number | null;
  /** A raw value behind the score where it differs (e.g. entities per token). */
  raw?: number;
  /** One human sentence: what this number says for this case (English; the CLI and logs read it). */
  explanation: string;
  /** The same sentence as a message, which the page words in the reader's language. */
  explanationRef?: MessageRef;
  /** Why there is no score (status 'n/a' or 'error'). */
  reason?: string;
  reasonRef?: MessageRef;
  /** Which method or model produced the score; scores of different backends never compare. */
  backend: string;
  /** Wall time of the computation in milliseconds. */
  elapsedMs?: number;
  /** How the backend ran, when the user should know (e.g. "WebGPU is not available: using WASM"). */
  notes?: string[];
  /** The notes as messages, index for index with `notes`. */
  noteRefs?: MessageRef[];
}

/** A result with a score: its details are the metric's own type. */
export interface ScoredResult<K extends MetricId = MetricId> extends MetricResultFields<K> {
  status: 'ok';
  details: MetricDetailsById[K];
}

/**
 * A result without a score. Its details are whatever the metric had got to (partial details, the
 * calls made, or nothing at all); no view renders them, so they stay untyped.
 */
export interface UnscoredResult<K extends MetricId = MetricId> extends MetricResultFields<K> {
  status: 'n/a' | 'error';
  details: unknown;
}

/**
 * The one result shape: discriminated by `status`, and a scored result by `id` as well, so that
 * `status === 'ok' && id === 'bleu'` gives BLEU's details type.
 */
export type MetricResult<K extends MetricId = MetricId> =
  (K extends MetricId ? ScoredResult<K> : never) | UnscoredResult<K>;

/** A highlighted stretch of the summary, as UTF-16 offsets into the original string. */
export interface TextSpan {
  start: number;
  end: number;
  text: string;
  /** A stable English name: the key of the highlight's colour and its `data-label`. */
  label: string;
  /** The label as a message, for the mark's tooltip in the reader's language. */
  labelRef?: MessageRef;
}

/** The three text boxes of a pasted case (instructions are edited separately). */
export type CaseTexts = Required<Pick<CaseInput, 'source' | 'summary' | 'reference'>>;
