/**
 * How a worker obtains the offline metrics' backends: the built-in GloVe SIF vectors, the
 * compromise recogniser, jieba for Chinese words, and the transformers.js model the settings pick,
 * falling back to the built-in backend with a note when the model cannot load. Shared by the
 * single-case workers (embedding, ner, lexical) and the batch worker; each worker bundles its own
 * copy, so the lazy singletons here are per worker.
 */
import { messageOf } from '../src/lib/errors.ts';
import { ref } from '../src/lib/i18n/message.ts';
import { loadingStage } from '../src/lib/workers/loading-stage.ts';
import { GloveSifEmbedder, parseGloveAsset } from '../src/lib/metrics/semantic/glove-sif.ts';
import { GLOVE_ASSET_PATH } from '../src/lib/metrics/semantic/glove-asset.ts';
import { MODELS_CACHE } from '../src/lib/pwa/cache-names.ts';
import { TransformerEmbedder } from '../src/lib/metrics/semantic/transformer-embedder.ts';
import {
  TransformerRecognizer,
  labelCoverageNote,
} from '../src/lib/metrics/semantic/transformer-ner.ts';
import type { EntityRecognizer, SentenceEmbedder } from '../src/lib/metrics/semantic/backends.ts';
import {
  featureExtractor,
  tokenClassifier,
} from '../src/lib/metrics/semantic/transformers-adapters.ts';
import type {
  FeatureExtractionPipelineLike,
  TokenClassificationPipelineLike,
} from '../src/lib/metrics/semantic/transformers-adapters.ts';
import type { MetricSettings, UseLiteBackendChoice } from '../src/lib/metrics/settings.ts';
import type { LoadedUseLite } from './use-lite.ts';
import type { ModelSource } from '../src/lib/models/source.ts';
import { encoderLanguagesOf } from '../src/lib/models/catalog.ts';
import { lazy } from '../src/lib/lazy.ts';
import { fetchWithProgress } from './fetch-progress.ts';
import { withFallback } from './fallback.ts';
import type { ProgressReporter } from './host.ts';

export const NER_WARM_UP = 'Warm-up: Ada Lovelace met Charles Babbage in London on 5 June 1833.';

// Loads are shared by every job of the worker; progress goes to the job that asked last.
let reportTo: ProgressReporter = () => {};

export function reportLoadingTo(report: ProgressReporter): void {
  reportTo = report;
}

/**
 * The GloVe vectors (5.8 MB): the fallback encoder, fetched only when the chosen one fails or is
 * GloVe, and kept in the models cache from then on (not precached: a first visit that never needs
 * them does not download them).
 */
export const glove = lazy(async (): Promise<SentenceEmbedder> => {
  const url = new URL(import.meta.env.BASE_URL + GLOVE_ASSET_PATH, self.location.origin);
  const buffer = await fetchWithProgress(
    url,
    (loaded, total) =>
      reportTo({
        ...loadingStage(ref('models.stage.wordVectors')),
        file: GLOVE_ASSET_PATH,
        loaded,
        total,
      }),
    undefined,
    MODELS_CACHE,
  );
  return new GloveSifEmbedder(parseGloveAsset(buffer));
});

/**
 * USE-lite per device choice, loaded once per worker. A failed load is kept, not retried: a
 * truncated shard would otherwise cost a 28 MB download on every case.
 */
const useLiteLoads = new Map<string, Promise<LoadedUseLite>>();

export function useLite(choice: UseLiteBackendChoice): Promise<LoadedUseLite> {
  const key = `${choice.device} ${choice.precision}`;
  let load = useLiteLoads.get(key);
  if (!load) {
    // Loaded lazily so that TF.js costs nothing to workers and people who never use it.
    load = import('./use-lite.ts').then((m) =>
      m.loadUseLite(choice.device, (p) => reportTo(p), { precision: choice.precision }),
    );
    useLiteLoads.set(key, load);
  }
  return load;
}

