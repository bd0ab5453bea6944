/**
 * The Cache Storage caches that hold what is downloaded on first use rather than at install (see
 * pwa.config.ts). Shared by the service worker's routes, the workers that fill them themselves
 * (a first visit's workers start before any service worker controls them), and Settings, which
 * shows their size and can empty them. workbox's precache (the app shell) is never one of these.
 */
/** Self-hosted model weights (`/models/**`: USE-lite, transformer models). */
export const MODELS_CACHE = 'sumlens-models';
/** Runtimes served from `/vendor/**`: ONNX Runtime, TF.js's and jieba's wasm. */
export const RUNTIMES_CACHE = 'sumlens-runtimes';

/** transformers.js's own cache of models downloaded from a model hub (workers/pipelines.ts). */
export const HUB_MODELS_CACHE = 'transformers-cache';

/** What "Remove cached models" deletes: downloaded again on next use, nothing else is lost. */
export const REMOVABLE_CACHES: readonly string[] = [MODELS_CACHE, HUB_MODELS_CACHE, RUNTIMES_CACHE];

export type CacheKind = 'models' | 'runtimes' | 'app';

export function cacheKind(name: string): CacheKind {
  if (name === MODELS_CACHE || name === HUB_MODELS_CACHE) return 'models';
  if (name === RUNTIMES_CACHE) return 'runtimes';
  return 'app';
}
