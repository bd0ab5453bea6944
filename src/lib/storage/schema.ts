/**
 * The IndexedDB schema. Full cases (which can be megabytes) and the light history rows are kept in
 * separate stores so that listing the history never loads the texts.
 */
import type { DBSchema } from 'idb';
import type { CaseInput, MetricId, MetricResult, MetricStatus } from '../metrics/types.ts';
import type { MetricSettings } from '../metrics/settings.ts';

export const DB_NAME = 'sumlens';
export const DB_VERSION = 1;

export interface StoredCase {
  id: string;
  createdAt: number;
  input: CaseInput;
  settings: MetricSettings;
  results: MetricResult[];
  appVersion: string;
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

export interface SumLensDB extends DBSchema {
  cases: { key: string; value: StoredCase };
  history: { key: string; value: HistoryEntry; indexes: { 'by-created': number } };
  drafts: { key: 'current'; value: Draft };
}
