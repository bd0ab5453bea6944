/**
 * The batch runner (SPEC §6): scores the rows of a data set with a chosen set of metrics, stores
 * each row's results as soon as the row is complete, and can be paused, resumed and cancelled.
 * Framework-free: the same `runBatch` runs in workers/batch.worker.ts for the offline metrics (it
 * reads and writes IndexedDB there, so the page only sees progress) and in the page for LLM-judge
 * metrics (API keys never leave the page).
 *
 * Nothing is lost and nothing is scored twice:
 * - a row is stored only once all its metrics are done, its results and the run's counters in one
 *   transaction (storage/datasets.ts `putRowResult`); a crash mid-row stores nothing for that row;
 * - a resumed run is fed only the rows without results (`pendingRows`), the runner skips a row
 *   number it has already seen, and the store refuses a second result for a row;
 * - when a write fails (storage full), the run stops as 'paused' with a message that names the
 *   row that was not saved; that row has no result, so resuming scores it again.
 *
 * Pause stops starting rows; rows already being scored finish and are stored. Cancel aborts the
 * rows in flight (their partial work is dropped, as with a crash); stored rows stay, and a
 * cancelled run can still be resumed.
 *
 * Rate and time left come from a moving window (lanes.ts `RateMeter`) of this session's completions,
 * restarted on resume so that a pause does not read as a slow-down.
 *
 * Where a run executes and its plan are in batch-plan.ts, how a row is scored in row-scorers.ts,
 * the runner's types in batch-types.ts and a new run's record in batch-create.ts (all re-exported
 * here, where pages, workers and tests import them).
 */
import { messageOf, asError } from '../errors.ts';
import { englishRef, isMessageRef, ref, type MessageRef } from '../i18n/message.ts';
import type { OfflineBackends } from '../metrics/offline.ts';
import type { MetricSettings } from '../metrics/settings.ts';
import type { MetricResult } from '../metrics/types.ts';
import type { JudgeUsage, RunStatus, StoredRunResult } from '../storage/schema.ts';
import { failedResults, getRun, indexedDbRunStore, pendingRows } from '../storage/runs.ts';
import { type DatasetRow } from '../rows/formats.ts';
import {
  callListener,
  exclusively,
  RATE_WINDOW_MS,
  RateMeter,
  RunAbort,
  runLanes,
} from './lanes.ts';
export * from './batch-plan.ts';
export * from './batch-types.ts';
export * from './batch-create.ts';
export * from './row-scorers.ts';
export * from './row-language.ts';
import { runExecutor, splitMetrics } from './batch-plan.ts';
import type {
  BatchOptions,
  BatchOutcome,
  BatchProgress,
  BatchState,
  RowOutcome,
  StopCause,
} from './batch-types.ts';
import { offlineRowScorer } from './row-scorers.ts';
import { scriptLanguages, withRowLanguages } from './row-language.ts';
import type { TextLanguage } from '../metrics/text/language.ts';

// ---- Pause ----

// The runners share these (lanes.ts); pages, workers and tests import them from here.
export { PauseController, RATE_WINDOW_MS, type PauseSignal } from './lanes.ts';

// ---- The runner ----

/**
 * Rows in a row that failed with the provider's own errors before the run pauses (PROVIDERS.md
 * §13 circuit breaking): a provider that is down would otherwise fail every remaining row.
 */
export const OUTAGE_ROWS = 5;

function toOutcome(value: MetricResult[] | RowOutcome): RowOutcome {
  return Array.isArray(value) ? { results: value } : value;
}

/**
 * Scores `rows`, storing each as it completes. Resolves (never rejects) with how the run ended;
 * the stored run status follows: running → paused/running on pause/resume → done, cancelled, or
 * paused with a message when storage failed.
 */
