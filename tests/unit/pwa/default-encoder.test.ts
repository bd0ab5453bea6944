import { describe, expect, it } from 'vitest';
import {
  DEFAULT_ENCODER_FILES,
  GLOVE_FILES,
  filesCached,
  offlineEncoderFiles,
} from '../../../src/lib/pwa/default-encoder.ts';
import { MODELS_CACHE, RUNTIMES_CACHE } from '../../../src/lib/pwa/cache-names.ts';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';

const BASE = 'http://127.0.0.1:4173/';

/** Cache Storage holding `files` ({cache: [paths]}), that records the caches it was asked to open. */
function storageWith(files: Record<string, string[]>) {
  const opened: string[] = [];
  const storage = {
    has: async (name: string) => name in files,
    open: async (name: string) => {
      opened.push(name);
      const urls = new Set((files[name] ?? []).map((path) => new URL(path, BASE).href));
      return {
        match: async (url: string, options?: CacheQueryOptions) =>
          // The worker stores compressed answers with Vary: Accept-Encoding; the check must ignore it.
          urls.has(url) && options?.ignoreVary ? new Response('x') : undefined,
      };
    },
  } as unknown as CacheStorage;
  return { storage, opened };
}

const INT8 = [
  'models/use-lite/int8.json',
  'models/use-lite/int8.onnx',
  'models/use-lite/use-lite-int8-weights.bin',
  'models/use-lite/vocab.json',
];

describe('"Works offline": the chosen encoder in Cache Storage', () => {
  it('waits for the default encoder (USE-lite int8 and an ORT wasm), GloVe when picked, and knows no list for the others', () => {
    expect(offlineEncoderFiles(DEFAULT_SETTINGS.backends.embedding)).toBe(DEFAULT_ENCODER_FILES);
    expect(offlineEncoderFiles({ kind: 'use-lite', device: 'wasm', precision: 'int8' })).toBe(
      DEFAULT_ENCODER_FILES,
    );
    expect(offlineEncoderFiles({ kind: 'glove' })).toBe(GLOVE_FILES);
    expect(offlineEncoderFiles({ kind: 'use-lite', device: 'auto', precision: 'fp32' })).toBe(
      undefined,
    );
    expect(
      offlineEncoderFiles({ kind: 'transformer', model: 'a/b', device: 'auto', dtype: 'auto' }),
    ).toBe(undefined);
    // GloVe is no part of the default's list: it is the fallback, not fetched on a first visit.
    expect(JSON.stringify(DEFAULT_ENCODER_FILES)).not.toMatch(/glove/u);
    expect(GLOVE_FILES.flat()).toEqual([
      { cache: MODELS_CACHE, path: expect.stringMatching(/glove-100d/u) },
    ]);
  });

  it('is ready only when every file is there; either ONNX Runtime build will do', async () => {
    const plain = 'vendor/ort/ort-wasm-simd-threaded.wasm';
    const jsep = 'vendor/ort/ort-wasm-simd-threaded.jsep.wasm';
    const check = (files: Record<string, string[]>) =>
      filesCached(DEFAULT_ENCODER_FILES, BASE, storageWith(files).storage);
    expect(await check({ [MODELS_CACHE]: INT8, [RUNTIMES_CACHE]: [plain] })).toBe(true);
    expect(await check({ [MODELS_CACHE]: INT8, [RUNTIMES_CACHE]: [jsep] })).toBe(true);
    // The weights still on their way (or refused by a full disk): not yet.
    expect(
      await check({
        [MODELS_CACHE]: INT8.filter((p) => !p.endsWith('.bin')),
        [RUNTIMES_CACHE]: [plain],
      }),
    ).toBe(false);
    expect(await check({ [MODELS_CACHE]: INT8 })).toBe(false);
    expect(await check({ [MODELS_CACHE]: INT8, [RUNTIMES_CACHE]: [] })).toBe(false);
    expect(await filesCached(DEFAULT_ENCODER_FILES, BASE, undefined)).toBe(false);
  });

  it('does not create the caches it looks into', async () => {
    const { storage, opened } = storageWith({ [MODELS_CACHE]: INT8 });
    expect(await filesCached(DEFAULT_ENCODER_FILES, BASE, storage)).toBe(false);
    expect(opened).not.toContain(RUNTIMES_CACHE);
  });
});
