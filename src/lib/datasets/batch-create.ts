/**
 * The stored record a batch run starts from: named after its data set ("dev · run 2"), with the
 * judge it will use (provider and model, never the key) and, when it has LLM metrics, usage
 * counters at zero for its spend ceiling.
 */
import type { ProviderKind } from '../llm/types.ts';
import type { MetricId } from '../metrics/types.ts';
import type { RunSettings, StoredDataset, StoredRun } from '../storage/schema.ts';
import { createRun, listRuns } from '../storage/runs.ts';
import { splitMetrics } from './batch-plan.ts';
import { nextRunName } from './names.ts';

export interface NewBatchRun {
  dataset: Pick<StoredDataset, 'id' | 'name' | 'rowCount'>;
  metrics: MetricId[];
  settings: RunSettings;
  /** The judge of the LLM metrics (provider and model, never the key). */
  judge?: { provider: ProviderKind; model: string };
  appVersion: string;
  /** Default the data set's next run ("dev · run 2"). */
  name?: string;
  /** Default crypto.randomUUID(). */
  id?: string;
  now?: number;
}

/** Creates the stored run record a batch starts from (status 'running', nothing done). */
export async function createBatchRun(spec: NewBatchRun): Promise<StoredRun> {
  const now = spec.now ?? Date.now();
  return createRun({
    id: spec.id ?? crypto.randomUUID(),
    datasetId: spec.dataset.id,
    datasetName: spec.dataset.name,
    name:
      spec.name ??
      nextRunName(
        spec.dataset.name,
        (await listRuns()).map((r) => r.name),
      ),
    createdAt: now,
    metrics: spec.metrics,
    settings: spec.settings,
    backends: { ...(spec.judge ? { judge: spec.judge } : {}), perMetric: {} },
    ...(spec.judge && splitMetrics(spec.metrics, spec.settings.metrics).page.length > 0
      ? { judgeUsage: { input: 0, output: 0, calls: 0, httpCalls: 0, cachedCalls: 0, cost: 0 } }
      : {}),
    appVersion: spec.appVersion,
    total: spec.dataset.rowCount,
  });
}
