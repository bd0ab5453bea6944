import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  cacheWritesSettled,
  cachedFetch,
  isCacheableAsset,
  responseBytes,
} from '../../../src/lib/pwa/cached-fetch.ts';
import {
  HUB_MODELS_CACHE,
  MODELS_CACHE,
  REMOVABLE_CACHES,
  RUNTIMES_CACHE,
  cacheKind,
} from '../../../src/lib/pwa/cache-names.ts';
import { storageUsage } from '../../../src/lib/pwa/storage-usage.ts';
import { deleteCachedModels } from '../../../src/lib/models/model-cache.ts';

/** An in-memory Cache Storage with the methods the app uses. */
function fakeCacheStorage() {
  const stores = new Map<string, Map<string, Response>>();
  const open = (name: string) => {
    let entries = stores.get(name);
    if (!entries) stores.set(name, (entries = new Map()));
    const store = entries;
    return {
      match: async (key: RequestInfo) =>
        store.get(typeof key === 'string' ? key : key.url)?.clone(),
      put: async (key: RequestInfo, response: Response) => {
        store.set(
          typeof key === 'string' ? key : key.url,
          new Response(await response.arrayBuffer(), response),
        );
      },
      keys: async () => [...store.keys()].map((url) => new Request(url)),
    };
  };
  return {
    stores,
    storage: {
      open: async (name: string) => open(name),
      has: async (name: string) => stores.has(name),
      keys: async () => [...stores.keys()],
      delete: async (name: string) => stores.delete(name),
    },
  };
}

const URL_OF_WASM = 'http://127.0.0.1:4173/vendor/ort/ort-wasm-simd-threaded.wasm';

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('cache on first use, by the caller', () => {
  it('keeps only real files: no SPA fallback page, no partial or failed answer', () => {
    const answer = (status: number, type: string) =>
      isCacheableAsset(new Response('x', { status, headers: { 'content-type': type } }));
    expect(answer(200, 'application/wasm')).toBe(true);
    expect(answer(200, 'text/html; charset=utf-8')).toBe(false);
    expect(answer(206, 'application/wasm')).toBe(false);
    expect(answer(404, 'text/plain')).toBe(false);
  });

  it('fetches once, stores the file, and answers the next ask from the cache without the network', async () => {
    const { storage, stores } = fakeCacheStorage();
    const fetchMock = vi.fn(
      async () =>
        new Response(new Uint8Array([0, 97, 115, 109]), {
          headers: { 'content-type': 'application/wasm' },
        }),
    );
    vi.stubGlobal('caches', storage);
    vi.stubGlobal('fetch', fetchMock);
    const first = await cachedFetch(URL_OF_WASM, RUNTIMES_CACHE);
    expect(new Uint8Array(await first.arrayBuffer())).toEqual(new Uint8Array([0, 97, 115, 109]));
    await vi.waitFor(() => expect(stores.get(RUNTIMES_CACHE)?.has(URL_OF_WASM)).toBe(true));
    const second = await cachedFetch(URL_OF_WASM, RUNTIMES_CACHE);
    expect(second.headers.get('content-type')).toBe('application/wasm');
    expect(new Uint8Array(await second.arrayBuffer())).toEqual(new Uint8Array([0, 97, 115, 109]));
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it('does not keep an index.html fallback, and works where there is no Cache Storage', async () => {
    const { storage, stores } = fakeCacheStorage();
    vi.stubGlobal('caches', storage);
    vi.stubGlobal(
      'fetch',
      vi.fn(
        async () => new Response('<!doctype html>', { headers: { 'content-type': 'text/html' } }),
      ),
    );
    expect((await cachedFetch(URL_OF_WASM, RUNTIMES_CACHE)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 0));
    expect(stores.get(RUNTIMES_CACHE)?.size ?? 0).toBe(0);
    vi.stubGlobal('caches', undefined);
    expect((await cachedFetch(URL_OF_WASM, RUNTIMES_CACHE)).status).toBe(200);
  });
});

describe('the cache writes a worker waits for', () => {
  it('settles once the file is stored, so that a check made then finds it', async () => {
    const { storage, stores } = fakeCacheStorage();
    let release: () => void = () => {};
    const gate = new Promise<void>((done) => (release = done));
    const slow = {
      ...storage,
      open: async (name: string) => {
        const cache = await storage.open(name);
        return {
          ...cache,
          put: async (key: RequestInfo, response: Response) => {
            await gate;
            await cache.put(key, response);
          },
        };
      },
    };
    vi.stubGlobal('caches', slow);
    vi.stubGlobal(
      'fetch',
      vi.fn(
        async () =>
          new Response(new Uint8Array(8), { headers: { 'content-type': 'application/wasm' } }),
      ),
    );
    await (await cachedFetch(URL_OF_WASM, RUNTIMES_CACHE)).arrayBuffer();
    let settled = false;
    const waiting = cacheWritesSettled().then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 10));
    expect(settled).toBe(false);
    release();
    await waiting;
    expect(stores.get(RUNTIMES_CACHE)?.has(URL_OF_WASM)).toBe(true);
    // Nothing pending: at once.
    await cacheWritesSettled();
  });

  it('measures a file that came compressed by its body, not by the Content-Length of the transfer', async () => {
    const encoded = new Response(new Uint8Array(1000), {
      headers: { 'content-encoding': 'br', 'content-length': '120' },
    });
    expect(await responseBytes(encoded)).toBe(1000);
    const plain = new Response(new Uint8Array(10), { headers: { 'content-length': '10' } });
    expect(await responseBytes(plain)).toBe(10);
  });
});

