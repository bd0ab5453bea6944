/// <reference lib="webworker" />
/**
 * Hosts the embedding-based metrics (local coherence): the built-in GloVe SIF vectors, or a
 * transformers.js sentence-embedding model on WebGPU or WASM (see backends.ts).
 */
// First, before any module that builds a zod schema (no eval under the CSP).
import '../src/lib/zod-config.ts';
import { serveMetrics } from './host.ts';
import { embedderFor, glove, reportLoadingTo, transformerEmbedder } from './backends.ts';

serveMetrics(
  {
    reportLoadingTo,
    backends: (settings, models) => ({ embedder: embedderFor(settings, models) }),
    async warmUp(settings, models) {
      await glove();
      if (settings.backends.embedding.kind === 'transformer') {
        await transformerEmbedder(settings, models);
      }
    },
  },
  self,
);
