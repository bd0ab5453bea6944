/// <reference lib="webworker" />
/**
 * Detects the language of a case's texts, or of a chunk of a run's rows (methods:
 * src/lib/workers/language-api.ts). cld3's module (its wasm inline, ~1 MB) is imported on the
 * first request, so neither the page nor the metric workers carry it.
 */
// First, before any module that builds a zod schema (no eval under the CSP).
import '../src/lib/zod-config.ts';
import './inline-wasm-fetch.ts';
import {
  detectLanguage,
  detectLanguages,
  loadLanguageIdentifier,
} from '../src/lib/metrics/text/language.ts';
import { languageApi } from '../src/lib/workers/language-api.ts';
import { serve } from '../src/lib/workers/rpc.ts';

serve(
  languageApi,
  {
    async detect({ text }) {
      return detectLanguage(text, await loadLanguageIdentifier());
    },
    async detectMany({ texts }) {
      return detectLanguages(texts, await loadLanguageIdentifier());
    },
  },
  self,
);
