/**
 * The metric workers' side of src/lib/workers/metric-api.ts: each worker passes the backends it
 * hosts, and `serveMetrics` scores a case with them, streaming each metric's result as soon as it
 * is ready, and warms them up on `load`.
 */
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
  /** Called for each job, with its settings (which model) and its progress channel. */
  backends(
    report: ProgressReporter,
    settings: MetricSettings,
    models: ModelSource,
  ): OfflineBackends;
  /** Loads everything the worker needs up front (the `load` request). */
  warmUp(report: ProgressReporter, settings: MetricSettings, models: ModelSource): Promise<void>;
}

export function serveMetrics(factory: WorkerBackendFactory, scope: RpcScope): void {
  serve(
    metricApi,
    {
      async score({ metricIds, input, settings, models }, { signal, progress }) {
        const report: ProgressReporter = (loading) => progress({ type: 'loading', ...loading });
        await computeMetrics(
          metricIds,
          input,
          settings,
          factory.backends(report, settings, models),
          (result) => progress({ type: 'result', result }),
          signal,
        );
        return null;
      },
      async load({ settings, models }, { progress }) {
        await factory.warmUp(
          progress,
          settings ?? DEFAULT_SETTINGS,
          models ?? DEFAULT_MODEL_SOURCE,
        );
        return null;
      },
    },
    scope,
  );
}
