/**
 * What "Works offline" waits for besides the app shell: the sentence encoder the settings pick, in
 * Cache Storage. The default, USE-lite int8 (7.5 MB) and ONNX Runtime's wasm that runs it, is not
 * precached: its workers fetch it at start and keep it (cached-fetch.ts), so that a first visit
 * downloads each file once (a precache would fetch the same files again under a revision query).
 * The page asks this module once the service worker has installed and after each load of the
 * embedding worker (src/lib/pwa/service-worker.svelte.ts).
 *
 * GloVe is the fallback: fetched only when the chosen encoder fails or when the user picks it, and
 * then kept in the models cache like any model.
 */
import { GLOVE_ASSET_PATH } from '../metrics/semantic/glove-asset.ts';
import { USE_LITE_INT8_FILES } from '../metrics/semantic/use-lite-int8.ts';
import { USE_LITE_VOCAB_FILE } from '../metrics/semantic/use-lite.ts';
import type { EmbeddingBackendChoice } from '../metrics/settings.ts';
import { MODELS_CACHE, RUNTIMES_CACHE } from './cache-names.ts';
import { CACHE_MATCH_OPTIONS } from './cached-fetch.ts';

/** USE-lite's files, served by the app (`npm run assets`). Paths are relative to the app's base. */
export const USE_LITE_DIR = 'models/use-lite/';

/**
 * ONNX Runtime's builds USE-lite runs on: JSEP has WebGPU (and WASM); the plain build is WASM
 * only, and smaller (14.3 MB, 2.7 MB as brotli): the one a first visit gets where no hardware GPU
 * is (gpu-adapter.ts).
 */
export const ORT_BUILD_FILES = {
  webgpu: {
    mjs: 'vendor/ort/ort-wasm-simd-threaded.jsep.mjs',
    wasm: 'vendor/ort/ort-wasm-simd-threaded.jsep.wasm',
  },
  wasm: {
    mjs: 'vendor/ort/ort-wasm-simd-threaded.mjs',
    wasm: 'vendor/ort/ort-wasm-simd-threaded.wasm',
  },
} as const;

export interface CachedFile {
  cache: string;
  /** Relative to the app's base URL. */
  path: string;
}

/** Every entry must be cached; an entry is satisfied by any one of its files. */
export type OfflineFiles = readonly (readonly CachedFile[])[];

/** USE-lite int8: its graph, weights, manifest and vocabulary, and one of ORT's two builds. */
export const DEFAULT_ENCODER_FILES: OfflineFiles = [
  ...[
    USE_LITE_INT8_FILES.manifest,
    USE_LITE_INT8_FILES.graph,
    USE_LITE_INT8_FILES.weights,
    USE_LITE_VOCAB_FILE,
  ].map((file) => [{ cache: MODELS_CACHE, path: USE_LITE_DIR + file }]),
  [
    { cache: RUNTIMES_CACHE, path: ORT_BUILD_FILES.wasm.wasm },
    { cache: RUNTIMES_CACHE, path: ORT_BUILD_FILES.webgpu.wasm },
  ],
];

export const GLOVE_FILES: OfflineFiles = [[{ cache: MODELS_CACHE, path: GLOVE_ASSET_PATH }]];

/**
 * The files offline scoring needs for `choice`, where the page knows them: the default encoder's,
 * or GloVe's. Undefined for the others (the exact fp32 USE-lite, transformer models, provider
 * embeddings): their files are kept after their first use too, but "Works offline" then stands for
 * the app shell only.
 */
export function offlineEncoderFiles(choice: EmbeddingBackendChoice): OfflineFiles | undefined {
  if (choice.kind === 'use-lite' && (choice.precision ?? 'int8') === 'int8') {
    return DEFAULT_ENCODER_FILES;
  }
  if (choice.kind === 'glove') return GLOVE_FILES;
  return undefined;
}

/** Whether Cache Storage holds every entry of `files` (absolute URLs from `base`). */
export async function filesCached(
  files: OfflineFiles,
  base: string,
  storage: CacheStorage | undefined = typeof caches === 'undefined' ? undefined : caches,
): Promise<boolean> {
  if (!storage) return false;
  // `open` would create a cache that is not there: ask first.
  const opened = new Map<string, Promise<Cache | undefined>>();
  const open = (name: string) => {
    let cache = opened.get(name);
    if (!cache) {
      cache = storage.has(name).then((there) => (there ? storage.open(name) : undefined));
      opened.set(name, cache);
    }
    return cache;
  };
  const has = async ({ cache, path }: CachedFile) =>
    (await (await open(cache))?.match(new URL(path, base).href, CACHE_MATCH_OPTIONS)) !== undefined;
  for (const entry of files) {
    const found = await Promise.all(entry.map(has));
    if (!found.some(Boolean)) return false;
  }
  return true;
}
