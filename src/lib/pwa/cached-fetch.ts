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

/**
 * Cache writes still under way: a worker awaits them (cacheWritesSettled) before it says its
 * model is loaded, so that the page's "Works offline" check finds the files it just fetched.
 */
const pendingWrites = new Set<Promise<void>>();

/** Resolves once every write started so far has ended, stored or refused. */
export async function cacheWritesSettled(): Promise<void> {
  while (pendingWrites.size > 0) await Promise.allSettled([...pendingWrites]);
}

/**
 * A file may come compressed (`Content-Encoding: br`, README "Hosting offline"), and the cache keeps
 * the response with `Vary: Accept-Encoding` but its body decoded: the same bytes whatever the
 * encoding, so a lookup ignores Vary (a request made by code never carries Accept-Encoding, the
 * browser adds it on the way out).
 */
export const CACHE_MATCH_OPTIONS: CacheQueryOptions = { ignoreVary: true };

function cacheStorage(): CacheStorage | undefined {
  return typeof caches === 'undefined' ? undefined : caches;
}

export async function cachedFetch(url: URL | string, cacheName: string): Promise<Response> {
  const storage = cacheStorage();
  const key = String(url);
  const cache = storage ? await storage.open(cacheName).catch(() => undefined) : undefined;
  const hit = await cache?.match(key, CACHE_MATCH_OPTIONS);
  if (hit) return hit;
  const response = await fetch(key);
  // Not awaited: the caller reads (and reports progress on) its copy while the cache stores the
  // other. A full quota or a private window's refusal only costs the next visit a download.
  if (cache && isCacheableAsset(response)) {
    const write = cache.put(key, response.clone()).catch(() => {});
    pendingWrites.add(write);
    void write.finally(() => pendingWrites.delete(write));
  }
  return response;
}

/** Whether the response was sent compressed: its Content-Length then counts the encoded bytes. */
export function isEncoded(response: Response): boolean {
  const encoding = (response.headers.get('content-encoding') ?? '').trim().toLowerCase();
  return encoding !== '' && encoding !== 'identity';
}

/**
 * A cached response's size: its Content-Length, else its body read whole. A response sent
 * compressed is stored decoded under the headers it came with, so its Content-Length is the
 * transfer's, not what the cache holds: its body is measured instead.
 */
export async function responseBytes(response: Response): Promise<number> {
  const header = Number(response.headers.get('content-length'));
  if (!isEncoded(response) && Number.isFinite(header) && header > 0) return header;
  return (await response.blob()).size;
}
