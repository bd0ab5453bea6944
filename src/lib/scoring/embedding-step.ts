/**
 * The case's embeddings: its sentences embedded ahead of Score while the user pauses in typing
 * (so that Score finds them in the embedding worker's cache), and the embedding metrics on the
 * provider's embedding API (SPEC §2 backend 3), which needs the judge's key and so never runs in a
 * worker.
 */
import { messageOf } from '../errors.ts';
import type { ProviderConfig } from '../llm/types.ts';
import type { MetricSettings } from '../metrics/settings.ts';
import type { CaseInput, MetricId, MetricResult } from '../metrics/types.ts';
import type { ModelSource } from '../models/source.ts';
import type { PreparedTexts } from '../workers/worker-client.ts';
// Static, not lazy: the registry already puts these metric modules in the page's bundle, and a
// dynamic chunk sharing them split the entry so that zod ran before zod-config.ts (a CSP eval).
import { scoreOnProviderEmbeddings } from '../metrics/semantic/provider-embedding-metrics.ts';
import { errorResult } from './results.ts';
import type { MetricWorker } from './worker-pool.ts';

/** The pause in typing after which a changed source is embedded ahead of Score. */
const PRE_EMBED_DELAY_MS = 400;

/** What pre-embedding reads when the pause is over: the texts as they are then. */
export interface PreEmbedRequest {
  texts: PreparedTexts;
  settings: MetricSettings;
  models: ModelSource;
}

/**
 * Embeds the case once the user pauses (PRE_EMBED_DELAY_MS). Newer texts cancel the older request
 * (what it embedded stays cached); the same texts are not asked for twice.
 */
export class PreEmbedder {
  readonly #worker: () => MetricWorker | undefined;
  readonly #delayMs: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #asked: { texts: PreparedTexts; controller: AbortController } | undefined;

  constructor(worker: () => MetricWorker | undefined, delayMs = PRE_EMBED_DELAY_MS) {
    this.#worker = worker;
    this.#delayMs = delayMs;
  }

  schedule(read: () => PreEmbedRequest): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      const { texts, settings, models } = read();
      const worker = this.#worker();
      const asked = this.#asked?.texts;
      if (!worker || !(texts.source.trim() || texts.summary.trim())) return;
      if (asked?.source === texts.source && asked.summary === texts.summary) return;
      this.#asked?.controller.abort();
      const controller = new AbortController();
      this.#asked = { texts, controller };
      worker.prepare(texts, settings, models, controller.signal).catch(() => {
        // A hint only: Score embeds whatever is not cached, and reports real failures.
        if (this.#asked?.controller === controller) this.#asked = undefined;
      });
    }, this.#delayMs);
  }
}

/**
 * The embedding metrics `ids` (coherence, the repetition pair) of one case on the provider's
 * embeddings, through one shared embedder so the sentences are paid for once. Empty when
 * cancelled; a failure is an error result per metric.
 */
export async function providerEmbeddingMetrics(
  config: ProviderConfig,
  ids: readonly MetricId[],
  input: CaseInput,
  settings: MetricSettings,
  signal: AbortSignal,
): Promise<MetricResult[]> {
  const choice = settings.backends.embedding;
  if (choice.kind !== 'provider' || ids.length === 0) return [];
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
