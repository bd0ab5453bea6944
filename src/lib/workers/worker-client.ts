/**
 * The page side of the worker protocol: one client per worker, one id per job, AbortSignal to
 * cancel. A worker that crashes fails every job it held instead of leaving cards spinning.
 */
import type { CaseInput, MetricId, MetricResult } from '../metrics/types.ts';
import type { MetricSettings } from '../metrics/settings.ts';
import type { ModelSource } from '../models/source.ts';
import type { ProgressReply, WorkerReply, WorkerRequest } from '../../../workers/protocol.ts';

export type Progress = Omit<ProgressReply, 'type' | 'id'>;

interface Job {
  onResult: (result: MetricResult) => void;
  onProgress: (progress: Progress) => void;
  resolve: (outcome: { cancelled: boolean }) => void;
  reject: (error: Error) => void;
}

export interface JobHandlers {
  onResult?: (result: MetricResult) => void;
  onProgress?: (progress: Progress) => void;
  signal?: AbortSignal;
}

export class MetricWorkerClient {
  readonly #worker: Worker;
  readonly #jobs = new Map<string, Job>();
  readonly name: string;

  constructor(name: string, worker: Worker) {
    this.name = name;
    this.#worker = worker;
    worker.addEventListener('message', (event: MessageEvent<WorkerReply>) =>
      this.#receive(event.data),
    );
    worker.addEventListener('error', (event: ErrorEvent) => {
      event.preventDefault();
      this.#failAll(`The ${name} worker stopped: ${event.message || 'it could not start'}.`);
    });
    worker.addEventListener('messageerror', () =>
      this.#failAll(`The ${name} worker sent a message that could not be read.`),
    );
  }

  score(
    metricIds: readonly MetricId[],
    input: CaseInput,
    settings: MetricSettings,
    models: ModelSource,
    handlers: JobHandlers = {},
  ): Promise<{ cancelled: boolean }> {
    return this.#start(
      (id) => ({ type: 'score', id, metricIds: [...metricIds], input, settings, models }),
      handlers,
    );
  }

  /** Loads the worker's backend for these settings (all defaults when omitted). */
  load(
    handlers: JobHandlers = {},
    settings?: MetricSettings,
    models?: ModelSource,
  ): Promise<{ cancelled: boolean }> {
    return this.#start(
      (id) => ({
        type: 'load',
        id,
        ...(settings ? { settings } : {}),
        ...(models ? { models } : {}),
      }),
      handlers,
    );
  }

  terminate(): void {
    this.#worker.terminate();
    this.#failAll(`The ${this.name} worker was shut down.`);
  }

  #start(
    makeRequest: (id: string) => WorkerRequest,
    handlers: JobHandlers,
  ): Promise<{ cancelled: boolean }> {
    const id = crypto.randomUUID();
    const { signal } = handlers;
    if (signal?.aborted) return Promise.resolve({ cancelled: true });
    return new Promise((resolve, reject) => {
      const onAbort = () =>
        this.#worker.postMessage({ type: 'cancel', id } satisfies WorkerRequest);
      signal?.addEventListener('abort', onAbort, { once: true });
      const settle = () => signal?.removeEventListener('abort', onAbort);
      this.#jobs.set(id, {
        onResult: handlers.onResult ?? (() => {}),
        onProgress: handlers.onProgress ?? (() => {}),
        resolve: (outcome) => {
          settle();
          resolve(outcome);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      this.#worker.postMessage(makeRequest(id));
    });
  }

  #receive(reply: WorkerReply): void {
    const job = this.#jobs.get(reply.id);
    if (!job) return; // a reply for a job we already gave up on
    switch (reply.type) {
      case 'progress': {
        const { type: _type, id: _id, ...progress } = reply;
        job.onProgress(progress);
        return;
      }
      case 'result':
        job.onResult(reply.result);
        return;
      case 'done':
        this.#jobs.delete(reply.id);
        job.resolve({ cancelled: reply.cancelled });
        return;
      case 'error':
        this.#jobs.delete(reply.id);
        job.reject(new Error(reply.message));
        return;
      default: {
        const unreachable: never = reply;
        throw new Error(`Unknown worker reply ${JSON.stringify(unreachable)}`);
      }
    }
  }

  #failAll(message: string): void {
    for (const [id, job] of this.#jobs) {
      this.#jobs.delete(id);
      job.reject(new Error(message));
    }
  }
}
