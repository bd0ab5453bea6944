/**
 * Cache on first use, done by the caller itself. On a first visit the metric workers start before
 * the new service worker controls anything, so their requests never reach its runtime routes: a
 * model or runtime they load would be downloaded again next time, and missing offline. Reading
 * and writing the same named cache the service worker's CacheFirst routes use keeps one copy
 * whichever of the two saw the request first. No-op where Cache Storage is unavailable (Node,
 * insecure origins).
 */

/**
 * A static host with an SPA fallback answers a missing file with index.html and 200 (so does
 * `vite preview`): that must not be kept as if it were the file.
 */
export function isCacheableAsset(response: Response): boolean {
  return (
    response.status === 200 && !(response.headers.get('content-type') ?? '').includes('text/html')
  );
}

function cacheStorage(): CacheStorage | undefined {
  return typeof caches === 'undefined' ? undefined : caches;
}

export async function cachedFetch(url: URL | string, cacheName: string): Promise<Response> {
  const storage = cacheStorage();
  const key = String(url);
  const cache = storage ? await storage.open(cacheName).catch(() => undefined) : undefined;
  const hit = await cache?.match(key);
  if (hit) return hit;
  const response = await fetch(key);
  // Not awaited: the caller reads (and reports progress on) its copy while the cache stores the
  // other. A full quota or a private window's refusal only costs the next visit a download.
  if (cache && isCacheableAsset(response)) void cache.put(key, response.clone()).catch(() => {});
  return response;
}

/** A cached response's size: its Content-Length, else its body read whole. */
export async function responseBytes(response: Response): Promise<number> {
  const header = Number(response.headers.get('content-length'));
  if (Number.isFinite(header) && header > 0) return header;
  return (await response.blob()).size;
}
