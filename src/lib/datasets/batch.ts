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
 */
import { messageOf, asError } from '../errors.ts';
import type { JudgePlan } from '../metrics/judge/plan.ts';
import type { JudgeSettings } from '../metrics/judge/settings.ts';
import { computeMetrics } from '../metrics/offline.ts';
import type { OfflineBackends } from '../metrics/offline.ts';
import { metricInfo } from '../metrics/registry.ts';
import type { MetricSettings } from '../metrics/settings.ts';
import {
  JUDGE_METRIC_IDS,
  type JudgeMetricId,
  type MetricId,
  type MetricResult,
  type CaseInput,
} from '../metrics/types.ts';
import { estimateCost, type PriceTable } from '../llm/prices.ts';
import {
  PROVIDER_OUTAGE_KINDS,
  RUN_STOPPING_KINDS,
  type Judge,
  type ProviderKind,
} from '../llm/types.ts';
import type { JudgeFailure } from '../metrics/judge/run.ts';
import type {
  JudgeUsage,
  RunSettings,
  RunStatus,
  StoredDataset,
  StoredRun,
  StoredRunResult,
  TaskRowScore,
} from '../storage/schema.ts';
import {
  createRun,
  failedResults,
  getRun,
  indexedDbRunStore,
  pendingRows,
} from '../storage/runs.ts';
import { isCaseRow, missingPredictionMessage, type DatasetRow } from '../rows/formats.ts';
import {
  callListener,
  exclusively,
  type RunState,
  RATE_WINDOW_MS,
  RateMeter,
  RunAbort,
  runLanes,
  type PauseSignal,
} from './lanes.ts';
import { needsWordSegmenter, resolveTask, scoreTinyEvalRow } from './tinyeval.ts';

// ---- Which metrics run where ----

const JUDGE_IDS = new Set<MetricId>(JUDGE_METRIC_IDS);

export function isJudgeMetric(id: MetricId): id is JudgeMetricId {
  return JUDGE_IDS.has(id);
}

export interface MetricSplit {
  /** Offline metrics the batch worker computes (ROUGE, BLEU, token F1, coherence, density). */
  worker: MetricId[];
  /** Metrics computed in the page: LLM-judge metrics, and coherence on provider embeddings
   * (both use the judge's key, which never goes to a worker). */
  page: MetricId[];
}

export function splitMetrics(metrics: readonly MetricId[], settings: MetricSettings): MetricSplit {
  const providerEmbedding = settings.backends.embedding.kind === 'provider';
  const split: MetricSplit = { worker: [], page: [] };
  for (const id of metrics) {
    const needs = metricInfo(id).needs;
    if (needs === 'llm' || (needs === 'embedding' && providerEmbedding)) split.page.push(id);
    else split.worker.push(id);
  }
  return split;
}

/**
 * Where a run executes: entirely in the batch worker when every metric can run there (the case of
 * large offline runs, which must keep the page responsive), else in the page (`runBatch` with
 * `pageRowScorer`, which still sends the offline metrics to the metric workers).
 */
export function runExecutor(
  metrics: readonly MetricId[],
  settings: MetricSettings,
): 'worker' | 'page' {
  return splitMetrics(metrics, settings).page.length > 0 ? 'page' : 'worker';
}

// ---- The plan ----

/** A judge plan for one sample row, priced for the judge that will run it. */
export interface PerRowJudgePlan {
  plan: JudgePlan;
  provider: ProviderKind;
  model: string;
  prices?: PriceTable;
}

export interface BatchPlan {
  rows: number;
  metrics: number;
  /** rows × metrics: the scores the run will produce. */
  scores: number;
  offlineMetrics: MetricId[];
  judgeMetrics: JudgeMetricId[];
  /** HTTP requests to the judge, at most (cache hits make fewer). */
  llmCalls: number;
  estimatedTokens: { input: number; output: number; total: number };
  /** USD; undefined when there are no LLM metrics' prices (unknown model) — never 0 for unknown. */
  estimatedCost: number | undefined;
  /** Whether the cost is known (false: no price for the model). */
  costKnown: boolean;
  executor: 'worker' | 'page';
  notes: string[];
}

/**
 * G-Eval's evaluation steps depend on the criterion and model only (plan.ts, g-eval.ts: "cached per
 * criterion and model"): one call for the whole run, not one per row.
 */
