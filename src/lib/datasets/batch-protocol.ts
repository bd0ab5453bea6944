/**
 * Messages between the page and workers/batch.worker.ts, validated with zod on both sides, and the
 * two ends: `serveBatchRuns` (the worker's loop) and `BatchWorkerClient` (the page's handle).
 *
 * The page creates the worker where it creates the metric workers (a `new Worker(new URL(…))` here
 * would make Vite bundle the worker into itself, as this module is part of it):
 *
 *   new BatchWorkerClient(new Worker(new URL('../../../workers/batch.worker.ts', import.meta.url),
 *     { type: 'module', name: 'batch' }))
 *
 * The page only names a run: the worker reads the run, its settings and the rows still to score
 * from IndexedDB and writes each finished row back itself, so no row crosses the thread boundary
 * and the page receives progress only. Pause, resume and cancel address the run by its id.
 */
import { messageOf } from '../errors.ts';
import { z } from 'zod';
import { modelSourceSchema, type ModelSource } from '../models/source.ts';
import type { OfflineBackends } from '../metrics/offline.ts';
import type { MetricSettings } from '../metrics/settings.ts';
import { PauseController, runStoredBatch, type BatchOutcome, type BatchProgress } from './batch.ts';

const id = z.string().min(1);

export const batchRequestSchema = z.discriminatedUnion('type', [
  /** Start a run, or resume it where it stopped (the same thing: rows already stored are skipped). */
  z.object({
    type: z.literal('start'),
    id,
    /** Where transformer models come from, when the run's settings pick one. */
    models: modelSourceSchema.optional(),
    /** Rows scored at the same time; default the run's setting, else 1. */
    concurrency: z.number().int().min(1).max(64).optional(),
    /** Score the rows stored as failed again too. */
    retryFailed: z.boolean().optional(),
  }),
  z.object({ type: z.literal('pause'), id }),
  z.object({ type: z.literal('resume'), id }),
  z.object({ type: z.literal('cancel'), id }),
]);

export type BatchRequest = z.infer<typeof batchRequestSchema>;

const nullableNumber = z.number().nullable();

export const batchProgressSchema = z.object({
  done: z.number().int().min(0),
  total: z.number().int().min(0),
  failed: z.number().int().min(0),
  inFlight: z.number().int().min(0),
  ratePerSec: nullableNumber,
  etaSec: nullableNumber,
  state: z.enum(['running', 'pausing', 'paused', 'cancelling', 'done', 'cancelled', 'stopped']),
});

export const batchOutcomeSchema = z.object({
  status: z.enum(['done', 'cancelled', 'paused']),
  done: z.number().int().min(0),
  failed: z.number().int().min(0),
  total: z.number().int().min(0),
  scored: z.number().int().min(0),
  message: z.string().optional(),
  stoppedBy: z.enum(['storage', 'provider', 'outage', 'offline', 'halted']).optional(),
});

export const batchReplySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('progress'), id, progress: batchProgressSchema }),
  /** A backend loading (word vectors, a model file), as the metric workers report it. */
  z.object({
    type: z.literal('loading'),
    id,
    stage: z.string(),
    file: z.string().optional(),
    loaded: z.number().optional(),
    total: z.number().optional(),
  }),
  z.object({ type: z.literal('finished'), id, outcome: batchOutcomeSchema }),
  /** The run could not start or broke (not a row's failure: those are stored as failed rows). */
  z.object({ type: z.literal('error'), id: z.string(), message: z.string() }),
]);

export type BatchReply = z.infer<typeof batchReplySchema>;
export type BatchLoading = Omit<Extract<BatchReply, { type: 'loading' }>, 'type' | 'id'>;
export type BatchFinished = z.infer<typeof batchOutcomeSchema>;

/** Progress is posted at most this often (plus every change of state and the end). */
export const PROGRESS_INTERVAL_MS = 100;

// ---- The worker side ----

