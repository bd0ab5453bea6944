/**
 * cld3's emscripten loader first fetches its inline wasm as a data: URL and, when that fails,
 * decodes the same base64 itself. The page's CSP (connect-src) refuses data: fetches and reports
 * each as a violation, so the loader is sent straight to its own decoder; other requests pass
 * untouched. Imported by every worker that loads cld3 (the language and batch workers).
 */
const ownFetch = self.fetch.bind(self);
self.fetch = (input: RequestInfo | URL, init?: RequestInit) =>
  String(input instanceof Request ? input.url : input).startsWith('data:')
    ? Promise.reject(new TypeError('data: URLs are decoded in place, not fetched'))
    : ownFetch(input, init);
