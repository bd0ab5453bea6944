/// <reference lib="webworker" />
/**
 * Hosts the NER-based metrics (entity density): the built-in compromise recogniser, or a
 * transformers.js token-classification model (a BERT NER model) on WebGPU or WASM. A model that
 * fails to load falls back to compromise, and the result says which file failed and why.
 */
import { CompromiseRecognizer } from '../src/lib/metrics/semantic/compromise-ner.ts';
import {
  TransformerRecognizer,
  labelCoverageNote,
} from '../src/lib/metrics/semantic/transformer-ner.ts';
import type { EntityRecognizer } from '../src/lib/metrics/semantic/backends.ts';
import { tokenClassifier } from '../src/lib/models/transformers-adapters.ts';
import type { TokenClassificationPipelineLike } from '../src/lib/models/transformers-adapters.ts';
import type { MetricSettings } from '../src/lib/metrics/settings.ts';
import type { ModelSource } from '../src/lib/models/source.ts';
import { describeError } from '../src/lib/metrics/offline.ts';
import { lazy } from '../src/lib/lazy.ts';
import { serveMetrics } from './host.ts';
import type { ProgressReporter } from './host.ts';
import { withFallback } from './fallback.ts';

const WARM_UP_TEXT = 'Warm-up: Ada Lovelace met Charles Babbage in London on 5 June 1833.';

const compromise = lazy(async (): Promise<EntityRecognizer> => new CompromiseRecognizer());

async function transformerRecognizer(
  settings: MetricSettings,
  models: ModelSource,
  report: ProgressReporter,
): Promise<EntityRecognizer> {
  const choice = settings.backends.ner;
  if (choice.kind !== 'transformer') return compromise();
  const { loadPipeline } = await import('./pipelines.ts');
  const loaded = await loadPipeline<TokenClassificationPipelineLike>(
    'token-classification',
    choice,
    models,
    report,
    (pipe) => tokenClassifier(pipe).classify(WARM_UP_TEXT),
  );
  const classifier = tokenClassifier(loaded.pipe);
  const recognizer = new TransformerRecognizer(loaded.backend, classifier);
  const coverage = labelCoverageNote(classifier.entityTypes);
  return Object.assign(recognizer, { notes: [...loaded.notes, ...(coverage ? [coverage] : [])] });
}

function recognizerFor(
  settings: MetricSettings,
  models: ModelSource,
  report: ProgressReporter,
): () => Promise<EntityRecognizer> {
  if (settings.backends.ner.kind !== 'transformer') return compromise;
  const model = settings.backends.ner.model;
  return () =>
    withFallback(
      () => transformerRecognizer(settings, models, report),
      compromise,
      (error) =>
        `The NER model ${model} could not be used (${describeError(error)}); scored with the built-in compromise recogniser instead.`,
    );
}

serveMetrics({
  backends(report, settings, models) {
    return { recognizer: recognizerFor(settings, models, report) };
  },
  async warmUp(report, settings, models) {
    if (settings.backends.ner.kind === 'transformer') {
      await transformerRecognizer(settings, models, report);
      return;
    }
    report({ stage: 'loading entity recogniser' });
    const ner = await compromise();
    // The first parse compiles compromise's lexicon; do it now rather than on the user's text.
    await ner.recognize(WARM_UP_TEXT);
  },
});
