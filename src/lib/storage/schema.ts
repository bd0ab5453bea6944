/**
 * The IndexedDB schema. Full cases (which can be megabytes) and the light history rows are kept in
 * separate stores so that listing the history never loads the texts. Data sets work the same way
 * (v3): the light `datasets` and `runs` records list fast, while rows and per-row results live in
 * their own stores under compound keys, read in ranges.
 */
import type { DBSchema } from 'idb';
import type { MessageRef } from '../i18n/message.ts';
import type { BatchJobRecord } from '../llm/batch/engine.ts';
import type { CaseInput, MetricId, MetricResult, MetricStatus } from '../metrics/types.ts';
import type { MetricSettings } from '../metrics/settings.ts';
import type { JudgeSettings } from '../metrics/judge/settings.ts';
import type { TextLanguage } from '../metrics/text/language.ts';
import type { ProviderKind, TokenUsage } from '../llm/types.ts';
import type {
  ColumnMapping,
  DatasetKind,
  DatasetRow,
  FileFormat,
  RowProblem,
} from '../rows/formats.ts';

export const DB_NAME = 'sumlens';
export const DB_VERSION = 3;

export interface StoredCase {
  id: string;
  createdAt: number;
  input: CaseInput;
  settings: MetricSettings;
  results: MetricResult[];
  appVersion: string;
  /** The LLM judge run of this case, when there was one: never the key. */
  judge?: StoredJudgeRun;
}

export interface StoredJudgeRun {
  provider: string;
  model: string;
  usage: { input: number; output: number; cachedInput?: number };
  /** HTTP requests sent; 0 when every answer came from the cache. */
  httpCalls: number;
  cachedCalls: number;
  calls: number;
  rounds: number;
  /** USD; absent when the price table had no price for the model. */
  cost?: number;
}

export interface HistoryScore {
  id: MetricId;
  status: MetricStatus;
  score: number | null;
  raw?: number;
  backend: string;
}

export interface HistoryEntry {
  id: string;
  createdAt: number;
  /** The first words of the summary, for the list. */
  title: string;
  summaryChars: number;
  sourceChars: number;
  hasReference: boolean;
  scores: HistoryScore[];
}

export interface Draft {
  key: 'current';
  input: CaseInput;
  savedAt: number;
}

/**
 * One judge answer, content-addressed: `key` is the SHA-256 of provider, model, prompt version,
 * settings and texts (never the API key). A re-run of the same case finds every answer here and
 * makes no call.
 */
export interface CachedJudgeAnswer {
  key: string;
  storedAt: number;
  provider: string;
  model: string;
  /** The JudgeResponse as the provider gave it (choices, usage). */
  response: unknown;
}

/** A model's probed capabilities (logprobs, n, …), probed once per provider + model. */
export interface StoredCapabilities {
  key: string;
  probedAt: number;
  value: unknown;
}

/** The rows that could not be loaded, in short: how many, and the first few with their reasons. */
export interface DatasetProblemsSummary {
  count: number;
  /** At most `MAX_STORED_PROBLEMS` examples, in row order. */
  examples: RowProblem[];
}

/** A data set's light record (v3): listing data sets never loads their rows. */
export interface StoredDataset {
  id: string;
  name: string;
  createdAt: number;
  kind: DatasetKind;
  format?: FileFormat;
  /** The column mapping the rows were built with. */
  mapping: ColumnMapping;
  /** The TinyEval/LongBench task of prediction rows (`trec`, `multi_news`, …). */
  task?: string;
  /** Rows stored in `dataset-rows`. */
  rowCount: number;
  /** Prediction rows still without a prediction (to generate: datasets/generate/); absent = 0. */
  missingPredictions?: number;
  /** Names of the human rating columns found in the rows (`expert_relevance`, …). */
  humanColumns: string[];
  /** Rows that could not be loaded: they are not in `dataset-rows`. */
  problems: DatasetProblemsSummary;
  /** The file it came from, for the list. */
  fileName?: string;
  bytes?: number;
  /** What the page's annotator asks (storage/annotations/); unset means the SummEval four. */
  annotationDimensions?: Array<{ name: string; guide: string }>;
}

/** One row of a data set, keyed [datasetId, row]. */
export type StoredDatasetRow = DatasetRow & { datasetId: string };

