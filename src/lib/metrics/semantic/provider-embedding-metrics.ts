/**
 * The embedding metrics (local coherence, the repetition card's most-alike sentence pair) on the
 * provider's embedding API, from the page: it uses the judge's key, which no worker gets. One
 * embedder serves every metric of the case (offline.ts shares its vectors), so the sentences are
 * sent, and paid for, once.
 */
import { computeMetrics } from '../offline.ts';
import type { MetricSettings } from '../settings.ts';
import type { CaseInput, MetricId, MetricResult } from '../types.ts';
import { createProviderEmbedder } from './provider-embedder.ts';
import { providerRecord } from '../../llm/providers/registry.ts';
import type { ProviderConfig } from '../../llm/types.ts';

export async function scoreOnProviderEmbeddings(
  ids: readonly MetricId[],
  input: CaseInput,
  settings: MetricSettings,
  config: ProviderConfig,
  model: string,
  signal: AbortSignal,
  fetchImpl?: typeof fetch,
): Promise<MetricResult[]> {
  const backend = `provider:${config.kind}/${model}`;
  const embedder = async () => {
    if (!config.apiKey && providerRecord(config.kind).keyRequired) {
      throw new Error(
        `Provider embeddings use the judge's key, and there is none for ${config.kind}: add it under "LLM judge provider".`,
      );
    }
    return createProviderEmbedder(config, model, fetchImpl);
  };
  const results: MetricResult[] = [];
  await computeMetrics(ids, input, settings, { embedder }, (r) => results.push(r), signal);
  // A failure before the embedder existed names no backend; the user chose this one.
  return results.map((r) => (r.backend === 'none' ? { ...r, backend } : r));
}
