/// <reference lib="webworker" />
/**
 * Batch runs of the offline metrics over a stored data set (SPEC §6). The page sends a run id; this
 * worker reads the run and its pending rows from IndexedDB, scores them (src/lib/datasets/batch.ts,
 * the same `computeMetrics` as the single-case workers), writes each finished row back to
 * IndexedDB itself and posts progress only, so a run of thousands of rows leaves the page free.
 * Methods: src/lib/workers/batch-api.ts; served by ./batch-host.ts.
 *
 * It holds all three offline backends, loaded as the metric workers load them (backends.ts) and only
 * when a row needs them, falling back to the built-in backend with a note when a model cannot load.
 * Each case row's language is detected here with cld3, a chunk of rows at a time (row-language.ts).
 */
// First, before any module that builds a zod schema (no eval under the CSP).
import '../src/lib/zod-config.ts';
import './inline-wasm-fetch.ts';
import { DEFAULT_MODEL_SOURCE } from '../src/lib/models/source.ts';
import type { ModelSource } from '../src/lib/models/source.ts';
import type { MetricSettings } from '../src/lib/metrics/settings.ts';
import type { OfflineBackends } from '../src/lib/metrics/offline.ts';
import { lazy } from '../src/lib/lazy.ts';
import { detectLanguages, loadLanguageIdentifier } from '../src/lib/metrics/text/language.ts';
import { serveBatchRuns, type LoadingReporter } from './batch-host.ts';
import { embedderFor, recognizerFor, reportLoadingTo, wordSegmenter } from './backends.ts';

function backendsFor(
  settings: MetricSettings,
  models: ModelSource | undefined,
  report: LoadingReporter,
): OfflineBackends {
  reportLoadingTo(report);
  const source = models ?? DEFAULT_MODEL_SOURCE;
  // One fallback load per run, not one per row: the wrapped backends are memoised. USE-lite is
  // memoised inside backends.ts, and its embedder is a view per row so that a note about one
  // row's long sentences is not copied onto every row after it.
  const embedder = embedderFor(settings, source);
  return {
    embedder: settings.backends.embedding.kind === 'use-lite' ? embedder : lazy(embedder),
    recognizer: lazy(recognizerFor(settings, source)),
    wordSegmenter,
  };
}

// cld3 in this thread, loaded with the first case rows: the run's rows are here already, and a
// worker of its own would only add a copy of every chunk.
serveBatchRuns(backendsFor, self, undefined, async (texts) =>
  detectLanguages(texts, await loadLanguageIdentifier()),
);
