/// <reference lib="webworker" />
/**
 * Hosts the reference metrics (ROUGE, BLEU, token F1). They need no model, but ROUGE-L on long
 * texts is quadratic, so they stay off the main thread too.
 *
 * Chinese words come from jieba (jieba-wasm, served by the app itself from
 * public/vendor/jieba/, never from a CDN), loaded once, on the first case whose summary or
 * reference contains CJK. If it cannot load, Intl.Segmenter stands in and the backend strings say
 * so ('squad-f1 (intl-segmenter, jieba unavailable)'); a failed load is not retried in this
 * worker.
 */
// First, before any module that builds a zod schema (no eval under the CSP).
import '../src/lib/zod-config.ts';
import { serveMetrics } from './host.ts';
import { wordSegmenter } from './word-segmenter.ts';

serveMetrics(
  {
    backends() {
      return { wordSegmenter };
    },
    async warmUp() {},
  },
  self,
);
