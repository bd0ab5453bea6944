/**
 * The worker side of the protocol: validates requests, runs one job per id, cancels by id, and
 * reports progress and each metric's result as soon as it is ready.
 */
import { messageOf } from '../src/lib/errors.ts';
import { computeMetrics, isAbort } from '../src/lib/metrics/offline.ts';
import type { OfflineBackends } from '../src/lib/metrics/offline.ts';
import { workerRequestSchema } from './protocol.ts';
import type { ProgressReply, WorkerReply } from './protocol.ts';
import type { MetricSettings } from '../src/lib/metrics/settings.ts';
import { DEFAULT_SETTINGS } from '../src/lib/metrics/settings.ts';
import type { ModelSource } from '../src/lib/models/source.ts';
import { DEFAULT_MODEL_SOURCE } from '../src/lib/models/source.ts';

export type ProgressReporter = (progress: Omit<ProgressReply, 'type' | 'id'>) => void;

export interface WorkerBackendFactory {
  /** Called for each job, with its settings (which model) and its progress channel. */
  backends(
    report: ProgressReporter,
    settings: MetricSettings,
    models: ModelSource,
  ): OfflineBackends;
  /** Loads everything the worker needs up front (the `load` request). */
  warmUp(report: ProgressReporter, settings: MetricSettings, models: ModelSource): Promise<void>;
}

/** The two calls of a worker's global scope that the host uses (a test can pass a fake). */
export interface WorkerScope {
  addEventListener(type: 'message', listener: (event: MessageEvent<unknown>) => void): void;
  postMessage(message: WorkerReply): void;
}

export function serveMetrics(
  factory: WorkerBackendFactory,
  scope: WorkerScope = self as unknown as WorkerScope,
): void {
  const jobs = new Map<string, AbortController>();
  const post = (reply: WorkerReply) => scope.postMessage(reply);

  scope.addEventListener('message', (event: MessageEvent<unknown>) => {
    const parsed = workerRequestSchema.safeParse(event.data);
    if (!parsed.success) {
      const id = (event.data as { id?: unknown } | null)?.id;
      post({
        type: 'error',
        id: typeof id === 'string' ? id : '',
        message: `Malformed request to worker: ${parsed.error.issues[0]?.message ?? 'unknown'}`,
      });
      return;
    }
    const request = parsed.data;
    const report: ProgressReporter = (p) => post({ type: 'progress', id: request.id, ...p });
    switch (request.type) {
      case 'cancel':
        jobs.get(request.id)?.abort();
        return;
      case 'load':
        factory
          .warmUp(
            report,
            request.settings ?? DEFAULT_SETTINGS,
            request.models ?? DEFAULT_MODEL_SOURCE,
          )
          .then(
            () => post({ type: 'done', id: request.id, cancelled: false }),
            (error: unknown) => post({ type: 'error', id: request.id, message: messageOf(error) }),
          );
        return;
      case 'score': {
        const controller = new AbortController();
        jobs.set(request.id, controller);
        computeMetrics(
          request.metricIds,
          request.input,
          request.settings,
          factory.backends(report, request.settings, request.models),
          (result) => post({ type: 'result', id: request.id, result }),
          controller.signal,
        )
          .then(
            () => post({ type: 'done', id: request.id, cancelled: false }),
            (error: unknown) => {
              if (isAbort(error)) post({ type: 'done', id: request.id, cancelled: true });
              else post({ type: 'error', id: request.id, message: messageOf(error) });
            },
          )
          .finally(() => jobs.delete(request.id));
        return;
      }
      default: {
        const unreachable: never = request;
        throw new Error(`Unhandled request ${JSON.stringify(unreachable)}`);
      }
    }
  });
}