describe('what Settings shows and removes', () => {
  it('lists every cache by kind with files and bytes, and the storage estimate', async () => {
    const { storage } = fakeCacheStorage();
    vi.stubGlobal('caches', storage);
    vi.stubGlobal('navigator', {
      storage: { estimate: async () => ({ usage: 5_000_000, quota: 2_000_000_000 }) },
    });
    const put = async (cache: string, url: string, bytes: number) =>
      (await storage.open(cache)).put(url, new Response(new Uint8Array(bytes)));
    await put('workbox-precache-v2-http://127.0.0.1:4173/', 'http://x/index.html', 300);
    await put(MODELS_CACHE, 'http://x/models/use-lite/group1-shard1of7', 4000);
    await put(MODELS_CACHE, 'http://x/models/use-lite/vocab.json', 1000);
    await put(RUNTIMES_CACHE, 'http://x/vendor/ort/ort-wasm-simd-threaded.wasm', 2000);
    const usage = await storageUsage();
    expect(usage.caches.map((c) => [c.kind, c.files, c.bytes, c.removable])).toEqual([
      ['models', 2, 5000, true],
      ['runtimes', 1, 2000, true],
      ['app', 1, 300, false],
    ]);
    expect(usage.estimate).toEqual({ usage: 5_000_000, quota: 2_000_000_000 });
  });

  it('removes the model and runtime caches, never the app shell, and says what it removed', async () => {
    const { storage, stores } = fakeCacheStorage();
    vi.stubGlobal('caches', storage);
    const precache = 'workbox-precache-v2-http://127.0.0.1:4173/';
    for (const [cache, url] of [
      [precache, 'http://x/index.html'],
      [MODELS_CACHE, 'http://x/models/use-lite/vocab.json'],
      [HUB_MODELS_CACHE, 'https://hub.example/Xenova/m/resolve/main/config.json'],
      [RUNTIMES_CACHE, 'http://x/vendor/jieba/jieba_rs_wasm_bg.wasm'],
    ] as const) {
      await (await storage.open(cache)).put(url, new Response(new Uint8Array(10)));
    }
    const removed = await deleteCachedModels();
    expect(removed).toMatchObject({ files: 3, bytes: 30, models: ['Xenova/m'] });
    expect([...stores.keys()]).toEqual([precache]);
    expect(REMOVABLE_CACHES.map(cacheKind)).toEqual(['models', 'models', 'runtimes']);
  });
});
