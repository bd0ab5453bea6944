/// <reference lib="webworker" />
/**
 * Detects the language of a case's texts (methods: src/lib/workers/language-api.ts). cld3's
 * module (its wasm inline, ~1 MB) is imported on the first request, so neither the page nor the
 * metric workers carry it.
 */
// First, before any module that builds a zod schema (no eval under the CSP).
import '../src/lib/zod-config.ts';
import { detectLanguage, loadLanguageIdentifier } from '../src/lib/metrics/text/language.ts';
import { languageApi } from '../src/lib/workers/language-api.ts';
import { serve } from '../src/lib/workers/rpc.ts';

// cld3's emscripten loader first fetches its inline wasm as a data: URL and, when that fails, decodes
// the same base64 itself. The page's CSP (connect-src) refuses data: fetches and reports each as a
// violation, so the loader is sent straight to its own decoder; other requests pass untouched.
const ownFetch = self.fetch.bind(self);
self.fetch = (input: RequestInfo | URL, init?: RequestInit) =>
  String(input instanceof Request ? input.url : input).startsWith('data:')
    ? Promise.reject(new TypeError('data: URLs are decoded in place, not fetched'))
    : ownFetch(input, init);

serve(
  languageApi,
  {
    async detect({ text }) {
      return detectLanguage(text, await loadLanguageIdentifier());
    },
  },
  self,
);
