/**
 * The shapes the batch runner (batch.ts, which re-exports them) trades in: what scoring a row
 * gives, where rows are stored, the progress and outcome of a run and the runner's options. Apart
 * from the runner so that the row scorers and the worker's host can name them without importing it.
 */
import type { MessageRef } from '../i18n/message.ts';
import type { MetricResult } from '../metrics/types.ts';
import type { DatasetRow } from '../rows/formats.ts';
import type { JudgeUsage, RunStatus, StoredRunResult, TaskRowScore } from '../storage/schema.ts';
import type { PauseSignal, RunState } from './lanes.ts';
import type { DetectLanguages } from './row-language.ts';

/**
 * Why a row's LLM metrics failed, and what that means for the run:
 * - 'row': this row failed (a transient error: the provider's 5xx, a cut-off or unusable reply…):
 *   it is stored as failed with the reason and its other results, and "Retry failed rows" scores
 *   it again later;
 * - 'stop': every later row would fail the same way (a dead key, an exhausted quota, an unknown
 *   model, a prompt that never fits): the run pauses with the reason and the row is not stored,
 *   so Resume scores it once the cause is fixed;
 * - 'offline': the browser is offline: the run pauses, the row is not stored, and the page
 *   resumes the run when the connection is back.
 */
export interface RowFailure {
  effect: 'row' | 'stop' | 'offline';
  reason: string;
  /** `reason` as a message of SumLens's own, for the page to word (the run's ceiling). */
  reasonRef?: MessageRef;
  /** The provider itself failed (5xx, rate limit, network, timeout) rather than one answer:
   * `OUTAGE_ROWS` such rows in a row pause the run. */
  outage?: boolean;
}

/** What scoring one row gives: its metric results, a task score (prediction rows), judge usage. */
export interface RowOutcome {
  results: MetricResult[];
  task?: TaskRowScore;
  judge?: JudgeUsage;
  failure?: RowFailure;
}

/** `previous`: the row's stored failed result when failed rows are scored again (its good
 * results may be kept). */
export type RowScorer = (
  row: DatasetRow,
  signal: AbortSignal,
  previous?: StoredRunResult,
) => Promise<MetricResult[] | RowOutcome>;

/** Where the runner stores rows (storage/datasets.ts `indexedDbRunStore`; tests use a Map). */
export interface BatchStore {
  /**
   * Stores a complete row with the counters; false when the row was already stored. A row
   * stored as failed may be replaced (failed rows scored again), never a done one.
   */
  putResult(result: StoredRunResult): Promise<boolean>;
  /** `message` in English (logs, the CLI); `messageRef` the same for the page to word. */
  setStatus(
    runId: string,
    status: RunStatus,
    message?: string | null,
    messageRef?: MessageRef,
  ): Promise<void>;
  /** Adds judge usage of rows that were not stored (a run paused mid-row) to the run's totals. */
  addUsage?(runId: string, usage: JudgeUsage): Promise<void>;
}

export type BatchState = RunState;

export interface BatchProgress {
  /** Rows stored, this session and before it. */
  done: number;
  total: number;
  /** Rows whose scoring failed as a whole (included in `done`). */
  failed: number;
  /** Rows being scored now. */
  inFlight: number;
  /** Rows per second over the moving window; null until it can be measured. */
  ratePerSec: number | null;
  /** Seconds left at that rate; null when unknown. */
  etaSec: number | null;
  state: BatchState;
}

export interface BatchOutcome {
  /** 'paused' here means stopped by a storage or read failure, a provider error every row would
   * meet, an outage or the browser going offline (see `message` and `stoppedBy`). */
  status: 'done' | 'cancelled' | 'paused';
  /** What paused the run, when it stopped short. */
  stoppedBy?: StopCause;
  done: number;
  failed: number;
  total: number;
  /** Rows stored by this call. */
  scored: number;
  /** Why the run stopped short, in words that name what was not saved. */
  message?: string;
  /** The same as a message, where it is one of SumLens's own. */
  messageRef?: MessageRef;
  error?: Error;
}

/** Why a run stopped short of the end. */
export type StopCause = 'storage' | 'provider' | 'outage' | 'offline' | 'halted';

export interface BatchOptions {
  runId: string;
  /** The rows still to score, in order (storage/datasets.ts `pendingRows`). */
  rows: AsyncIterable<DatasetRow> | Iterable<DatasetRow>;
  /** Rows in the whole run. */
  total: number;
  /** Rows stored before this call (a resume), and how many of them failed. */
  alreadyDone?: number;
  alreadyFailed?: number;
  scoreRow: RowScorer;
  /**
   * Detects the language of case rows, a chunk at a time (row-language.ts): the language worker
   * in the page, cld3 in the batch worker. Default: each row's script.
   */
  detectLanguages?: DetectLanguages;
  store: BatchStore;
  /** Rows scored at the same time; default 1. */
  concurrency?: number;
  onProgress?(progress: BatchProgress): void;
  /** Each row as stored. */
  onRow?(result: StoredRunResult): void;
  /** Cancels the run. */
  signal?: AbortSignal;
  /**
   * Stops the run as paused, with the signal's reason (a string) as the message: the rows in
   * flight are dropped unsaved and scored on resume (the page halts its runs when it goes offline).
   */
  halt?: AbortSignal;
  /** The stored failed result of a row being scored again (`retryFailed`). */
  previousResult?(row: number): StoredRunResult | undefined;
  pause?: PauseSignal;
  /** Milliseconds clock (tests pass a fake); default performance.now. */
  clock?: () => number;
  rateWindowMs?: number;
}
