/// <reference lib="webworker" />
/** Hosts the embedding-based metrics (local coherence) on the built-in GloVe SIF vectors. */
import { GloveSifEmbedder, parseGloveAsset } from '../src/lib/metrics/semantic/glove-sif.ts';
import { fetchWithProgress } from './fetch-progress.ts';
import { lazy } from '../src/lib/lazy.ts';
import { serveMetrics } from './host.ts';
import type { ProgressReporter } from './host.ts';

export const GLOVE_ASSET_PATH = 'embeddings/glove-100d.bin';

let reportTo: ProgressReporter = () => {};

const embedder = lazy(async () => {
  const url = new URL(import.meta.env.BASE_URL + GLOVE_ASSET_PATH, self.location.origin);
  const buffer = await fetchWithProgress(url, (loaded, total) =>
    reportTo({ stage: 'loading word vectors', file: GLOVE_ASSET_PATH, loaded, total }),
  );
  return new GloveSifEmbedder(parseGloveAsset(buffer));
});

serveMetrics({
  backends(report) {
    reportTo = report;
    return { embedder };
  },
  async warmUp(report) {
    reportTo = report;
    await embedder();
  },
});
