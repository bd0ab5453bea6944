/// <reference lib="webworker" />
/**
 * Detects the language of a case's texts, or of a chunk of a run's rows, and counts the words of
 * the form's text boxes (methods: src/lib/workers/language-api.ts). cld3's module (its wasm inline, ~1 MB) lives in this worker
 * only, so neither the page nor the metric workers carry it. It starts loading as the worker
 * starts: the page starts this worker while the user pastes, and Score waits for the language.
 */
// First, before any module that builds a zod schema (no eval under the CSP).
import '../src/lib/zod-config.ts';
import './inline-wasm-fetch.ts';
import {
  detectLanguage,
  detectLanguages,
  loadLanguageIdentifier,
} from '../src/lib/metrics/text/language.ts';
import { wordSegments } from '../src/lib/metrics/text/tokenize.ts';
import { languageApi } from '../src/lib/workers/language-api.ts';
import { serve } from '../src/lib/workers/rpc.ts';

// A failed load is not lost here: the first request awaits the same promise and fails, and the
// page then falls back to the texts' scripts.
loadLanguageIdentifier().catch(() => undefined);

serve(
  languageApi,
  {
    async detect({ text }) {
      return detectLanguage(text, await loadLanguageIdentifier());
    },
    async detectMany({ texts }) {
      return detectLanguages(texts, await loadLanguageIdentifier());
    },
    // countWords' count without keeping every segment (and without its cache of recent texts):
    // a 300,000-word text would hold tens of megabytes of them.
    countWords({ text }) {
      let words = 0;
      for (const part of wordSegments(text)) if (part.isWordLike) words++;
      return words;
    },
  },
  self,
);