/** A fresh view per call (per case): its notes are that case's. */
export async function useLiteEmbedder(choice: UseLiteBackendChoice): Promise<SentenceEmbedder> {
  const [loaded, { caseEmbedder }] = await Promise.all([useLite(choice), import('./use-lite.ts')]);
  return caseEmbedder(loaded);
}

/**
 * compromise (with its lexicon, ~0.5 MB of the bundle) is imported on first use, so that a worker
 * that never scores entity density, the embedding worker or a batch run without it, never parses
 * it.
 */
export const compromise = lazy(async (): Promise<EntityRecognizer> => {
  reportTo(loadingStage(ref('models.stage.entityRecogniser')));
  const { CompromiseRecognizer } = await import('../src/lib/metrics/semantic/compromise-ner.ts');
  return new CompromiseRecognizer();
});

export { wordSegmenter } from './word-segmenter.ts';

export async function transformerEmbedder(
  settings: MetricSettings,
  models: ModelSource,
): Promise<SentenceEmbedder> {
  const choice = settings.backends.embedding;
  if (choice.kind !== 'transformer') return glove();
  // Loaded lazily so the transformers.js bundle costs nothing to people who never pick a model.
  const { loadPipeline } = await import('./pipelines.ts');
  const loaded = await loadPipeline<FeatureExtractionPipelineLike>(
    'feature-extraction',
    choice,
    models,
    (p) => reportTo(p),
    (pipe) => pipe(['Warm-up sentence.'], { pooling: 'mean', normalize: true }),
  );
  const embedder = new TransformerEmbedder(
    loaded.backend,
    featureExtractor(loaded.pipe),
    undefined,
    encoderLanguagesOf(choice.model),
  );
  return Object.assign(embedder, { notes: loaded.notes });
}

export async function transformerRecognizer(
  settings: MetricSettings,
  models: ModelSource,
): Promise<EntityRecognizer> {
  const choice = settings.backends.ner;
  if (choice.kind !== 'transformer') return compromise();
  const { loadPipeline } = await import('./pipelines.ts');
  const loaded = await loadPipeline<TokenClassificationPipelineLike>(
    'token-classification',
    choice,
    models,
    (p) => reportTo(p),
    (pipe) => tokenClassifier(pipe).classify(NER_WARM_UP),
  );
  const classifier = tokenClassifier(loaded.pipe);
  const recognizer = new TransformerRecognizer(loaded.backend, classifier);
  const coverage = labelCoverageNote(classifier.entityTypes);
  return Object.assign(recognizer, { notes: [...loaded.notes, ...(coverage ? [coverage] : [])] });
}

/** The embedder the settings pick; a model that fails falls back to GloVe with a note. */
export function embedderFor(
  settings: MetricSettings,
  models: ModelSource,
): () => Promise<SentenceEmbedder> {
  const choice = settings.backends.embedding;
  if (choice.kind === 'use-lite') {
    return () =>
      withFallback(
        () => useLiteEmbedder(choice),
        glove,
        (error) => ref('semantic.fallback.useLite', { error: messageOf(error) }),
      );
  }
  if (choice.kind !== 'transformer') return glove;
  return () =>
    withFallback(
      () => transformerEmbedder(settings, models),
      glove,
      (error) =>
        ref('semantic.fallback.embeddingModel', { model: choice.model, error: messageOf(error) }),
    );
}

/** The recogniser the settings pick; a model that fails falls back to compromise with a note. */
export function recognizerFor(
  settings: MetricSettings,
  models: ModelSource,
): () => Promise<EntityRecognizer> {
  const choice = settings.backends.ner;
  if (choice.kind !== 'transformer') return compromise;
  return () =>
    withFallback(
      () => transformerRecognizer(settings, models),
      compromise,
      (error) =>
        `The NER model ${choice.model} could not be used (${messageOf(error)}); scored with the built-in compromise recogniser instead.`,
    );
}