export async function runBatch(options: BatchOptions): Promise<BatchOutcome> {
  const { runId, store, scoreRow, total } = options;
  const clock = options.clock ?? (() => performance.now());
  const pause = options.pause;
  const meter = new RateMeter(clock, options.rateWindowMs ?? RATE_WINDOW_MS);
  // Aborts the rows in flight, on cancel or on a storage failure.
  const abort = new RunAbort<{
    message: string;
    messageRef?: MessageRef;
    error: Error;
    cause: StopCause;
  }>(options.signal);

  let done = options.alreadyDone ?? 0;
  let failed = options.alreadyFailed ?? 0;
  let scored = 0;
  let inFlight = 0;

  const state = (): BatchState => {
    if (abort.cancelled) return 'cancelling';
    if (pause?.paused) return inFlight > 0 ? 'pausing' : 'paused';
    return 'running';
  };
  const emit = (progress: BatchProgress) => callListener(() => options.onProgress?.(progress));
  const report = () => {
    if (!options.onProgress) return;
    const now = state();
    // A paused run has no time left to tell: nothing moves until someone resumes it.
    const moving = now === 'running';
    emit({
      done,
      total,
      failed,
      inFlight,
      ratePerSec: moving ? meter.rate() : null,
      etaSec: moving ? meter.eta(Math.max(0, total - done)) : null,
      state: now,
    });
  };
  const setStatus = async (status: RunStatus, message?: string | null, messageRef?: MessageRef) => {
    try {
      await store.setStatus(runId, status, message, messageRef);
    } catch {
      // The status is a convenience for the list; the rows and counters are what count.
    }
  };
  const halt = (said: string | MessageRef, error: Error, cause: StopCause = 'storage') =>
    abort.halt(
      typeof said === 'string'
        ? { message: said, error, cause }
        : { message: englishRef(said), messageRef: said, error, cause },
      error,
    );
  const onHalt = () => {
    const reason: unknown = options.halt?.reason;
    const said =
      typeof reason === 'string' || isMessageRef(reason) ? reason : ref('runs.batch.paused');
    halt(said, new Error(typeof said === 'string' ? said : englishRef(said)), 'halted');
  };
  if (options.halt?.aborted) onHalt();
  else options.halt?.addEventListener('abort', onHalt, { once: true });
  // Consecutive rows that failed with the provider's own errors (the outage breaker).
  let outageRun = 0;
  const addUsage = async (usage: JudgeUsage | undefined) => {
    if (!usage || !store.addUsage) return;
    try {
      await store.addUsage(runId, usage);
    } catch {
      // The counters are a report; a failed write must not stop the pause it belongs to.
    }
  };

  const unsubscribe = pause?.subscribe((paused) => {
    if (!paused) meter.restart();
    void setStatus(paused ? 'paused' : 'running');
    report();
  });

  // Each case row's language as decided before it was scored, for its stored result.
  const languages = new WeakMap<DatasetRow, TextLanguage>();
  const rows = withRowLanguages(
    options.rows,
    options.detectLanguages ?? scriptLanguages,
    (row, language) => languages.set(row, language),
  );

  const scoreAndStore = async (row: DatasetRow): Promise<void> => {
    inFlight++;
    report();
    const started = clock();
    const previous = options.previousResult?.(row.row);
    const found = languages.get(row);
    const language = found ? { language: found } : {};
    let stored: StoredRunResult;
    try {
      const outcome = toOutcome(await scoreRow(row, abort.signal, previous));
      const failure = outcome.failure;
      if (failure && failure.effect !== 'row') {
        // Not stored: the row is scored again on resume; what it spent still counts.
        inFlight--;
        await addUsage(outcome.judge);
        halt(
          failure.reasonRef ?? failure.reason,
          new Error(failure.reason),
          failure.effect === 'offline' ? 'offline' : 'provider',
        );
        return;
      }
      stored = {
        runId,
        row: row.row,
        status: failure ? 'failed' : 'done',
        results: outcome.results,
        ...language,
        ...(outcome.task ? { task: outcome.task } : {}),
        ...(outcome.judge ? { judge: outcome.judge } : {}),
        ...(failure ? { error: failure.reason } : {}),
        finishedAt: Date.now(),
        elapsedMs: Math.round(clock() - started),
      };
      outageRun = failure?.outage ? outageRun + 1 : 0;
      if (outageRun >= OUTAGE_ROWS && failure) {
        halt(
          ref('runs.batch.outage', { rows: OUTAGE_ROWS, last: failure.reason }),
          new Error(failure.reason),
          'outage',
        );
      }
    } catch (error) {
      if (abort.signal.aborted) {
        // Cancelled or halted mid-row: nothing of the row is stored, as after a crash. (An
        // AbortError of the row's own making, a timeout, is a failed row like any other.)
        inFlight--;
        return;
      }
      stored = {
        runId,
        row: row.row,
        status: 'failed',
        results: [],
        ...language,
        error: messageOf(error),
        finishedAt: Date.now(),
        elapsedMs: Math.round(clock() - started),
      };
    }
    try {
      const added = await store.putResult(stored);
      if (added) {
        // A failed row scored again replaces its result: it was counted as done already.
        if (previous?.status === 'failed') failed--;
        else done++;
        scored++;
        if (stored.status === 'failed') failed++;
        meter.complete();
        callListener(() => options.onRow?.(stored));
      }
    } catch (error) {
      inFlight--;
      const e = asError(error);
      halt(e.message, e);
      return;
    }
    inFlight--;
    report();
  };

  await setStatus('running', null);
  report();
  await runLanes({
    rows,
    concurrency: options.concurrency ?? 1,
    signal: abort.signal,
    pause,
    onPauseWait: report,
    onReadError: (error) =>
      halt(ref('runs.batch.readFailed', { error: messageOf(error) }), asError(error)),
    work: scoreAndStore,
  });
  unsubscribe?.();
  options.halt?.removeEventListener('abort', onHalt);
  abort.release();

  const stop = abort.stop;
  const status: BatchOutcome['status'] = stop ? 'paused' : abort.cancelled ? 'cancelled' : 'done';
  // The final state goes to the page before the status write: between the two, a run that has
  // ended must not show Pause and Cancel (nor a time left).
  if (options.onProgress) {
    emit({
      done,
      total,
      failed,
      inFlight: 0,
      ratePerSec: null,
      etaSec: status === 'done' ? 0 : null,
      state: status === 'paused' ? 'stopped' : status,
    });
  }
  if (stop) await setStatus('paused', stop.message, stop.messageRef);
  else if (abort.cancelled) await setStatus('cancelled');
  else await setStatus('done', null);
  const outcome: BatchOutcome = { status, done, failed, total, scored };
  if (stop) {
    outcome.message = stop.message;
    if (stop.messageRef) outcome.messageRef = stop.messageRef;
    outcome.error = stop.error;
    outcome.stoppedBy = stop.cause;
  }
  return outcome;
}

