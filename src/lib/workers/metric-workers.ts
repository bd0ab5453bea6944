/**
 * Which worker hosts which metric: one worker per kind of backend, so a slow model load never
 * holds up the cheap reference metrics.
 */
import type { MetricNeeds } from '../metrics/types.ts';
import { MetricWorkerClient } from './worker-client.ts';

/** LLM metrics call the provider from the page itself (src/lib/llm), not from a worker. */
type MetricWorkers = Record<Exclude<MetricNeeds, 'llm'>, MetricWorkerClient>;

export function startMetricWorkers(): MetricWorkers {
  return {
    reference: new MetricWorkerClient(
      'reference-metric',
      new Worker(new URL('../../../workers/lexical.worker.ts', import.meta.url), {
        type: 'module',
        name: 'lexical',
      }),
    ),
    embedding: new MetricWorkerClient(
      'embedding',
      new Worker(new URL('../../../workers/embedding.worker.ts', import.meta.url), {
        type: 'module',
        name: 'embedding',
      }),
    ),
    ner: new MetricWorkerClient(
      'entity',
      new Worker(new URL('../../../workers/ner.worker.ts', import.meta.url), {
        type: 'module',
        name: 'ner',
      }),
    ),
  };
}
