import { describe, expect, it } from 'vitest';
import { statSync } from 'node:fs';
import { matchesGlob, resolve } from 'node:path';
import {
  MAX_PRECACHE_FILE_BYTES,
  MODELS_CACHE,
  RUNTIMES_CACHE,
  isSelfHostedModelRequest,
  isSelfHostedRuntimeRequest,
  modelsRuntimeCaching,
  pwaOptions,
  rejectHtmlPlugin,
  runtimesRuntimeCaching,
} from '../../../pwa.config.ts';
import { gloveAssetName } from '../../../vite.config.ts';

const root = resolve(import.meta.dirname, '../../..');

function route(href: string, origin = 'http://127.0.0.1:4173'): boolean {
  const url = new URL(href, origin);
  return isSelfHostedModelRequest({ url, sameOrigin: url.origin === origin });
}

describe('service worker configuration', () => {
  it('caches same-origin /models/ only: hub downloads and providers pass straight through', () => {
    expect(route('/models/Xenova/all-MiniLM-L6-v2/onnx/model_quantized.onnx')).toBe(true);
    expect(route('/models/x/config.json?download=1')).toBe(true);
    expect(route('https://huggingface.co/models/x/config.json')).toBe(false);
    expect(route('https://huggingface.co/Xenova/x/resolve/main/onnx/model.onnx')).toBe(false);
    expect(route('https://api.openai.com/v1/chat/completions')).toBe(false);
    expect(route('/modelsX/a.json')).toBe(false);
    expect(route('/vendor/ort/ort-wasm-simd-threaded.asyncify.wasm')).toBe(false);
    expect(modelsRuntimeCaching.handler).toBe('CacheFirst');
    expect(modelsRuntimeCaching.options?.cacheName).toBe(MODELS_CACHE);
    expect(modelsRuntimeCaching.options?.cacheableResponse).toEqual({ statuses: [200] });
    // A compressed answer is kept decoded with Vary: Accept-Encoding; a lookup must find it.
    expect(modelsRuntimeCaching.options?.matchOptions).toEqual({ ignoreVary: true });
  });

  it('keeps a model file only if it is one: no SPA fallback page, no partial or failed answer', async () => {
    const keep = (body: string, status: number, type: string) =>
      rejectHtmlPlugin.cacheWillUpdate({
        response: new Response(body, { status, headers: { 'content-type': type } }),
      });
    expect(await keep('{}', 200, 'application/json')).not.toBeNull();
    expect(await keep('onnx', 200, 'application/octet-stream')).not.toBeNull();
    expect(await keep('<!doctype html>', 200, 'text/html; charset=utf-8')).toBeNull();
    expect(await keep('part', 206, 'application/octet-stream')).toBeNull();
    expect(await keep('missing', 404, 'text/plain')).toBeNull();
  });

  it('caches same-origin /vendor/ runtimes on first use, in their own cache', () => {
    const url = (href: string) => new URL(href, 'http://127.0.0.1:4173');
    const runtime = (href: string) =>
      isSelfHostedRuntimeRequest({
        url: url(href),
        sameOrigin: url(href).origin === url('/').origin,
      });
    expect(runtime('/vendor/ort/ort-wasm-simd-threaded.wasm')).toBe(true);
    expect(runtime('/vendor/jieba/jieba_rs_wasm_bg.wasm')).toBe(true);
    expect(runtime('https://cdn.jsdelivr.net/vendor/ort/x.wasm')).toBe(false);
    expect(runtime('/models/use-lite/model.json')).toBe(false);
    expect(runtimesRuntimeCaching.handler).toBe('CacheFirst');
    expect(runtimesRuntimeCaching.options?.cacheName).toBe(RUNTIMES_CACHE);
    expect(runtimesRuntimeCaching.options?.matchOptions).toEqual({ ignoreVary: true });
    expect(RUNTIMES_CACHE).not.toBe(MODELS_CACHE);
    expect(pwaOptions.workbox?.runtimeCaching).toEqual([
      modelsRuntimeCaching,
      runtimesRuntimeCaching,
    ]);
  });

  it('precaches the app shell only: never the vectors, a wasm runtime or a model, the default encoder included', () => {
    const workbox = pwaOptions.workbox ?? {};
    const precached = (file: string) =>
      (workbox.globPatterns ?? []).some((glob) => matchesGlob(file, glob)) &&
      !(workbox.globIgnores ?? []).some((glob) => matchesGlob(file, glob));
    for (const file of [
      'index.html',
      'assets/index-AbC123.js',
      'assets/ja-x1y2.js',
      'assets/index-x.css',
      'icon.svg',
      // ONNX Runtime's glue: small, and loaded by import() where no worker code can cache it.
      'vendor/ort/ort-wasm-simd-threaded.mjs',
    ]) {
      expect(precached(file), file).toBe(true);
    }
    for (const file of [
      // GloVe is the fallback encoder: fetched when USE-lite fails or when picked, never at install.
      'assets/glove-100d-333f0997e1.bin',
      'embeddings/glove-100d.bin',
      // The default encoder is kept by the worker that loads it: a precache would fetch it twice.
      'models/use-lite/int8.json',
      'models/use-lite/int8.onnx',
      'models/use-lite/use-lite-int8-weights.bin',
      'models/use-lite/vocab.json',
      'vendor/ort/ort-wasm-simd-threaded.wasm',
      // Their compressed copies, beside them in dist/.
      'vendor/ort/ort-wasm-simd-threaded.wasm.br',
      'vendor/ort/ort-wasm-simd-threaded.wasm.gz',
      'models/use-lite/int8.onnx.br',
      'vendor/ort/ort-wasm-simd-threaded.asyncify.wasm',
      'vendor/ort/ort-wasm-simd-threaded.jsep.wasm',
      'vendor/jieba/jieba_rs_wasm_bg.wasm',
      'vendor/tfjs/tfjs-backend-wasm-simd.wasm',
      'models/use-lite/group1-shard1of7',
      'models/use-lite/model.json',
      'models/use-lite/graph.onnx',
      'models/Xenova/all-MiniLM-L6-v2/onnx/model_quantized.onnx',
      'assets/ort-wasm-simd-threaded.asyncify-x.wasm',
    ]) {
      expect(precached(file), file).toBe(false);
    }
    expect(workbox.navigateFallback).toBe('index.html');
    // An update waits for the user (no reload under someone typing); the first install claims.
    expect(pwaOptions.registerType).toBe('prompt');
    expect(workbox.skipWaiting).toBe(false);
    expect(workbox.clientsClaim).toBe(true);
    expect(pwaOptions.devOptions?.enabled).toBe(false);
  });

  it('has a precache size limit that admits JS chunks and no vectors, weights or runtime', () => {
    const size = (path: string) => statSync(resolve(root, path)).size;
    // Limits that a file slipping into the globs would break (the build fails, nothing is shipped).
    for (const path of [
      'public/embeddings/glove-100d.bin',
      'public/models/use-lite/use-lite-int8-weights.bin',
      'node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.wasm',
    ]) {
      expect(size(path), path).toBeGreaterThan(MAX_PRECACHE_FILE_BYTES);
    }
    // The largest chunks (transformers.js's, TF.js's shared code) are about 1 MB.
    expect(MAX_PRECACHE_FILE_BYTES).toBeGreaterThanOrEqual(2 * 1024 * 1024);
    expect(pwaOptions.workbox?.maximumFileSizeToCacheInBytes).toBe(MAX_PRECACHE_FILE_BYTES);
  });

  it('names the vectors by their content: a new vocabulary is a new URL in the models cache', () => {
    const name = gloveAssetName(new Uint8Array([1, 2, 3]));
    expect(name).toMatch(/^assets\/glove-100d-[0-9a-f]{10}\.bin$/u);
    expect(gloveAssetName(new Uint8Array([1, 2, 4]))).not.toBe(name);
    expect(gloveAssetName(new Uint8Array([1, 2, 3]))).toBe(name);
    expect((pwaOptions.workbox?.globPatterns ?? []).some((glob) => matchesGlob(name, glob))).toBe(
      false,
    );
  });
});
