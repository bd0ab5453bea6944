/**
 * What this origin keeps, per Cache Storage cache (the app shell's precache, models, runtimes,
 * anything else), and the browser's own estimate of the origin's storage (IndexedDB results
 * included), for Settings.
 */
import { responseBytes } from './cached-fetch.ts';
import { REMOVABLE_CACHES, cacheKind, type CacheKind } from './cache-names.ts';

export interface CacheUsage {
  name: string;
  kind: CacheKind;
  files: number;
  bytes: number;
  /** Deleted by "Remove cached models". */
  removable: boolean;
}

export interface StorageUsage {
  caches: CacheUsage[];
  /** navigator.storage.estimate(); absent where the browser does not say. */
  estimate?: { usage: number; quota: number };
}

/** Models first, then runtimes, then the app shell and the rest; biggest first within a kind. */
const KIND_ORDER: Record<CacheKind, number> = { models: 0, runtimes: 1, app: 2 };

export async function storageUsage(): Promise<StorageUsage> {
  const usage: StorageUsage = { caches: [] };
  if (typeof caches !== 'undefined') {
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      let files = 0;
      let bytes = 0;
      for (const request of await cache.keys()) {
        const response = await cache.match(request);
        if (!response) continue;
        files++;
        bytes += await responseBytes(response);
      }
      usage.caches.push({
        name,
        kind: cacheKind(name),
        files,
        bytes,
        removable: REMOVABLE_CACHES.includes(name),
      });
    }
    usage.caches.sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || b.bytes - a.bytes);
  }
  const estimate =
    typeof navigator !== 'undefined' && navigator.storage?.estimate
      ? await navigator.storage.estimate().catch(() => undefined)
      : undefined;
  if (estimate?.usage !== undefined && estimate.quota !== undefined) {
    usage.estimate = { usage: estimate.usage, quota: estimate.quota };
  }
  return usage;
}
