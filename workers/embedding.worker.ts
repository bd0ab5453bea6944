/// <reference lib="webworker" />
/**
 * Hosts the embedding-based metrics (local coherence): the built-in GloVe SIF vectors, or a
 * transformers.js sentence-embedding model on WebGPU or WASM (see backends.ts).
 */
import { serveMetrics } from './host.ts';
import { embedderFor, glove, reportLoadingTo, transformerEmbedder } from './backends.ts';

serveMetrics({
  backends(report, settings, models) {
    reportLoadingTo(report);
    return { embedder: embedderFor(settings, models) };
  },
  async warmUp(report, settings, models) {
    reportLoadingTo(report);
    await glove();
    if (settings.backends.embedding.kind === 'transformer') {
      await transformerEmbedder(settings, models);
    }
  },
});
