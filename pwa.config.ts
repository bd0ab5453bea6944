/**
 * The service worker (vite-plugin-pwa, workbox `generateSW`): offline after the first visit.
 *
 * - Precache (fetched once, at install, then served from Cache Storage): the built app (html, js,
 *   css, svg, the manifest), the built-in GloVe vectors (`embeddings/glove-100d.bin`, 5.5 MiB),
 *   jieba's wasm (`vendor/jieba/`, 3.8 MiB) and the ONNX Runtime Web files (`vendor/ort/`, the
 *   25.6 MiB asyncify wasm + its .mjs): about 36 MiB in all.
 * - Also precached: the USE-lite model (`models/use-lite/`, 28 MB, with its 0.3 MB ONNX graph), the
 *   default encoder; ONNX Runtime's plain WASM build that runs it (`vendor/ort/ort-wasm-simd-
 *   threaded.{mjs,wasm}`, 13.6 MiB, about twice as fast on this graph as the asyncify build); and
 *   TF.js's WASM binaries (`vendor/tfjs/`, 1.1 MiB), its fallback.
 * - Runtime cache: same-origin `/models/**` (self-hosted transformer models, possibly hundreds of
 *   MB, so never precached) CacheFirst into `sumlens-models` on first use, 200s only.
 * - Everything else (cross-origin requests above all: the LLM provider, a model hub) matches no
 *   route, so the service worker does not touch it and the browser fetches it as if there were none.
 *
 * Precached and cached responses keep their original headers, so pages served from the cache stay
 * cross-origin isolated as long as the host sent COOP/COEP (see README, "Hosting offline").
 *
 * Functions in `runtimeCaching` are serialised into sw.js with `toString()`: they must not refer to
 * anything outside themselves.
 */
import type { VitePWAOptions } from 'vite-plugin-pwa';

type RuntimeCaching = NonNullable<VitePWAOptions['workbox']['runtimeCaching']>[number];

/**
 * The largest precached file is ONNX Runtime's `ort-wasm-simd-threaded.asyncify.wasm`
 * (26,861,777 bytes = 25.6 MiB in onnxruntime-web 1.31 dev, via transformers.js 4.3.2); workbox's
 * default limit is 2 MiB and would silently leave it out. 28 MiB leaves room for a patch release of
 * ORT and nothing much bigger: vite-plugin-pwa fails the build when a file that matches the globs
 * is over the limit, so an ORT upgrade past it is noticed, not shipped without offline support.
 */
export const MAX_PRECACHE_FILE_BYTES = 28 * 1024 * 1024;

export const MODELS_CACHE = 'sumlens-models';

/**
 * USE-lite (28 MB), the default sentence encoder, is precached like the GloVe vectors rather than
 * cached on first use: the embedding worker starts fetching it before the first service worker
 * controls the page, and those early files were never cached (seen in tests/e2e/offline-pwa), so a
 * first visit would not have worked offline with the default settings. The cost: on a first visit
 * that scores at once, the model is downloaded twice (by the worker, and by the install).
 */
export const USE_LITE_PRECACHE_DIR = 'models/use-lite';

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

export const modelsRuntimeCaching: RuntimeCaching = {
  urlPattern: isSelfHostedModelRequest,
  handler: 'CacheFirst',
  options: {
    cacheName: MODELS_CACHE,
    // transformers.js fetches whole files (no Range requests), so only full 200 answers are kept;
    // a 206 or an error is passed to the page and never cached.
    cacheableResponse: { statuses: [200] },
    plugins: [rejectHtmlPlugin],
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
    globPatterns: ['**/*.{html,js,mjs,css,svg,wasm,bin}', `${USE_LITE_PRECACHE_DIR}/*`],
    globIgnores: [
      // Vite's unused second copy of ORT's wasm (never requested: the workers set `wasmPaths` to
      // /vendor/ort/); precaching it would download another ~26 MB for nothing.
      'assets/ort-wasm*.wasm',
      // ONNX Runtime's WebGPU build (28 MB) serves only USE-lite on WebGPU: offline, without it,
      // that path falls back to WASM.
      'vendor/ort/*.jsep.*',
      // Self-hosted models are cached on first use, not at install; USE-lite, the default
      // encoder, is precached (see USE_LITE_PRECACHE_DIR).
      `models/!(use-lite)/**`,
    ],
    maximumFileSizeToCacheInBytes: MAX_PRECACHE_FILE_BYTES,
    navigateFallback: 'index.html',
    navigateFallbackDenylist: [/^\/models\//u],
    runtimeCaching: [modelsRuntimeCaching],
    // The first install takes the open page at once (so a model loaded on the first visit is
    // cached); an update waits (skipWaiting off) until the user reloads through the notice.
    clientsClaim: true,
    skipWaiting: false,
    cleanupOutdatedCaches: true,
  },
};