export type LoadingReporter = (loading: BatchLoading) => void;

/** The backends a run needs, for its settings: the worker builds them (GloVe, compromise, jieba,
 * transformer models); a test passes Node ones. */
export type BatchBackendFactory = (
  settings: MetricSettings,
  models: ModelSource | undefined,
  report: LoadingReporter,
) => OfflineBackends;

/** The two calls of a worker's global scope that the host uses (a test passes a fake). */
export interface BatchWorkerScope {
  addEventListener(type: 'message', listener: (event: MessageEvent<unknown>) => void): void;
  postMessage(message: BatchReply): void;
}

interface ActiveRun {
  cancel: AbortController;
  pause: PauseController;
}

/** Serves start/pause/resume/cancel for runs stored in IndexedDB; one job per run id. */
export function serveBatchRuns(
  backendsFor: BatchBackendFactory,
  scope: BatchWorkerScope = self as unknown as BatchWorkerScope,
  clock: () => number = () => performance.now(),
): void {
  const active = new Map<string, ActiveRun>();
  const post = (reply: BatchReply) => scope.postMessage(reply);

  scope.addEventListener('message', (event: MessageEvent<unknown>) => {
    const parsed = batchRequestSchema.safeParse(event.data);
    if (!parsed.success) {
      const bad = (event.data as { id?: unknown } | null)?.id;
      const issue = parsed.error.issues[0];
      post({
        type: 'error',
        id: typeof bad === 'string' ? bad : '',
        message:
          `Malformed request to the batch worker: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'unknown'}`.trim(),
      });
      return;
    }
    const request = parsed.data;
    const run = active.get(request.id);
    switch (request.type) {
      case 'pause':
        run?.pause.pause();
        return;
      case 'resume':
        run?.pause.resume();
        return;
      case 'cancel':
        run?.cancel.abort();
        return;
      case 'start': {
        if (run) {
          // Already running here: a second start is a resume.
          run.pause.resume();
          return;
        }
        const job: ActiveRun = { cancel: new AbortController(), pause: new PauseController() };
        active.set(request.id, job);
        void start(request, job).finally(() => active.delete(request.id));
        return;
      }
      default: {
        const unreachable: never = request;
        throw new Error(`Unhandled request ${JSON.stringify(unreachable)}`);
      }
    }
  });

  async function start(
    request: Extract<BatchRequest, { type: 'start' }>,
    job: ActiveRun,
  ): Promise<void> {
    const runId = request.id;
    let lastPost = -Infinity;
    let lastState: BatchProgress['state'] | undefined;
    const onProgress = (progress: BatchProgress) => {
      const now = clock();
      if (progress.state === lastState && now - lastPost < PROGRESS_INTERVAL_MS) return;
      lastPost = now;
      lastState = progress.state;
      post({ type: 'progress', id: runId, progress });
    };
    const report: LoadingReporter = (loading) => post({ type: 'loading', id: runId, ...loading });
    try {
      const outcome: BatchOutcome = await runStoredBatch(runId, {
        backends: (settings) => backendsFor(settings, request.models, report),
        ...(request.concurrency === undefined ? {} : { concurrency: request.concurrency }),
        ...(request.retryFailed ? { retryFailed: true } : {}),
        onProgress,
        signal: job.cancel.signal,
        pause: job.pause,
        clock,
      });
      post({
        type: 'finished',
        id: runId,
        outcome: {
          status: outcome.status,
          done: outcome.done,
          failed: outcome.failed,
          total: outcome.total,
          scored: outcome.scored,
          ...(outcome.message === undefined ? {} : { message: outcome.message }),
          ...(outcome.stoppedBy === undefined ? {} : { stoppedBy: outcome.stoppedBy }),
        },
      });
    } catch (error) {
      post({ type: 'error', id: runId, message: messageOf(error) });
    }
  }
}

// ---- The page side ----

