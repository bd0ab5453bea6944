import { describe, expect, it } from 'vitest';
import { statSync } from 'node:fs';
import { matchesGlob, resolve } from 'node:path';
import {
  MAX_PRECACHE_FILE_BYTES,
  MODELS_CACHE,
  isSelfHostedModelRequest,
  modelsRuntimeCaching,
  pwaOptions,
  rejectHtmlPlugin,
} from '../../../pwa.config.ts';

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

  it('precaches ORT, jieba, the vectors and USE-lite, never self-hosted models or the duplicate ORT wasm', () => {
    const workbox = pwaOptions.workbox ?? {};
    const globs = (workbox.globPatterns ?? []).join(' ');
    for (const ext of ['html', 'js', 'mjs', 'css', 'wasm', 'bin']) expect(globs).toContain(ext);
    expect(workbox.globIgnores).toEqual(
      expect.arrayContaining(['assets/ort-wasm*.wasm', 'models/!(use-lite)/**']),
    );
    expect(workbox.navigateFallback).toBe('index.html');
    // An update waits for the user (no reload under someone typing); the first install claims.
    expect(pwaOptions.registerType).toBe('prompt');
    expect(workbox.skipWaiting).toBe(false);
    expect(workbox.clientsClaim).toBe(true);
    expect(pwaOptions.devOptions?.enabled).toBe(false);
  });

  it('precaches neither half of USE-lite on WebGPU: the converted model and the JSEP build of ORT', () => {
    const ignored = (file: string) =>
      (pwaOptions.workbox?.globIgnores ?? []).some((glob) => matchesGlob(file, glob));
    expect(ignored('models/use-lite-onnx/model.onnx')).toBe(true);
    expect(ignored('vendor/ort/ort-wasm-simd-threaded.jsep.wasm')).toBe(true);
    expect(ignored('vendor/ort/ort-wasm-simd-threaded.jsep.mjs')).toBe(true);
    expect(ignored('vendor/ort/ort-wasm-simd-threaded.asyncify.wasm')).toBe(false);
    expect(ignored('models/use-lite/vocab.json')).toBe(false);
  });

  it('has a precache size limit just above the ONNX Runtime wasm that transformers.js uses', () => {
    const ortWasm = statSync(
      resolve(root, 'node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.asyncify.wasm'),
    ).size;
    expect(ortWasm).toBeLessThanOrEqual(MAX_PRECACHE_FILE_BYTES);
    expect(MAX_PRECACHE_FILE_BYTES - ortWasm).toBeLessThan(4 * 1024 * 1024);
    expect(pwaOptions.workbox?.maximumFileSizeToCacheInBytes).toBe(MAX_PRECACHE_FILE_BYTES);
  });
});
