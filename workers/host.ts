/**
 * The metric workers' side of src/lib/workers/metric-api.ts: each worker passes the backends it
 * hosts, and `serveMetrics` scores a case with them, streaming each metric's result as soon as it
 * is ready, and warms them up on `load`.
 */
import type { PreparedTexts } from '../src/lib/workers/worker-client.ts';
import { computeMetrics } from '../src/lib/metrics/offline.ts';
import type { OfflineBackends } from '../src/lib/metrics/offline.ts';
import type { MetricSettings } from '../src/lib/metrics/settings.ts';
import { DEFAULT_SETTINGS } from '../src/lib/metrics/settings.ts';
import type { ModelSource } from '../src/lib/models/source.ts';
import { DEFAULT_MODEL_SOURCE } from '../src/lib/models/source.ts';
import { metricApi, type Loading } from '../src/lib/workers/metric-api.ts';
import { serve, type RpcScope } from '../src/lib/workers/rpc.ts';

export type ProgressReporter = (progress: Loading) => void;

export interface WorkerBackendFactory {
  /**
   * Where the worker's loaders send their progress (backends.ts `reportLoadingTo`): pointed at
   * each request's progress channel before the hooks below run. A worker whose backends load
   * nothing worth reporting leaves it out.
   */
  reportLoadingTo?(report: ProgressReporter): void;
  /** Called for each job, with its settings (which model). */
  backends(settings: MetricSettings, models: ModelSource): OfflineBackends;
  /** Loads everything the worker needs up front (the `load` request). */
  warmUp(settings: MetricSettings, models: ModelSource): Promise<void>;
  /** Embeds a case ahead of Score (the `prepare` request); workers without a cache omit it. */
  prepare?(
    texts: PreparedTexts,
    settings: MetricSettings,
    models: ModelSource,
    signal: AbortSignal,
  ): Promise<number>;
}

export function serveMetrics(factory: WorkerBackendFactory, scope: RpcScope): void {
  serve(
    metricApi,
    {
      async score({ metricIds, input, settings, models }, { signal, progress }) {
        factory.reportLoadingTo?.((loading) => progress({ type: 'loading', ...loading }));
        await computeMetrics(
          metricIds,
          input,
          settings,
          factory.backends(settings, models),
          (result) => progress({ type: 'result', result }),
          signal,
        );
        return null;
      },
      async load({ settings, models }, { progress }) {
        factory.reportLoadingTo?.(progress);
        await factory.warmUp(settings ?? DEFAULT_SETTINGS, models ?? DEFAULT_MODEL_SOURCE);
        return null;
      },
      async prepare({ source, summary, settings, models }, { signal, progress }) {
        if (!factory.prepare) return { sentences: 0 };
        factory.reportLoadingTo?.(progress);
        return {
          sentences: await factory.prepare({ source, summary }, settings, models, signal),
        };
      },
    },
    scope,
  );
}
