/// <reference lib="webworker" />
/**
 * Hosts the embedding-based metrics (local coherence): the built-in GloVe SIF vectors, or a
 * transformers.js sentence-embedding model on WebGPU or WASM. A model that fails to load falls
 * back to GloVe, and the result says which file failed and why.
 */
import { GloveSifEmbedder, parseGloveAsset } from '../src/lib/metrics/semantic/glove-sif.ts';
import { TransformerEmbedder } from '../src/lib/metrics/semantic/transformer-embedder.ts';
import type { SentenceEmbedder } from '../src/lib/metrics/semantic/backends.ts';
import { featureExtractor } from '../src/lib/models/transformers-adapters.ts';
import type { FeatureExtractionPipelineLike } from '../src/lib/models/transformers-adapters.ts';
import type { MetricSettings } from '../src/lib/metrics/settings.ts';
import type { ModelSource } from '../src/lib/models/source.ts';
import { describeError } from '../src/lib/metrics/offline.ts';
import { fetchWithProgress } from './fetch-progress.ts';
import { lazy } from '../src/lib/lazy.ts';
import { serveMetrics } from './host.ts';
import type { ProgressReporter } from './host.ts';
import { withFallback } from './fallback.ts';

export const GLOVE_ASSET_PATH = 'embeddings/glove-100d.bin';

let reportTo: ProgressReporter = () => {};

const glove = lazy(async () => {
  const url = new URL(import.meta.env.BASE_URL + GLOVE_ASSET_PATH, self.location.origin);
  const buffer = await fetchWithProgress(url, (loaded, total) =>
    reportTo({ stage: 'loading word vectors', file: GLOVE_ASSET_PATH, loaded, total }),
  );
  return new GloveSifEmbedder(parseGloveAsset(buffer));
});

async function transformerEmbedder(
  settings: MetricSettings,
  models: ModelSource,
  report: ProgressReporter,
): Promise<SentenceEmbedder> {
  const choice = settings.backends.embedding;
  if (choice.kind !== 'transformer') return glove();
  // Loaded lazily so the transformers.js bundle costs nothing to people who never pick a model.
  const { loadPipeline } = await import('./pipelines.ts');
  const loaded = await loadPipeline<FeatureExtractionPipelineLike>(
    'feature-extraction',
    choice,
    models,
    report,
    (pipe) => pipe(['Warm-up sentence.'], { pooling: 'mean', normalize: true }),
  );
  const embedder = new TransformerEmbedder(loaded.backend, featureExtractor(loaded.pipe));
  return Object.assign(embedder, { notes: loaded.notes });
}

function embedderFor(
  settings: MetricSettings,
  models: ModelSource,
  report: ProgressReporter,
): () => Promise<SentenceEmbedder> {
  if (settings.backends.embedding.kind !== 'transformer') return glove;
  const model = settings.backends.embedding.model;
  return () =>
    withFallback(
      () => transformerEmbedder(settings, models, report),
      glove,
      (error) =>
        `The embedding model ${model} could not be used (${describeError(error)}); scored with the built-in GloVe vectors instead.`,
    );
}

serveMetrics({
  backends(report, settings, models) {
    reportTo = report;
    return { embedder: embedderFor(settings, models, report) };
  },
  async warmUp(report, settings, models) {
    reportTo = report;
    await glove();
    if (settings.backends.embedding.kind === 'transformer') {
      await transformerEmbedder(settings, models, report);
    }
  },
});
