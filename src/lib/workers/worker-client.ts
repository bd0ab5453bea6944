/**
 * The page's handle on one metric worker (src/lib/workers/metric-api.ts over the RPC layer):
 * `score` streams each metric's result to `onResult` and the backends' loading to `onProgress`;
 * an AbortSignal cancels the job, which then resolves as cancelled rather than failing.
 */
import type { CaseInput, MetricId, MetricResult } from '../metrics/types.ts';
import type { MetricSettings } from '../metrics/settings.ts';
import type { ModelSource } from '../models/source.ts';
import { metricApi, type Loading } from './metric-api.ts';
import { isCancelled, WorkerClient, type WorkerLike } from './rpc.ts';

/** The texts of a case that `prepare` embeds ahead of Score. */
export interface PreparedTexts {
  source: string;
  summary: string;
}

export type Progress = Loading;

export interface JobHandlers {
  onResult?: (result: MetricResult) => void;
  onProgress?: (progress: Progress) => void;
  signal?: AbortSignal;
}

async function outcomeOf(job: Promise<null>): Promise<{ cancelled: boolean }> {
  try {
    await job;
    return { cancelled: false };
  } catch (error) {
    if (isCancelled(error)) return { cancelled: true };
    throw error;
  }
}

export class MetricWorkerClient {
  readonly #client: WorkerClient<typeof metricApi.methods>;
  readonly name: string;

  constructor(name: string, worker: WorkerLike) {
    this.name = name;
    this.#client = new WorkerClient({ ...metricApi, name }, worker);
  }

  score(
    metricIds: readonly MetricId[],
    input: CaseInput,
    settings: MetricSettings,
    models: ModelSource,
    handlers: JobHandlers = {},
  ): Promise<{ cancelled: boolean }> {
    return outcomeOf(
      this.#client.call(
        'score',
        { metricIds: [...metricIds], input, settings, models },
        {
          ...(handlers.signal ? { signal: handlers.signal } : {}),
          onProgress: (item) => {
            if (item.type === 'result') {
              handlers.onResult?.(item.result);
            } else {
              const { type: _type, ...loading } = item;
              handlers.onProgress?.(loading);
            }
          },
        },
      ),
    );
  }

  /** Loads the worker's backend for these settings (all defaults when omitted). */
  load(
    handlers: JobHandlers = {},
    settings?: MetricSettings,
    models?: ModelSource,
  ): Promise<{ cancelled: boolean }> {
    return outcomeOf(
      this.#client.call(
        'load',
        { ...(settings ? { settings } : {}), ...(models ? { models } : {}) },
        {
          ...(handlers.signal ? { signal: handlers.signal } : {}),
          ...(handlers.onProgress ? { onProgress: handlers.onProgress } : {}),
        },
      ),
    );
  }

  /** Embeds the case's sentences into the worker's cache ahead of Score; 0 when nothing was. */
  async prepare(
    texts: PreparedTexts,
    settings: MetricSettings,
    models: ModelSource,
    signal?: AbortSignal,
  ): Promise<number> {
    const { sentences } = await this.#client.call(
      'prepare',
      { source: texts.source, summary: texts.summary, settings, models },
      signal ? { signal } : {},
    );
    return sentences;
  }

  terminate(): void {
    this.#client.terminate();
  }
}
