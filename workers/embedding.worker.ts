/// <reference lib="webworker" />
/**
 * Hosts the embedding-based metrics (local coherence): the Universal Sentence Encoder lite (the
 * default, ONNX Runtime or TF.js), the built-in GloVe SIF vectors, or a transformers.js sentence-embedding model on
 * WebGPU or WASM (see backends.ts).
 */
// First, before any module that builds a zod schema (no eval under the CSP).
import '../src/lib/zod-config.ts';
import { serveMetrics } from './host.ts';
import {
  embedderFor,
  glove,
  reportLoadingTo,
  transformerEmbedder,
  useLite,
  useLiteEmbedder,
  wordSegmenter,
} from './backends.ts';
import { caseSentences } from '../src/lib/metrics/semantic/sentence-alignment.ts';
import { cacheWritesSettled } from '../src/lib/pwa/cached-fetch.ts';

serveMetrics(
  {
    reportLoadingTo,
    // jieba too: offline repetition counts a Chinese case's words as every lexical metric does.
    backends: (settings, models) => ({ embedder: embedderFor(settings, models), wordSegmenter }),
    async warmUp(settings, models) {
      // GloVe is the fallback: fetched only when it is the choice or the choice fails to load, so
      // that a first visit with the default encoder does not download its 5.8 MB.
      const choice = settings.backends.embedding;
      try {
        if (choice.kind === 'glove') await glove();
        if (choice.kind === 'transformer') {
          await transformerEmbedder(settings, models).catch(async (error: unknown) => {
            // Score falls back to GloVe: have it ready, and report the model's failure.
            await glove().catch(() => undefined);
            throw error;
          });
        }
        // A USE-lite that fails to load is no error here: Score falls back to GloVe and says why.
        if (choice.kind === 'use-lite') await useLite(choice).catch(() => glove());
      } finally {
        // Loaded means kept: the page checks Cache Storage for "Works offline" once this returns.
        await cacheWritesSettled();
      }
    },
    async prepare(texts, settings, _models, signal) {
      // Only USE-lite has the vector cache (GloVe needs no head start).
      const choice = settings.backends.embedding;
      if (choice.kind !== 'use-lite') return 0;
      // The sentences as the metrics will split them, so that Score's lookups hit: the summary's
      // first (the shorter wait when the source was embedded already), then the source's.
      const { summary, source } = caseSentences(texts);
      const sentences = [...summary, ...source.sentences].map((s) => s.text);
      if (sentences.length === 0) return 0;
      // A model that fails to load is Score's to report (with its GloVe fallback), not this hint's.
      const embedder = await useLiteEmbedder(choice).catch(() => undefined);
      if (!embedder) return 0;
      await embedder.embed(sentences, signal);
      return sentences.length;
    },
  },
  self,
);