const SHARED_CALL = /cached per criterion/u;

/**
 * What a run will cost: rows × metrics scores and, for LLM metrics, the judge calls and tokens of
 * `perRowJudgePlan` (planJudgeRun on a sample row) times the rows, with the calls shared by every
 * row (G-Eval steps) counted once. An upper bound: the judge's cache answers rows already judged.
 */
export function planBatch(
  rowCount: number,
  metrics: readonly MetricId[],
  perRowJudgePlan?: PerRowJudgePlan,
  settings?: MetricSettings,
): BatchPlan {
  const judgeMetrics = metrics.filter(isJudgeMetric);
  const offlineMetrics = metrics.filter((m) => !isJudgeMetric(m));
  const notes: string[] = [];
  let llmCalls = 0;
  let input = 0;
  let output = 0;
  let estimatedCost: number | undefined;
  let costKnown = true;
  if (judgeMetrics.length > 0 && rowCount > 0) {
    if (!perRowJudgePlan) {
      costKnown = false;
      notes.push('No judge plan yet: the LLM calls and cost are not estimated.');
    } else {
      for (const round of perRowJudgePlan.plan.rounds) {
        for (const call of round.calls) {
          const times = SHARED_CALL.test(call.purpose) ? 1 : rowCount;
          llmCalls += call.httpCalls * times;
          input += call.estimatedInputTokens * times;
          output += call.estimatedOutputTokens * times;
        }
      }
      estimatedCost = estimateCost(
        { input, output },
        perRowJudgePlan.provider,
        perRowJudgePlan.model,
        perRowJudgePlan.prices,
      );
      costKnown = estimatedCost !== undefined;
      if (!costKnown) {
        notes.push(
          `No price for ${perRowJudgePlan.provider}/${perRowJudgePlan.model} in the price table: the cost is unknown.`,
        );
      }
      notes.push(
        'Estimated from one sample row; rows with longer texts cost more, and answers already in the judge cache cost nothing.',
      );
      notes.push(...perRowJudgePlan.plan.notes);
    }
  }
  return {
    rows: rowCount,
    metrics: metrics.length,
    scores: rowCount * metrics.length,
    offlineMetrics,
    judgeMetrics,
    llmCalls,
    estimatedTokens: { input, output, total: input + output },
    estimatedCost: judgeMetrics.length > 0 ? estimatedCost : 0,
    costKnown,
    executor: settings
      ? runExecutor(metrics, settings)
      : judgeMetrics.length > 0
        ? 'page'
        : 'worker',
    notes,
  };
}

// ---- Pause ----

// The runners share these (lanes.ts); pages, workers and tests import them from here.
export { PauseController, RATE_WINDOW_MS, type PauseSignal } from './lanes.ts';

// ---- The runner ----

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
  setStatus(runId: string, status: RunStatus, message?: string | null): Promise<void>;
  /** Adds judge usage of rows that were not stored (a run paused mid-row) to the run's totals. */
  addUsage?(runId: string, usage: JudgeUsage): Promise<void>;
}

/**
 * Rows in a row that failed with the provider's own errors before the run pauses (PROVIDERS.md
 * §13 circuit breaking): a provider that is down would otherwise fail every remaining row.
 */
