/**
 * A data-set run's judge calls sent to the provider's batch API before its rows are scored: the
 * batch engine (llm/batch/engine.ts) collects every pending row's requests, submits them as jobs
 * (one per round, split at the provider's limits), polls them and writes each answer into the
 * judge cache under its interactive key. The run then scores its rows as any run does, and the
 * judge finds its answers in the cache: a row whose requests were all answered makes no call.
 *
 * Pending job ids live on the run's record, so a tab closed while a job runs polls the same job
 * when the run resumes instead of paying for a second one. The rows get their languages the way
 * the run will detect them, so the prompts (and so the cache keys) are the same in both passes.
 */
import { isBatchKind, type BatchKind } from '../llm/batch/kinds.ts';
import type { BatchEvent } from '../llm/batch/engine.ts';
import type { ResponseCache } from '../llm/cache.ts';
import type { Capabilities, Judge, ProviderConfig } from '../llm/types.ts';
import type { JudgeSettings } from '../metrics/judge/settings.ts';
import type { MetricSettings } from '../metrics/settings.ts';
import type { JudgeMetricId } from '../metrics/types.ts';
import type { CaseRow, DatasetRow } from '../rows/formats.ts';
import { isCaseRow } from '../rows/formats.ts';
import type { ProviderBatchState, StoredBatchJob, StoredRun } from '../storage/schema.ts';
import { isJudgeMetric, splitMetrics } from './batch-plan.ts';
import { withRowLanguages, type DetectLanguages } from './row-language.ts';

/** Whose batch endpoints a page may call: Anthropic's answer no browser preflight (the CLI can). */
export const PAGE_BATCH_KINDS: readonly BatchKind[] = ['openai', 'gemini'];

export const DEFAULT_BATCH_POLL_SEC = 30;

export function pageCanBatch(kind: string): kind is BatchKind {
  return isBatchKind(kind) && PAGE_BATCH_KINDS.includes(kind);
}

export interface ProviderBatchOptions {
  run: StoredRun;
  rows: AsyncIterable<DatasetRow>;
  config: ProviderConfig;
  judgeSettings: JudgeSettings;
  cache: ResponseCache;
  jobs: {
    list(): Promise<StoredBatchJob[]>;
    add(job: StoredBatchJob): Promise<void>;
    remove(jobId: string): Promise<void>;
  };
  detectLanguages: DetectLanguages;
  /** The interactive judge's capabilities (its probe), so both passes ask the same requests. */
  capabilities: () => Promise<Capabilities>;
  signal: AbortSignal;
  onState(state: ProviderBatchState): void;
  fetch?: typeof fetch;
}

export interface ProviderBatchOutcome {
  rows: number;
  rounds: number;
  requests: number;
  failed: number;
}

/** The judge metrics the page runs for this run's rows (as pageRowScorer picks them). */
export function batchJudgeMetrics(
  metrics: StoredRun['metrics'],
  settings: MetricSettings,
): JudgeMetricId[] {
  return splitMetrics(metrics, settings).page.filter(isJudgeMetric);
}

export async function sendRunAsBatchJobs(
  options: ProviderBatchOptions,
): Promise<ProviderBatchOutcome> {
  const { run, config, signal } = options;
  const metrics = batchJudgeMetrics(run.metrics, run.settings.metrics);
  const rows: CaseRow[] = [];
  for await (const row of withRowLanguages(options.rows, options.detectLanguages)) {
    if (isCaseRow(row)) rows.push(row);
  }
  if (rows.length === 0 || metrics.length === 0)
    return { rows: 0, rounds: 0, requests: 0, failed: 0 };

  const [{ runBatch }, { runJudgeMetrics }] = await Promise.all([
    import('../llm/batch/engine.ts'),
    import('../metrics/judge/run.ts'),
  ]);
  const state: ProviderBatchState = {
    phase: 'collecting',
    round: 1,
    jobs: [],
    requests: 0,
    failed: 0,
  };
  const report = () => options.onState(structuredClone(state));
  const onEvent = (event: BatchEvent) => {
    switch (event.type) {
      case 'round':
        state.round = event.round;
        state.phase = 'collecting';
        state.jobs = [];
        if (event.estimate.costUsd === undefined) delete state.costUsd;
        else state.costUsd = event.estimate.costUsd;
        break;
      case 'submitted':
      case 'resumed':
        state.phase = 'waiting';
        state.jobs.push({ id: event.jobId, requests: event.requests, status: 'submitted' });
        break;
      case 'status': {
        const job = state.jobs.find((j) => j.id === event.jobId);
        if (job) {
          job.status = event.status.raw;
          if (event.status.done === undefined) delete job.done;
          else job.done = event.status.done;
        }
        break;
      }
      case 'downloaded':
        state.requests += event.answered + event.failed;
        state.failed += event.failed;
        break;
    }
    report();
  };
  report();
  const summary = await runBatch({
    config,
    cache: options.cache,
    jobs: options.jobs,
    rows,
    run: (row, judge) =>
      runJudgeMetrics(row.input, {
        metrics,
        settings: options.judgeSettings,
        judge,
        onResult: () => {},
        signal,
      }),
    pollIntervalMs: (run.settings.providerBatch?.pollSec ?? DEFAULT_BATCH_POLL_SEC) * 1000,
    capabilities: options.capabilities,
    // The rows are scored from the cache afterwards, as any run scores them.
    keepOutputs: false,
    onEvent,
    signal,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  state.phase = 'answered';
  report();
  return {
    rows: rows.length,
    rounds: summary.rounds,
    requests: summary.requests,
    failed: summary.failedRequests,
  };
}

/**
 * The judge a batch run scores its rows with: every answer comes from the judge cache, where the
 * jobs put them, and a request no job answered (an errored line, an expired or cancelled job)
 * fails its row instead of being sent at the standard price. "Retry failed rows" then sends those
 * requests as a new batch job.
 */
export async function batchAnswersJudge(
  config: ProviderConfig,
  cache: ResponseCache,
  capabilities: () => Promise<Capabilities>,
): Promise<Judge> {
  if (!pageCanBatch(config.kind))
    throw new Error(`${config.kind} has no batch API a page can use.`);
  const [{ answersOnlyJudge }, { BATCH_WIRES }] = await Promise.all([
    import('../llm/batch/collect.ts'),
    import('../llm/batch/engine.ts'),
  ]);
  return answersOnlyJudge(config, BATCH_WIRES[config.kind], cache, capabilities);
}