export const RUN_STATUSES = ['running', 'paused', 'done', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Judge tokens (as providers count them) and calls, summed over the rows of a run (or one row). */
export interface JudgeUsage extends TokenUsage {
  /** Logical calls, cache hits included. */
  calls: number;
  /** HTTP requests actually sent. */
  httpCalls: number;
  cachedCalls: number;
  /** USD; absent when the price table had no price for the model. */
  cost?: number;
}

/** What a run was scored with: the choices made before it, and the backends its results name. */
export interface RunBackends {
  /** The judge of the LLM metrics, when any: provider and model, never the key. */
  judge?: { provider: ProviderKind; model: string };
  /** Per metric id, every backend string its results carried (usually one). */
  perMetric: Partial<Record<MetricId, string[]>>;
}

export interface RunCounts {
  /** Rows the run will score (the data set's rows when it started). */
  total: number;
  /** Rows stored with their results (failed ones included). */
  done: number;
  /** Rows whose scoring threw as a whole (each metric's own errors are in its results). */
  failed: number;
}

/** What a run was asked to compute, with which knobs (never an API key). */
export interface RunSettings {
  metrics: MetricSettings;
  /** Present when the run has LLM-judge metrics. */
  judge?: JudgeSettings;
  /** The TinyEval/LongBench task scoring prediction rows ('trec', 'custom:rouge-l', …). */
  task?: string;
  /** Rows scored at the same time. */
  concurrency?: number;
  /**
   * The judge's calls go to the provider's batch API as jobs (half the price, answers within a
   * day), polled every `pollSec` seconds; the rows are then scored from the answers.
   */
  providerBatch?: { pollSec: number };
  /** Where the run pauses (src/lib/datasets/run-ceiling.ts); absent: it never pauses for spend. */
  ceiling?: RunCeiling;
}

/**
 * The most a run with LLM metrics may spend before it pauses: its plan, or the budget set in the
 * run setup. Counted over the whole run, every HTTP request included (retries, a probe).
 */
export interface RunCeiling {
  /** Requests at most. */
  requests?: number;
  /** USD at most, priced from the usage the provider reports. */
  costUsd?: number;
  /** The plan's figures when the run started, for the words of the pause. */
  plannedRequests: number;
  plannedCostUsd?: number;
  /** The plan's requests per row and once per run: a drive's request ceiling is never below
   * what the rows left need (rows a pause dropped are scored again). */
  plannedPerRow?: number;
  plannedPerRun?: number;
  /** The user set `requests` (else it is the plan's, and follows the rows left). */
  requestsSet?: boolean;
}

/** A provider batch job a run submitted and has not yet read into the judge cache. */
export type StoredBatchJob = BatchJobRecord;

/** Where a run's provider batch phase stands, for the run list. */
export interface ProviderBatchState {
  /** Collecting the requests, waiting on jobs, or every answer read (the rows score next). */
  phase: 'collecting' | 'waiting' | 'answered';
  round: number;
  /** This round's jobs and the provider's word for their state. */
  jobs: Array<{ id: string; requests: number; status: string; done?: number }>;
  /** Requests sent in jobs so far, and those that came back without an answer. */
  requests: number;
  failed: number;
  /** The last round's requests at the batch rate, USD, when the model's price is known. */
  costUsd?: number;
}

/** A prediction row's task score (see src/lib/datasets/tinyeval.ts `scoreTinyEvalRow`). */
export interface TaskRowScore {
  task: string;
  metric: string;
  /** Max over answers, 0–1. */
  score: number;
  perAnswer: number[];
  /** Which Chinese word segmenter ran, for the *-zh metrics. */
  segmenter?: string;
}

/** A batch run's light record (v3). */
export interface StoredRun {
  id: string;
  datasetId: string;
  /** The data set's name when the run started, for the list after the data set is gone. */
  datasetName: string;
  /** What the list calls the run ("dev · run 2"); absent on runs stored before runs had names. */
  name?: string;
  createdAt: number;
  updatedAt: number;
  finishedAt?: number;
  /** The app's metrics (case rows); empty for a prediction data set scored by `settings.task`. */
  metrics: MetricId[];
  settings: RunSettings;
  backends: RunBackends;
  status: RunStatus;
  counts: RunCounts;
  /** Judge usage and cost so far; absent for runs without LLM metrics. */
  judgeUsage?: JudgeUsage;
  /** The last reason the run stopped short (storage full, a crash), for the list (English). */
  message?: string;
  /** The same reason as a message, where it is one of SumLens's own, worded in the page's language. */
  messageRef?: MessageRef;
  /** Provider batch jobs pending: a reload polls these instead of paying for new ones. */
  batchJobs?: StoredBatchJob[];
  batchState?: ProviderBatchState;
  appVersion: string;
}

/** The results of one row of a run, stored only once the row is complete; keyed [runId, row]. */
export interface StoredRunResult {
  runId: string;
  row: number;
  status: 'done' | 'failed';
  results: MetricResult[];
  /** Prediction rows: the task's score. */
  task?: TaskRowScore;
  /** Why the whole row failed (status 'failed'). */
  error?: string;
  finishedAt: number;
  elapsedMs: number;
  /** The judge calls of this row, when it had LLM metrics. */
  judge?: JudgeUsage;
  /** The case row's language as it was scored: detected, from its script, or its own column. */
  language?: TextLanguage;
}

export interface SumLensDB extends DBSchema {
  cases: { key: string; value: StoredCase };
  history: { key: string; value: HistoryEntry; indexes: { 'by-created': number } };
  drafts: { key: 'current'; value: Draft };
  'judge-cache': { key: string; value: CachedJudgeAnswer; indexes: { 'by-stored': number } };
  capabilities: { key: string; value: StoredCapabilities };
  // v3: data sets and batch runs.
  datasets: { key: string; value: StoredDataset; indexes: { 'by-created': number } };
  'dataset-rows': {
    key: [string, number];
    value: StoredDatasetRow;
    indexes: { 'by-dataset': string };
  };
  runs: {
    key: string;
    value: StoredRun;
    indexes: { 'by-created': number; 'by-dataset': string };
  };
  'run-results': { key: [string, number]; value: StoredRunResult; indexes: { 'by-run': string } };
}