/** What the client needs of a Worker (a test passes a fake). */
export interface BatchWorkerLike {
  postMessage(message: BatchRequest): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<unknown>) => void): void;
  addEventListener(type: 'error', listener: (event: ErrorEvent) => void): void;
  terminate?(): void;
}

export interface BatchRunHandlers {
  onProgress?(progress: BatchProgress): void;
  onLoading?(loading: BatchLoading): void;
}

interface PendingRun {
  handlers: BatchRunHandlers;
  resolve(outcome: BatchFinished): void;
  reject(error: Error): void;
}

/**
 * The page's handle on the batch worker: `run` starts (or resumes) a run and resolves with its
 * outcome; `pause`, `resume` and `cancel` address it by id. Replies are validated: a malformed one
 * fails the run it names instead of being half-read.
 */
export class BatchWorkerClient {
  readonly #worker: BatchWorkerLike;
  readonly #runs = new Map<string, PendingRun>();

  constructor(worker: BatchWorkerLike) {
    this.#worker = worker;
    worker.addEventListener('message', (event: MessageEvent<unknown>) => this.#receive(event.data));
    worker.addEventListener('error', (event: ErrorEvent) => {
      event.preventDefault?.();
      this.#failAll(
        `The batch worker stopped: ${event.message || 'it could not start'}. Rows already scored are saved; start the run again to resume.`,
      );
    });
  }

  /** Starts or resumes a run; resolves when it is done, cancelled or stopped (never on pause). */
  run(
    runId: string,
    options: { models?: ModelSource; concurrency?: number; retryFailed?: boolean } = {},
    handlers: BatchRunHandlers = {},
  ): Promise<BatchFinished> {
    if (this.#runs.has(runId)) {
      return Promise.reject(new Error(`Run ${runId} is already running in the batch worker.`));
    }
    return new Promise<BatchFinished>((resolve, reject) => {
      this.#runs.set(runId, { handlers, resolve, reject });
      this.#worker.postMessage({ type: 'start', id: runId, ...options });
    });
  }

  pause(runId: string): void {
    this.#worker.postMessage({ type: 'pause', id: runId });
  }

  resume(runId: string): void {
    this.#worker.postMessage({ type: 'resume', id: runId });
  }

  cancel(runId: string): void {
    this.#worker.postMessage({ type: 'cancel', id: runId });
  }

  isRunning(runId: string): boolean {
    return this.#runs.has(runId);
  }

  terminate(): void {
    this.#worker.terminate?.();
    this.#failAll('The batch worker was shut down. Rows already scored are saved.');
  }

  #receive(data: unknown): void {
    const parsed = batchReplySchema.safeParse(data);
    if (!parsed.success) {
      const bad = (data as { id?: unknown } | null)?.id;
      const run = typeof bad === 'string' ? this.#runs.get(bad) : undefined;
      if (run && typeof bad === 'string') {
        this.#runs.delete(bad);
        run.reject(new Error('The batch worker sent a reply that could not be read.'));
      }
      return;
    }
    const reply = parsed.data;
    const run = this.#runs.get(reply.id);
    if (!run) return;
    switch (reply.type) {
      case 'progress':
        run.handlers.onProgress?.(reply.progress);
        return;
      case 'loading': {
        const { type: _type, id: _id, ...loading } = reply;
        run.handlers.onLoading?.(loading);
        return;
      }
      case 'finished':
        this.#runs.delete(reply.id);
        run.resolve(reply.outcome);
        return;
      case 'error':
        this.#runs.delete(reply.id);
        run.reject(new Error(reply.message));
        return;
      default: {
        const unreachable: never = reply;
        throw new Error(`Unhandled reply ${JSON.stringify(unreachable)}`);
      }
    }
  }

  #failAll(message: string): void {
    const runs = [...this.#runs.values()];
    this.#runs.clear();
    for (const r of runs) r.reject(new Error(message));
  }
}
