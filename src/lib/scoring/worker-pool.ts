/**
 * The page's metric workers, one per kind of backend (a slow model load never holds up the cheap
 * reference metrics), started once on first use and shared by Score and by the data-set runs that
 * execute in the page. A worker that fails or crashes mid-job costs only its own metrics, which
 * get an error result each; the other workers' results still arrive.
 */
import { messageOf } from '../errors.ts';
import { ref } from '../i18n/message.ts';
import { METRICS } from '../metrics/registry.ts';
import type { MetricSettings } from '../metrics/settings.ts';
import type { CaseInput, MetricId, MetricNeeds, MetricResult } from '../metrics/types.ts';
import type { ModelSource } from '../models/source.ts';
import { loadingStage } from '../workers/loading-stage.ts';
import { startMetricWorkers } from '../workers/metric-workers.ts';
import type { MetricWorkerClient, Progress } from '../workers/worker-client.ts';
import { failMissing } from './results.ts';

/** LLM metrics call the provider from the page itself, not from a worker. */
export type WorkerNeeds = Exclude<MetricNeeds, 'llm'>;

/** What the engine asks of a metric worker (tests stand in fakes for the real clients). */
export type MetricWorker = Pick<MetricWorkerClient, 'score' | 'load' | 'prepare'>;
export type MetricWorkerSet = Record<WorkerNeeds, MetricWorker>;

/** A worker's loading progress; undefined once it is over (the progress row goes away). */
export type OnWorkerProgress = (needs: WorkerNeeds, progress: Progress | undefined) => void;

/** The metrics `wanted` grouped by the worker that computes them, in registry order. */
function workerGroups(
  wanted: (id: MetricId, needs: WorkerNeeds) => boolean,
): Map<WorkerNeeds, MetricId[]> {
  const groups = new Map<WorkerNeeds, MetricId[]>();
  for (const m of METRICS) {
    if (m.needs === 'llm' || !wanted(m.id, m.needs)) continue;
    groups.set(m.needs, [...(groups.get(m.needs) ?? []), m.id]);
  }
  return groups;
}

interface WorkerJob {
  input: CaseInput;
  settings: MetricSettings;
  models: ModelSource;
  signal: AbortSignal;
  /** Each result as its worker sends it; also each error result of a worker that failed. */
  emit(result: MetricResult): void;
  /** The case's results so far: a failed worker's metrics that already have one keep it. */
  results: readonly MetricResult[];
  onProgress?: OnWorkerProgress;
}

export class WorkerPool {
  readonly #start: () => MetricWorkerSet;
  #workers: MetricWorkerSet | undefined;

  constructor(start: () => MetricWorkerSet = startMetricWorkers) {
    this.#start = start;
  }

  /** The workers, started on first use (a data-set run resumed on load may come before Score). */
  get workers(): MetricWorkerSet {
    return (this.#workers ??= this.#start());
  }

  /** The workers if something has started them; a hint (pre-embedding) never starts them. */
  get started(): MetricWorkerSet | undefined {
    return this.#workers;
  }

  /**
   * Loads every worker's backend for these settings (the built-in ones, or the chosen models). A
   * model that fails shows why in its progress row; scoring still works (it falls back to the
   * built-in backend). `onLoaded` follows each worker's load, failed or not.
   */
  async load(
    settings: MetricSettings,
    models: ModelSource,
    onProgress: OnWorkerProgress,
    onLoaded: (needs: WorkerNeeds) => void = () => {},
  ): Promise<void> {
    await Promise.all(
      Object.entries(this.workers).map(async ([key, worker]) => {
        const needs = key as WorkerNeeds;
        onProgress(needs, undefined);
        try {
          await worker.load({ onProgress: (p) => onProgress(needs, p) }, settings, models);
          onProgress(needs, undefined);
          // User Timing, for DevTools and bench/first-score.ts: the encoder is loaded and warm.
          if (needs === 'embedding') performance.mark('sumlens:encoder-ready');
        } catch (error) {
          // (the failed stage replaces every row of the worker's files)
          onProgress(needs, undefined);
          onProgress(needs, loadingStage(ref('models.stage.failed', { error: messageOf(error) })));
        } finally {
          onLoaded(needs);
        }
      }),
    );
  }

  /** The metrics `ids` of one case, each worker's group at once; settles when all have. */
  async score(ids: readonly MetricId[], job: WorkerJob): Promise<void> {
    const wanted = new Set(ids);
    const workers = this.workers;
    await Promise.all(
      [...workerGroups((id) => wanted.has(id))].map(async ([needs, group]) => {
        try {
          await workers[needs].score(group, job.input, job.settings, job.models, {
            signal: job.signal,
            onResult: job.emit,
            ...(job.onProgress ? { onProgress: (p) => job.onProgress?.(needs, p) } : {}),
          });
        } catch (error) {
          if (job.signal.aborted) return;
          for (const failure of failMissing(group, [...job.results], messageOf(error), 'none')) {
            job.emit(failure);
          }
        } finally {
          job.onProgress?.(needs, undefined);
        }
      }),
    );
  }
}
