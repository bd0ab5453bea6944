/**
 * Running a case's non-judge metrics from the page: in the metric workers (one per kind of
 * backend), or on the provider's embedding API, which needs the judge's key and so never runs in
 * a worker. A failure becomes an error result per metric, so a case or a data-set row is stored
 * with the reason instead of failing as a whole. Shared by Score and by data-set runs that
 * execute in the page.
 */
import { messageOf } from '../errors.ts';
import type { ProviderConfig } from '../llm/types.ts';
import { METRICS } from '../metrics/registry.ts';
import type { MetricSettings } from '../metrics/settings.ts';
import type { CaseInput, MetricId, MetricNeeds, MetricResult } from '../metrics/types.ts';
import type { ModelSource } from '../models/source.ts';
import type { MetricWorkers } from '../workers/metric-workers.ts';
import { errorResult } from './metric-cards.ts';
// Static, not lazy: the registry already puts these metric modules in the page's bundle, and a
// dynamic chunk sharing them split the entry so that zod ran before zod-config.ts (a CSP eval).
import { scoreOnProviderEmbeddings } from '../metrics/semantic/provider-embedding-metrics.ts';

export type WorkerNeeds = Exclude<MetricNeeds, 'llm'>;

/** The metrics `wanted` grouped by the worker that computes them, in registry order. */
export function workerGroups(wanted: (id: MetricId, needs: WorkerNeeds) => boolean) {
  const groups = new Map<WorkerNeeds, MetricId[]>();
  for (const m of METRICS) {
    if (m.needs === 'llm' || !wanted(m.id, m.needs)) continue;
    groups.set(m.needs, [...(groups.get(m.needs) ?? []), m.id]);
  }
  return groups;
}

/** Error results for the metrics of `ids` that `results` has none for yet, added to it. */
export function failMissing(
  ids: readonly MetricId[],
  results: MetricResult[],
  message: string,
  backend: string,
): MetricResult[] {
  const failures: MetricResult[] = [];
  for (const id of ids) {
    if (results.some((r) => r.id === id)) continue;
    const failure = errorResult(id, message, backend);
    results.push(failure);
    failures.push(failure);
  }
  return failures;
}

/** The offline metrics `ids` of one case in the metric workers; throws only when cancelled. */
export async function scoreInWorkers(
  workers: MetricWorkers,
  ids: readonly MetricId[],
  input: CaseInput,
  settings: MetricSettings,
  models: ModelSource,
  signal: AbortSignal,
): Promise<MetricResult[]> {
  const wanted = new Set(ids);
  const results: MetricResult[] = [];
  await Promise.all(
    [...workerGroups((id) => wanted.has(id))].map(async ([needs, group]) => {
      try {
        await workers[needs].score(group, input, settings, models, {
          signal,
          onResult: (result) => results.push(result),
        });
      } catch (error) {
        signal.throwIfAborted();
        failMissing(group, results, messageOf(error), 'none');
      }
    }),
  );
  signal.throwIfAborted();
  return results;
}

/**
 * The embedding metrics `ids` (coherence, the repetition pair) of one case on the provider's
 * embeddings, through one shared embedder so the sentences are paid for once. Empty when
 * cancelled or when provider embeddings are not chosen (then the judge's config is not read).
 */
export async function providerEmbeddingMetrics(
  judgeConfig: () => ProviderConfig,
  ids: readonly MetricId[],
  input: CaseInput,
  settings: MetricSettings,
  signal: AbortSignal,
): Promise<MetricResult[]> {
  const choice = settings.backends.embedding;
  if (choice.kind !== 'provider') return [];
  const config = judgeConfig();
  try {
    const results = await scoreOnProviderEmbeddings(
      ids,
      input,
      settings,
      config,
      choice.model,
      signal,
    );
    return signal.aborted ? [] : results;
  } catch (error) {
    if (signal.aborted) return [];
    const backend = `provider:${config.kind}/${choice.model}`;
    return ids.map((id) => errorResult(id, messageOf(error), backend));
  }
}
