/**
 * How one row of a batch run is scored: offline (the batch worker and the CLI: `computeMetrics`
 * and the task of prediction rows) or in the page (the metric workers, provider embeddings and
 * the judge), and how a judge failure becomes a row failure or a run-stopping cause. Split from
 * batch.ts (the runner), which re-exports it.
 */
import { englishRef, type MessageRef } from '../i18n/message.ts';
import type { JudgeSettings } from '../metrics/judge/settings.ts';
import { computeMetrics } from '../metrics/offline.ts';
import type { OfflineBackends } from '../metrics/offline.ts';
import type { MetricSettings } from '../metrics/settings.ts';
import {
  type JudgeMetricId,
  type MetricId,
  type MetricResult,
  type CaseInput,
} from '../metrics/types.ts';
import { estimateCost, type PriceTable } from '../llm/prices.ts';
import { PROVIDER_OUTAGE_KINDS, RUN_STOPPING_KINDS, type Judge } from '../llm/types.ts';
import type { JudgeFailure } from '../metrics/judge/run.ts';
import type { JudgeUsage, StoredRunResult } from '../storage/schema.ts';
import { isCaseRow, missingPredictionMessage } from '../rows/formats.ts';
import { needsWordSegmenter, resolveTask, scoreTinyEvalRow } from './tinyeval.ts';
import { isJudgeMetric, splitMetrics } from './batch-plan.ts';
import type { RowFailure, RowScorer } from './batch-types.ts';

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
  /**
   * The run's ceiling (run-ceiling.ts `SpendGate`): once it has refused a request, the row's
   * failures are the refusal's, and the run pauses with its reason instead.
   */
  ceiling?: {
    reached(): MessageRef | undefined;
    /** Refused requests the row's usage counts as sent, taken back (at most `max`). */
    takeUnsent(max: number): number;
  };
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
    // A row whose calls all went through before the ceiling is complete: it is stored.
    const ceiling = judged.failures.length > 0 ? options.ceiling?.reached() : undefined;
    if (ceiling) {
      // Not stored: Resume scores the row again, and the judge's cache answers what was paid.
      const reason = englishRef(ceiling);
      const unsent = options.ceiling?.takeUnsent(judged.usage.httpCalls) ?? 0;
      return {
        results,
        judge: { ...judged.usage, httpCalls: judged.usage.httpCalls - unsent },
        failure: { effect: 'stop', reason, reasonRef: ceiling },
      };
    }
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