// ---- Runs stored in IndexedDB ----

/**
 * `runBatch`'s options that a stored run does not take from its record: `scoreRow` replaces
 * `offlineRowScorer` (the page: `pageRowScorer` for LLM metrics), `store` defaults to IndexedDB.
 */
export type StoredBatchOptions = Partial<
  Pick<
    BatchOptions,
    | 'scoreRow'
    | 'detectLanguages'
    | 'concurrency'
    | 'onProgress'
    | 'onRow'
    | 'signal'
    | 'halt'
    | 'pause'
    | 'clock'
    | 'store'
  >
> & {
  /** The offline backends for the run's settings (worker: GloVe, compromise, jieba, models). */
  backends?: (settings: MetricSettings) => OfflineBackends;
  /** Also score again the rows stored as failed (their good offline results are kept). */
  retryFailed?: boolean;
};

/** The Web Lock a run holds while it executes (one tab, or the worker, at a time). */
export function runLockName(runId: string): string {
  return `sumlens-run:${runId}`;
}

/**
 * The Web Lock the page that drives a run holds from the click to the outcome, around the run's
 * own lock: the batch worker takes that one only once it has started, and another tab must not
 * mistake a run between the two for one whose tab has gone.
 */
export function runClaimName(runId: string): string {
  return `sumlens-run-tab:${runId}`;
}

export const RUN_BUSY_REF = ref('runs.batch.busy');
export const RUN_BUSY_MESSAGE = englishRef(RUN_BUSY_REF);

/**
 * Starts or resumes a stored run: reads the run, feeds `runBatch` the rows of its data set that
 * have no results yet, and stores each finished row. The same call after a reload or a crash goes
 * on where the run stopped.
 *
 * A run executes in one place at a time: a Web Lock named after the run is held while it runs, so
 * a second tab (or the page and the worker) cannot score the same pending rows twice; the second
 * start is refused with a message instead.
 */
export async function runStoredBatch(
  runId: string,
  options: StoredBatchOptions,
): Promise<BatchOutcome> {
  return exclusively(runLockName(runId), RUN_BUSY_MESSAGE, () =>
    runStoredBatchLocked(runId, options),
  );
}

/**
 * `runStoredBatch` for a caller that holds the run's lock already (the page checks the judge
 * under the lock, so that a tab that is not running the run never writes its status).
 */
export async function runStoredBatchLocked(
  runId: string,
  options: StoredBatchOptions,
): Promise<BatchOutcome> {
  const run = await getRun(runId);
  if (!run) throw new Error(`Run ${runId} does not exist (was it deleted?).`);
  if (!options.scoreRow && runExecutor(run.metrics, run.settings.metrics) === 'page') {
    // Rows stored without their LLM metrics would count as done and never be judged.
    throw new Error(
      `This run has metrics that need the LLM judge (${splitMetrics(run.metrics, run.settings.metrics).page.join(', ')}): it runs in the page, not in the batch worker.`,
    );
  }
  const scoreRow =
    options.scoreRow ??
    offlineRowScorer({
      metrics: run.metrics,
      settings: run.settings.metrics,
      task: run.settings.task,
      backends: options.backends?.(run.settings.metrics) ?? {},
    });
  const failedRows = options.retryFailed ? await failedResults(runId) : new Map();
  return runBatch({
    runId,
    rows: pendingRows(runId, { includeFailed: options.retryFailed ?? false }),
    ...(failedRows.size > 0 ? { previousResult: (row: number) => failedRows.get(row) } : {}),
    total: run.counts.total,
    alreadyDone: run.counts.done,
    alreadyFailed: run.counts.failed,
    scoreRow,
    ...(options.detectLanguages ? { detectLanguages: options.detectLanguages } : {}),
    store: options.store ?? indexedDbRunStore,
    concurrency: options.concurrency ?? run.settings.concurrency ?? 1,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.onRow ? { onRow: options.onRow } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.halt ? { halt: options.halt } : {}),
    ...(options.pause ? { pause: options.pause } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
}