export const OUTAGE_ROWS = 5;

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
  const abort = new RunAbort<{ message: string; error: Error; cause: StopCause }>(options.signal);

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
    emit({
      done,
      total,
      failed,
      inFlight,
      ratePerSec: meter.rate(),
      etaSec: meter.eta(Math.max(0, total - done)),
      state: state(),
    });
  };
  const setStatus = async (status: RunStatus, message?: string | null) => {
    try {
      await store.setStatus(runId, status, message);
    } catch {
      // The status is a convenience for the list; the rows and counters are what count.
    }
  };
  const halt = (message: string, error: Error, cause: StopCause = 'storage') =>
    abort.halt({ message, error, cause }, error);
  const onHalt = () => {
    const reason = options.halt?.reason;
    const message = typeof reason === 'string' ? reason : 'The run was paused.';
    halt(message, new Error(message), 'halted');
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

  const scoreAndStore = async (row: DatasetRow): Promise<void> => {
    inFlight++;
    report();
    const started = clock();
    const previous = options.previousResult?.(row.row);
    let stored: StoredRunResult;
    try {
      const outcome = toOutcome(await scoreRow(row, abort.signal, previous));
      const failure = outcome.failure;
      if (failure && failure.effect !== 'row') {
        // Not stored: the row is scored again on resume; what it spent still counts.
        inFlight--;
        await addUsage(outcome.judge);
        halt(
          failure.reason,
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
        ...(outcome.task ? { task: outcome.task } : {}),
        ...(outcome.judge ? { judge: outcome.judge } : {}),
        ...(failure ? { error: failure.reason } : {}),
        finishedAt: Date.now(),
        elapsedMs: Math.round(clock() - started),
      };
      outageRun = failure?.outage ? outageRun + 1 : 0;
      if (outageRun >= OUTAGE_ROWS && failure) {
        halt(
          `${OUTAGE_ROWS} rows in a row failed because of the provider (last: ${failure.reason}). The run is paused so that it does not spend requests on every remaining row: press Resume when the provider is back; "Retry failed rows" then scores the failed rows again.`,
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
    rows: options.rows,
    concurrency: options.concurrency ?? 1,
    signal: abort.signal,
    pause,
    onPauseWait: report,
    onReadError: (error) =>
      halt(
        `Reading the data set's rows failed (${messageOf(error)}); the run was paused.`,
        asError(error),
      ),
    work: scoreAndStore,
  });
  unsubscribe?.();
  options.halt?.removeEventListener('abort', onHalt);
  abort.release();

  const stop = abort.stop;
  let status: BatchOutcome['status'];
  if (stop) {
    status = 'paused';
    await setStatus('paused', stop.message);
  } else if (abort.cancelled) {
    status = 'cancelled';
    await setStatus('cancelled');
  } else {
    status = 'done';
    await setStatus('done', null);
  }
  const outcome: BatchOutcome = { status, done, failed, total, scored };
  if (stop) {
    outcome.message = stop.message;
    outcome.error = stop.error;
    outcome.stoppedBy = stop.cause;
  }
  if (options.onProgress) {
    emit({
      done,
      total,
      failed,
      inFlight: 0,
      ratePerSec: meter.rate(),
      etaSec: status === 'done' ? 0 : null,
      state: status === 'paused' ? 'stopped' : status,
    });
  }
  return outcome;
}

// ---- Row scorers ----

export interface OfflineRowScorerOptions {
  /** The run's metrics; only those that run offline are computed here. */
  metrics: readonly MetricId[];
  settings: MetricSettings;
  /** The TinyEval/LongBench task of prediction rows. */
  task?: string;
  backends: OfflineBackends;
}

/**
 * Scores a row without any LLM: case rows with `computeMetrics` (the offline metrics of the
 * run), prediction rows with their TinyEval task (max over answers; jieba for the Chinese tasks
 * when the backends provide it). Used by the batch worker and the CLI.
 */
export function offlineRowScorer(options: OfflineRowScorerOptions): RowScorer {
  const ids = splitMetrics(options.metrics, options.settings).worker;
  const task = options.task ? resolveTask(options.task) : undefined;
  return async (row, signal) => {
    signal.throwIfAborted();
    if (isCaseRow(row)) {
      const results: MetricResult[] = [];
      if (ids.length > 0) {
        await computeMetrics(
          ids,
          row.input,
          options.settings,
          options.backends,
          (r) => results.push(r),
          signal,
        );
      }
      return { results };
    }
    if (!task) {
      throw new Error(
        'This data set holds predictions: choose its task (trec, multi_news, custom:rouge-l, …) to score them.',
      );
    }
    // An empty prediction would score 0 as if the model had answered nothing.
    if (row.input.needsPrediction) throw new Error(missingPredictionMessage(row.row));
    const segmenter =
      needsWordSegmenter(task) && options.backends.wordSegmenter
        ? await options.backends.wordSegmenter()
        : undefined;
    signal.throwIfAborted();
    const scoredRow = scoreTinyEvalRow(
      task,
      row.input.prediction,
      row.input.answers,
      row.input.allClasses,
      {
        segmenter,
        reference: {
          useStemmer: options.settings.rouge.useStemmer,
          lsumSplitSentences: options.settings.rouge.lsumSplitSentences,
          tokenizer: options.settings.rouge.tokenizer,
        },
      },
    );
    return {
      results: [],
      task: {
        task: task.id,
        metric: task.metric,
        score: scoredRow.score,
        perAnswer: scoredRow.perAnswer,
        ...(needsWordSegmenter(task) ? { segmenter: segmenter?.name ?? 'intl-segmenter' } : {}),
      },
    };
  };
}

export interface PageRowScorerOptions {
  /** The run's metrics. */
  metrics: readonly MetricId[];
  /**
   * The offline metrics of a case, computed off the main thread (the metric workers:
   * src/lib/workers); receives only the metric ids that need no key.
   */
  offline?(ids: MetricId[], input: CaseInput, signal: AbortSignal): Promise<MetricResult[]>;
  /** Metrics the page computes itself besides the judge's (coherence on provider embeddings). */
  extra?(ids: MetricId[], input: CaseInput, signal: AbortSignal): Promise<MetricResult[]>;
  settings: MetricSettings;
  /** The judge of the LLM metrics: `createJudge` with its cache and per-provider limit. */
  judge?: { judge: Judge; settings: JudgeSettings; prices?: PriceTable };
  /** Whether the browser is offline now (navigator.onLine false): network failures then pause
   * the run instead of failing rows. */
  isOffline?(): boolean;
}

/** Results of a failed row worth keeping when it is scored again: its offline metrics that
 * worked (the LLM metrics are asked again; the judge's cache answers the calls that worked). */
function keptResults(
  previous: StoredRunResult | undefined,
  ids: readonly MetricId[],
): MetricResult[] {
  if (previous?.status !== 'failed') return [];
  return previous.results.filter((r) => ids.includes(r.id) && r.status !== 'error');
}

/**
 * Scores a case row in the page: offline metrics through `offline` (the workers), the rest through
 * `extra` and the judge (`runJudgeMetrics`, whose client caches answers and limits concurrency per
 * provider), with the row's judge usage and cost for the run's totals.
 */
export function pageRowScorer(options: PageRowScorerOptions): RowScorer {
  const split = splitMetrics(options.metrics, options.settings);
  const judgeIds = split.page.filter(isJudgeMetric);
  const extraIds = split.page.filter((id) => !isJudgeMetric(id));
  return async (row, signal, previous) => {
    signal.throwIfAborted();
    if (!isCaseRow(row)) {
      throw new Error('Prediction rows are scored by their task in the batch worker, not here.');
    }
    const input = row.input;
    const kept = keptResults(previous, split.worker);
    const offlineIds = split.worker.filter((id) => !kept.some((r) => r.id === id));
    const jobs: Array<Promise<MetricResult[]>> = [Promise.resolve(kept)];
    if (offlineIds.length > 0) {
      if (!options.offline) throw new Error('No offline scorer was given for the offline metrics.');
      jobs.push(options.offline(offlineIds, input, signal));
    }
    if (extraIds.length > 0) {
      if (!options.extra) throw new Error(`Nothing computes ${extraIds.join(', ')} in the page.`);
      jobs.push(options.extra(extraIds, input, signal));
    }
    let judge: Promise<JudgedRow> | undefined;
    if (judgeIds.length > 0) {
      if (!options.judge) {
        throw new Error('The LLM metrics need a judge: set a provider and key first.');
      }
      judge = judgeRow(input, judgeIds, options.judge, signal);
      jobs.push(judge.then((j) => j.results));
    }
    const results = (await Promise.all(jobs)).flat();
    if (!judge) return { results };
    const judged = await judge;
    const failure = rowFailure(judged.failures, options.isOffline?.() ?? false);
    return { results, judge: judged.usage, ...(failure ? { failure } : {}) };
  };
}

/** Failures a row cannot escape by being asked again: the item itself is refused. */
const UNSCORABLE = new Set<JudgeFailure['kind']>(['refusal', 'content-filter']);

/** What the judge's failures on a row mean for the run (see RowFailure). */
export function rowFailure(
  failures: readonly JudgeFailure[],
  offline: boolean,
): RowFailure | undefined {
  const stopping = failures.find((f) => f.kind !== 'other' && RUN_STOPPING_KINDS.has(f.kind));
  if (stopping) {
    return {
      effect: 'stop',
      reason:
        `The run is paused: ${stopping.message} ${STOP_ADVICE[stopping.kind as keyof typeof STOP_ADVICE] ?? ''}`.trim(),
    };
  }
  if (offline && failures.some((f) => f.kind === 'network')) {
    return {
      effect: 'offline',
      reason:
        'The browser is offline: the run is paused and goes on by itself when the connection is back.',
    };
  }
  const failing = failures.filter((f) => !UNSCORABLE.has(f.kind));
  if (failing.length === 0) return undefined;
  const first = failing[0];
  const more =
    failing.length > 1
      ? ` (and ${failing.length - 1} more failed call${failing.length > 2 ? 's' : ''})`
      : '';
  return {
    effect: 'row',
    reason: `${first.metrics.join(', ') || 'LLM metrics'}: ${first.message} (${first.stage})${more}`,
    outage: failing.some((f) => f.kind !== 'other' && PROVIDER_OUTAGE_KINDS.has(f.kind)),
  };
}

/** What to do about an error that paused the run, after the provider's own words. */
const STOP_ADVICE = {
  auth: 'Set a working key under "LLM judge provider", then press Resume.',
  permission: 'Use a key with access to this model, then press Resume.',
  quota: 'Add credits or raise the limit with the provider, then press Resume.',
  'model-not-found':
    'Press Resume once this key has access to the model (another model needs a new run: one run never mixes two judges).',
  'context-too-long':
    'Lower "Context tokens" in the judge settings (Resume uses the lower of the run\'s and the current setting), then press Resume.',
} as const;

interface JudgedRow {
  results: MetricResult[];
  usage: JudgeUsage;
  failures: JudgeFailure[];
}

/** The judge metrics of one row, with the row's tokens, calls and cost. */
async function judgeRow(
  input: CaseInput,
  metrics: JudgeMetricId[],
  j: NonNullable<PageRowScorerOptions['judge']>,
  signal: AbortSignal,
): Promise<JudgedRow> {
  // Loaded on first use: the batch worker bundles this module but never judges.
  const { runJudgeMetrics } = await import('../metrics/judge/run.ts');
  const summary = await runJudgeMetrics(input, {
    metrics,
    settings: j.settings,
    judge: j.judge,
    onResult: () => {},
    signal,
  });
  const cost = estimateCost(summary.usage, j.judge.provider, j.judge.model, j.prices);
  return {
    results: summary.results,
    failures: summary.failures,
    usage: {
      input: summary.usage.input,
      output: summary.usage.output,
      ...(summary.usage.cachedInput === undefined
        ? {}
        : { cachedInput: summary.usage.cachedInput }),
      calls: summary.calls,
      httpCalls: summary.httpCalls,
      cachedCalls: summary.cachedCalls,
      ...(cost === undefined ? {} : { cost }),
    },
  };
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

export const RUN_BUSY_MESSAGE =
  'This run is already running in another tab or window: pause or close it there first.';

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

export interface NewBatchRun {
  dataset: Pick<StoredDataset, 'id' | 'name' | 'rowCount'>;
  metrics: MetricId[];
  settings: RunSettings;
  /** The judge of the LLM metrics (provider and model, never the key). */
  judge?: { provider: ProviderKind; model: string };
  appVersion: string;
  /** Default crypto.randomUUID(). */
  id?: string;
  now?: number;
}

/** Creates the stored run record a batch starts from (status 'running', nothing done). */
export async function createBatchRun(spec: NewBatchRun): Promise<StoredRun> {
  const now = spec.now ?? Date.now();
  return createRun({
    id: spec.id ?? crypto.randomUUID(),
    datasetId: spec.dataset.id,
    datasetName: spec.dataset.name,
    createdAt: now,
    metrics: spec.metrics,
    settings: spec.settings,
    backends: { ...(spec.judge ? { judge: spec.judge } : {}), perMetric: {} },
    ...(spec.judge && splitMetrics(spec.metrics, spec.settings.metrics).page.length > 0
      ? { judgeUsage: { input: 0, output: 0, calls: 0, httpCalls: 0, cachedCalls: 0, cost: 0 } }
      : {}),
    appVersion: spec.appVersion,
    total: spec.dataset.rowCount,
  });
}
