/// <reference lib="webworker" />
/**
 * Hosts the NER-based metrics (entity density): the built-in compromise recogniser, or a
 * transformers.js token-classification model (a BERT NER model) on WebGPU or WASM (see
 * backends.ts).
 */
// First, before any module that builds a zod schema (no eval under the CSP).
import '../src/lib/zod-config.ts';
import { serveMetrics } from './host.ts';
import {
  NER_WARM_UP,
  compromise,
  recognizerFor,
  reportLoadingTo,
  transformerRecognizer,
  wordSegmenter,
} from './backends.ts';

serveMetrics(
  {
    reportLoadingTo,
    // jieba too: entity density counts a Chinese case's tokens as every lexical metric does.
    backends: (settings, models) => ({
      recognizer: recognizerFor(settings, models),
      wordSegmenter,
    }),
    async warmUp(settings, models) {
      if (settings.backends.ner.kind === 'transformer') {
        await transformerRecognizer(settings, models);
        return;
      }
      const ner = await compromise();
      // The first parse compiles compromise's lexicon; do it now rather than on the user's text.
      await ner.recognize(NER_WARM_UP);
    },
  },
  self,
);
