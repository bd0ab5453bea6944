/**
 * The batch worker's methods (workers/batch.worker.ts) and the page's handle on it.
 *
 * The page only names a run: the worker reads the run, its settings and the rows still to score
 * from IndexedDB and writes each finished row back itself, so no row crosses the thread boundary
 * and the page receives progress only. `run` starts a run or resumes it where it stopped (rows
 * already stored are skipped) and ends with its outcome; cancelling the call cancels the run;
 * `pause` and `resume` address a running run by its id.
 */
import type { MessageRef } from '../i18n/message.ts';
import { z } from 'zod';
import { modelSourceSchema, type ModelSource } from '../models/source.ts';
import type { BatchProgress } from '../datasets/batch.ts';
import { loadingSchema, messageRefSchema, type Loading } from './metric-api.ts';
import { defineWorkerApi, WorkerClient, type WorkerLike } from './rpc.ts';

const runId = z.string().min(1);
const count = z.number().int().min(0);

export const batchProgressSchema = z.object({
  done: count,
  total: count,
  failed: count,
  inFlight: count,
  ratePerSec: z.number().nullable(),
  etaSec: z.number().nullable(),
  state: z.enum(['running', 'pausing', 'paused', 'cancelling', 'done', 'cancelled', 'stopped']),
});

export const batchOutcomeSchema = z
  .object({
    status: z.enum(['done', 'cancelled', 'paused']),
    done: count,
    failed: count,
    total: count,
    scored: count,
    message: z.string().optional(),
    messageRef: messageRefSchema.optional(),
    stoppedBy: z.enum(['storage', 'provider', 'outage', 'offline', 'halted']).optional(),
  })
  // The wire checks a ref's shape; its key is checked where it is worded (an unknown one shows
  // as itself).
  .transform((wire) => wire as Omit<typeof wire, 'messageRef'> & { messageRef?: MessageRef });

export type BatchFinished = z.output<typeof batchOutcomeSchema>;

export const batchApi = defineWorkerApi('batch', {
  run: {
    request: z.object({
      runId,
      /** Where transformer models come from, when the run's settings pick one. */
      models: modelSourceSchema.optional(),
      /** Rows scored at the same time; default the run's setting, else 1. */
      concurrency: z.number().int().min(1).max(64).optional(),
      /** Score the rows stored as failed again too. */
      retryFailed: z.boolean().optional(),
    }),
    progress: z.discriminatedUnion('type', [
      z.object({ type: z.literal('progress'), progress: batchProgressSchema }),
      /** A backend loading (word vectors, a model file), as the metric workers report it. */
      loadingSchema.extend({ type: z.literal('loading') }),
    ]),
    result: batchOutcomeSchema,
  },
  pause: { request: z.object({ runId }), progress: z.never(), result: z.null() },
  resume: { request: z.object({ runId }), progress: z.never(), result: z.null() },
});

/** Progress is posted at most this often (plus every change of state and the end). */
export const PROGRESS_INTERVAL_MS = 100;

export interface BatchRunHandlers {
  onProgress?(progress: BatchProgress): void;
  onLoading?(loading: Loading): void;
}

/**
 * The page's handle on the batch worker: `run` resolves with the run's outcome (never on pause);
 * `pause`, `resume` and `cancel` address it by its id.
 */
export class BatchWorkerClient {
  readonly #client: WorkerClient<typeof batchApi.methods>;
  readonly #running = new Map<string, AbortController>();

  constructor(worker: WorkerLike) {
    this.#client = new WorkerClient(batchApi, worker, {
      afterStop: 'Rows already scored are saved; start the run again to resume.',
    });
  }

  async run(
    id: string,
    options: { models?: ModelSource; concurrency?: number; retryFailed?: boolean } = {},
    handlers: BatchRunHandlers = {},
  ): Promise<BatchFinished> {
    if (this.#running.has(id)) {
      throw new Error('This run is already running in the batch worker.');
    }
    const cancel = new AbortController();
    this.#running.set(id, cancel);
    try {
      return await this.#client.call(
        'run',
        { runId: id, ...options },
        {
          signal: cancel.signal,
          onProgress: (item) => {
            if (item.type === 'progress') handlers.onProgress?.(item.progress);
            else {
              const { type: _type, ...loading } = item;
              handlers.onLoading?.(loading);
            }
          },
        },
      );
    } finally {
      this.#running.delete(id);
    }
  }

  pause(id: string): void {
    void this.#client.call('pause', { runId: id }).catch(() => undefined);
  }

  resume(id: string): void {
    void this.#client.call('resume', { runId: id }).catch(() => undefined);
  }

  cancel(id: string): void {
    this.#running.get(id)?.abort();
  }

  isRunning(id: string): boolean {
    return this.#running.has(id);
  }

  terminate(): void {
    this.#client.terminate();
  }
}
