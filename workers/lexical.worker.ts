/// <reference lib="webworker" />
/**
 * Hosts the reference metrics (ROUGE, BLEU, token F1). They need no model, but ROUGE-L on long
 * texts is quadratic, so they stay off the main thread too.
 */
import { serveMetrics } from './host.ts';

serveMetrics({
  backends() {
    return {};
  },
  async warmUp() {},
});
