/// <reference lib="webworker" />
/**
 * Batch runs of the offline metrics over a stored data set (SPEC §6). The page sends a run id; this
 * worker reads the run and its pending rows from IndexedDB, scores them (src/lib/datasets/batch.ts,
 * the same `computeMetrics` as the single-case workers), writes each finished row back to
 * IndexedDB itself and posts progress only, so a run of thousands of rows leaves the page free.
 * Protocol: src/lib/datasets/batch-protocol.ts.
 *
 * It holds all three offline backends, loaded the way the metric workers load them and only when a
 * row needs them: the built-in GloVe SIF vectors (embedding.worker.ts), the compromise recogniser
 * (ner.worker.ts), jieba for Chinese words (lexical.worker.ts), and the transformers.js model the
 * settings pick, falling back to the built-in backend with a note when the model cannot load. The
 * single-case workers keep their own copies; their loading code is private to their files (each
 * starts serving on import), so it is mirrored here from the same shared modules.
 */
import { GloveSifEmbedder, parseGloveAsset } from '../src/lib/metrics/semantic/glove-sif.ts';
import { TransformerEmbedder } from '../src/lib/metrics/semantic/transformer-embedder.ts';
import { CompromiseRecognizer } from '../src/lib/metrics/semantic/compromise-ner.ts';
import {
  TransformerRecognizer,
  labelCoverageNote,
} from '../src/lib/metrics/semantic/transformer-ner.ts';
import type { EntityRecognizer, SentenceEmbedder } from '../src/lib/metrics/semantic/backends.ts';
import { loadJiebaBrowser } from '../src/lib/metrics/lexical/jieba.ts';
import type { WordSegmenter } from '../src/lib/metrics/lexical/cjk-words.ts';
import { featureExtractor, tokenClassifier } from '../src/lib/models/transformers-adapters.ts';
import type {
  FeatureExtractionPipelineLike,
  TokenClassificationPipelineLike,
} from '../src/lib/models/transformers-adapters.ts';
import type { MetricSettings } from '../src/lib/metrics/settings.ts';
import type { ModelSource } from '../src/lib/models/source.ts';
import { DEFAULT_MODEL_SOURCE } from '../src/lib/models/source.ts';
import type { OfflineBackends } from '../src/lib/metrics/offline.ts';
import { describeError } from '../src/lib/metrics/offline.ts';
import { lazy } from '../src/lib/lazy.ts';
import { serveBatchRuns, type LoadingReporter } from '../src/lib/datasets/batch-protocol.ts';
import { fetchWithProgress } from './fetch-progress.ts';
import { withFallback } from './fallback.ts';
import type { ProgressReporter } from './host.ts';

const GLOVE_ASSET_PATH = 'embeddings/glove-100d.bin';
const JIEBA_WASM_URL = `${import.meta.env.BASE_URL}vendor/jieba/jieba_rs_wasm_bg.wasm`;
const NER_WARM_UP = 'Warm-up: Ada Lovelace met Charles Babbage in London on 5 June 1833.';

// Loads are shared by every run of this worker; progress goes to the run that started them.
let reportTo: LoadingReporter = () => {};

const glove = lazy(async (): Promise<SentenceEmbedder> => {
  const url = new URL(import.meta.env.BASE_URL + GLOVE_ASSET_PATH, self.location.origin);
  const buffer = await fetchWithProgress(url, (loaded, total) =>
    reportTo({
      stage: 'loading word vectors',
      file: GLOVE_ASSET_PATH,
      loaded,
      ...(total === undefined ? {} : { total }),
    }),
  );
  return new GloveSifEmbedder(parseGloveAsset(buffer));
});

const compromise = lazy(async (): Promise<EntityRecognizer> => {
  reportTo({ stage: 'loading entity recogniser' });
  return new CompromiseRecognizer();
});

let jieba: Promise<WordSegmenter> | undefined;

/** The metric workers' progress shape, forwarded as the batch protocol's 'loading'. */
function modelReporter(): ProgressReporter {
  return (p) =>
    reportTo({
      stage: p.stage,
      ...(p.file === undefined ? {} : { file: p.file }),
      ...(p.loaded === undefined ? {} : { loaded: p.loaded }),
      ...(p.total === undefined ? {} : { total: p.total }),
    });
}

async function transformerEmbedder(
  settings: MetricSettings,
  models: ModelSource,
): Promise<SentenceEmbedder> {
  const choice = settings.backends.embedding;
  if (choice.kind !== 'transformer') return glove();
  const { loadPipeline } = await import('./pipelines.ts');
  const loaded = await loadPipeline<FeatureExtractionPipelineLike>(
    'feature-extraction',
    choice,
    models,
    modelReporter(),
    (pipe) => pipe(['Warm-up sentence.'], { pooling: 'mean', normalize: true }),
  );
  const embedder = new TransformerEmbedder(loaded.backend, featureExtractor(loaded.pipe));
  return Object.assign(embedder, { notes: loaded.notes });
}

async function transformerRecognizer(
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
    modelReporter(),
    (pipe) => tokenClassifier(pipe).classify(NER_WARM_UP),
  );
  const classifier = tokenClassifier(loaded.pipe);
  const recognizer = new TransformerRecognizer(loaded.backend, classifier);
  const coverage = labelCoverageNote(classifier.entityTypes);
  return Object.assign(recognizer, { notes: [...loaded.notes, ...(coverage ? [coverage] : [])] });
}

function backendsFor(
  settings: MetricSettings,
  models: ModelSource | undefined,
  report: LoadingReporter,
): OfflineBackends {
  reportTo = report;
  const source = models ?? DEFAULT_MODEL_SOURCE;
  const embedding = settings.backends.embedding;
  const ner = settings.backends.ner;
  // One fallback load per run, not one per row: the wrapped backends are memoised.
  const embedder =
    embedding.kind === 'transformer'
      ? lazy(() =>
          withFallback(
            () => transformerEmbedder(settings, source),
            glove,
            (error) =>
              `The embedding model ${embedding.model} could not be used (${describeError(error)}); scored with the built-in GloVe vectors instead.`,
          ),
        )
      : glove;
  const recognizer =
    ner.kind === 'transformer'
      ? lazy(() =>
          withFallback(
            () => transformerRecognizer(settings, source),
            compromise,
            (error) =>
              `The NER model ${ner.model} could not be used (${describeError(error)}); scored with the built-in compromise recogniser instead.`,
          ),
        )
      : compromise;
  return {
    embedder,
    recognizer,
    wordSegmenter: () => (jieba ??= loadJiebaBrowser(JIEBA_WASM_URL)),
  };
}

serveBatchRuns(backendsFor);
