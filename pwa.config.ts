/**
 * The service worker (vite-plugin-pwa, workbox `generateSW`): offline after the first visit, and a
 * light first visit (issue 30: at most 15 MB, `npm run bytes:first-visit`).
 *
 * - Precache (fetched once, at install): the app shell only: html, the JS/CSS chunks (locale
 *   chunks and workers included), svg icons, the manifest, and ONNX Runtime's small .mjs glue
 *   (loaded by `import()`, which no worker code can route through a cache; 9–19 kB each gzipped).
 * - The default encoder, USE-lite int8 (`models/use-lite/int8.{json,onnx}`,
 *   `use-lite-int8-weights.bin`, `vocab.json`: 7.5 MB) and ONNX Runtime's plain wasm it runs on
 *   (14.3 MB, 2.7 MB as brotli), is not precached: the embedding worker loads it at start and keeps
 *   it (src/lib/pwa/cached-fetch.ts), and a precache would download it a second time (workbox asks
 *   for each unhashed file under a revision query, which no HTTP cache shares with the worker's
 *   request). "Works offline" waits for it (src/lib/pwa/default-encoder.ts).
 * - Cached on first use, CacheFirst, one named cache per kind (src/lib/pwa/cache-names.ts):
 *   same-origin `/models/**` (USE-lite, its int8 default and its exact fp32 model; self-hosted
 *   transformer models) into `sumlens-models`, and `/vendor/**` (ONNX Runtime's 14–28 MB wasm
 *   builds, TF.js's and jieba's wasm) into `sumlens-runtimes`. A first visit's workers start before
 *   the service worker controls them, so the workers also write what they fetch into the same
 *   caches: a model used once works offline either way. The GloVe vectors
 *   (`assets/glove-100d-<hash>.bin`, 5.8 MB), the fallback encoder, are fetched only when the
 *   chosen encoder fails or when the user picks them, and kept in `sumlens-models` by the worker.
 * - Everything else (cross-origin requests above all: the LLM provider, a model hub) matches no
 *   route, so the service worker does not touch it and the browser fetches it as if there were none.
 *
 * The wasm and the model binaries may arrive compressed (`Content-Encoding: br`, with
 * `Vary: Accept-Encoding`; src/lib/node/precompress.ts): the caches keep the decoded body, and
 * lookups ignore Vary.
 *
 * Precached and cached responses keep their original headers, so pages served from the cache stay
 * cross-origin isolated as long as the host sent COOP/COEP (see README, "Hosting offline").
 *
 * Functions in `runtimeCaching` are serialised into sw.js with `toString()`: they must not refer to
 * anything outside themselves.
 */
import type { VitePWAOptions } from 'vite-plugin-pwa';

type RuntimeCaching = NonNullable<VitePWAOptions['workbox']['runtimeCaching']>[number];

import { MODELS_CACHE, RUNTIMES_CACHE } from './src/lib/pwa/cache-names.ts';

export { MODELS_CACHE, RUNTIMES_CACHE };

/**
 * The largest precached files are JS chunks of about 1 MB (transformers.js's and TF.js's shared
 * code); 4 MiB leaves them room and admits nothing like a model or a runtime (the GloVe vectors are
 * 5.8 MB, the int8 weights 7 MB, the smallest ORT wasm 14 MB): vite-plugin-pwa fails the build when
 * a file that matches the globs is over the limit, so a large file that slips into the globs is
 * noticed, not shipped to every first visit.
 */
export const MAX_PRECACHE_FILE_BYTES = 4 * 1024 * 1024;

/** Same-origin `/models/…` only: a hub download (cross-origin) must pass straight through. */
export function isSelfHostedModelRequest({
  url,
  sameOrigin,
}: {
  url: URL;
  sameOrigin: boolean;
}): boolean {
  return sameOrigin && url.pathname.startsWith('/models/');
}

/**
 * Caches a model file only if it is one: a static host with an SPA fallback answers a missing
 * `/models/x/config.json` with index.html and status 200 (so does `vite preview`), which must not
 * be kept forever in a CacheFirst cache as if it were the file.
 */
export const rejectHtmlPlugin = {
  cacheWillUpdate: async ({ response }: { response: Response }): Promise<Response | null> =>
    response.status === 200 && !(response.headers.get('content-type') ?? '').includes('text/html')
      ? response
      : null,
};

/** Same-origin `/vendor/…`: the runtimes the app serves itself (scripts/copy-vendor-assets.ts). */
export function isSelfHostedRuntimeRequest({
  url,
  sameOrigin,
}: {
  url: URL;
  sameOrigin: boolean;
}): boolean {
  return sameOrigin && url.pathname.startsWith('/vendor/');
}

export const modelsRuntimeCaching: RuntimeCaching = {
  urlPattern: isSelfHostedModelRequest,
  handler: 'CacheFirst',
  options: {
    cacheName: MODELS_CACHE,
    // transformers.js fetches whole files (no Range requests), so only full 200 answers are kept;
    // a 206 or an error is passed to the page and never cached.
    cacheableResponse: { statuses: [200] },
    plugins: [rejectHtmlPlugin],
    // A compressed answer is kept decoded with `Vary: Accept-Encoding`: any encoding will do.
    matchOptions: { ignoreVary: true },
  },
};

export const runtimesRuntimeCaching: RuntimeCaching = {
  urlPattern: isSelfHostedRuntimeRequest,
  handler: 'CacheFirst',
  options: {
    cacheName: RUNTIMES_CACHE,
    cacheableResponse: { statuses: [200] },
    plugins: [rejectHtmlPlugin],
    matchOptions: { ignoreVary: true },
  },
};

export const pwaOptions: Partial<VitePWAOptions> = {
  strategies: 'generateSW',
  // A waiting version is announced (UpdateNotice) and activated only when the user says so or every
  // tab of the old one is closed: never a reload under someone who is typing.
  registerType: 'prompt',
  // src/main.ts registers it through `virtual:pwa-register`.
  injectRegister: false,
  devOptions: { enabled: false },
  // icon.svg is in the glob already; listing it twice is harmless but untidy.
  includeManifestIcons: false,
  manifest: {
    name: 'SumLens',
    short_name: 'SumLens',
    description:
      'Score LLM-written summaries in your browser: explained metrics, offline by default, nothing leaves the machine.',
    start_url: '/',
    scope: '/',
    display: 'standalone',
    theme_color: '#2f5d8a',
    background_color: '#f6f7f9',
    lang: 'en',
    icons: [{ src: 'icon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' }],
  },
  workbox: {
    // The web manifest and its icon are added by vite-plugin-pwa itself.
    // No .wasm, no model and no vectors: runtimes and weights are cached on first use.
    globPatterns: ['**/*.{html,js,mjs,css,svg}'],
    globIgnores: [
      // Served from /vendor/ and /models/, cached on first use; the .mjs glue of ORT is the
      // exception (see above): small, and imported where no cache helper can see it.
      'models/**',
      'vendor/!(ort)/**',
      'vendor/ort/!(*.mjs)',
    ],
    maximumFileSizeToCacheInBytes: MAX_PRECACHE_FILE_BYTES,
    navigateFallback: 'index.html',
    navigateFallbackDenylist: [/^\/models\//u],
    runtimeCaching: [modelsRuntimeCaching, runtimesRuntimeCaching],
    // The first install takes the open page at once (so a model loaded on the first visit is
    // cached); an update waits (skipWaiting off) until the user reloads through the notice.
    clientsClaim: true,
    skipWaiting: false,
    cleanupOutdatedCaches: true,
  },
};
