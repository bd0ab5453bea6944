/**
 * Model files the browser keeps: hub downloads in transformers.js's Cache Storage, self-hosted
 * files (USE-lite included) in the models cache, and the runtimes that run them (ONNX Runtime,
 * TF.js's and jieba's wasm) in the runtimes cache, all filled on first use (src/lib/pwa/).
 * Listed with their size so "remove cached models" says what it frees. The app shell (workbox's
 * precache) and the saved results (IndexedDB) are never among them.
 */
import { REMOVABLE_CACHES } from '../pwa/cache-names.ts';
import { responseBytes } from '../pwa/cached-fetch.ts';

export const MODEL_CACHE_NAMES = REMOVABLE_CACHES;

export interface CachedModelUsage {
  files: number;
  bytes: number;
  /** Model ids seen in the cached URLs ("Xenova/all-MiniLM-L6-v2"). */
  models: string[];
}

/** `…/models/<owner>/<name>/…` or `…/<owner>/<name>/resolve/<rev>/…` → `owner/name`. */
export function modelIdFromUrl(url: string): string | undefined {
  const path = new URL(url, 'http://localhost').pathname;
  const hub = /^\/([^/]+)\/([^/]+)\/resolve\//u.exec(path);
  if (hub) return `${hub[1]}/${hub[2]}`;
  const local = /\/models\/([^/]+)\/([^/]+)\//u.exec(path);
  return local ? `${local[1]}/${local[2]}` : undefined;
}

export async function cachedModelUsage(): Promise<CachedModelUsage> {
  const usage: CachedModelUsage = { files: 0, bytes: 0, models: [] };
  if (typeof caches === 'undefined') return usage;
  const models = new Set<string>();
  for (const name of MODEL_CACHE_NAMES) {
    if (!(await caches.has(name))) continue;
    const cache = await caches.open(name);
    for (const request of await cache.keys()) {
      const response = await cache.match(request);
      if (!response) continue;
      usage.files++;
      usage.bytes += await responseBytes(response);
      const id = modelIdFromUrl(request.url);
      if (id) models.add(id);
    }
  }
  usage.models = [...models].sort();
  return usage;
}

/** Deletes the model and runtime caches; says what they held, for the result message. */
export async function deleteCachedModels(): Promise<CachedModelUsage> {
  if (typeof caches === 'undefined') return { files: 0, bytes: 0, models: [] };
  const removed = await cachedModelUsage();
  await Promise.all(MODEL_CACHE_NAMES.map((name) => caches.delete(name)));
  return removed;
}
