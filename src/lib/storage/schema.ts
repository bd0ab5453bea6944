/**
 * The IndexedDB schema. Full cases (which can be megabytes) and the light history rows are kept in
 * separate stores so that listing the history never loads the texts.
 */
import type { DBSchema } from 'idb';
import type { CaseInput, MetricId, MetricResult, MetricStatus } from '../metrics/types.ts';
import type { MetricSettings } from '../metrics/settings.ts';

export const DB_NAME = 'sumlens';
export const DB_VERSION = 2;

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

export interface SumLensDB extends DBSchema {
  cases: { key: string; value: StoredCase };
  history: { key: string; value: HistoryEntry; indexes: { 'by-created': number } };
  drafts: { key: 'current'; value: Draft };
  'judge-cache': { key: string; value: CachedJudgeAnswer; indexes: { 'by-stored': number } };
  capabilities: { key: string; value: StoredCapabilities };
}
