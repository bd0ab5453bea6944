/**
 * USE-lite's vectors as the app's embedding worker computes them (workers/use-lite.ts, driven by
 * the model benchmark's page, bench/models/), in Chromium: on WASM they equal Google's reference
 * encoder run in Node within 1e-4 per dimension on 200+ SummEval sentences; with WebGPU chosen
 * (Chromium's software adapter here; the converted ONNX graph on ONNX Runtime's WebGPU) they equal
 * WASM within 1e-4, with no fallback. The software adapter is slow (~0.15 sentences/s on a busy
 * 2-core machine), so WebGPU gets a smaller set of sentences. The int8 model (the app's default)
 * equals the same model run in Node within the quantised tolerance (max |Δ| < 1e-2, cosine
 * > 0.999) and stays within cosine 0.99 of the reference.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';
import { WEBGPU_ARGS, launchBrowser } from './support/browser.ts';
import { startServer } from '../../bench/models/server.ts';
import type { BenchPageApi, UseLiteRequest, UseLiteResult } from '../../bench/models/protocol.ts';
import { repoRoot } from '../helpers/shared.ts';
import { loadUseLiteEmbedder, USE_MODEL_DIR } from '../../src/lib/node/load-use.ts';
import { cosine } from '../../src/lib/metrics/semantic/coherence/coherence.ts';
import { USE_LITE_WINDOW } from '../../src/lib/metrics/semantic/use-lite.ts';
import { maxAbsDifference, referenceEncoder, summevalSentences } from '../helpers/use-reference.ts';

const require = createRequire(import.meta.url);
const BUILD_DIR = resolve(repoRoot, '.cache/bench-models-build');
const TFJS_WASM_DIR = dirname(
  require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'),
);
const WEBGPU_SENTENCES = 24;

const toVectors = (rows: number[][] | undefined) => (rows ?? []).map((r) => Float32Array.from(r));

describe('USE-lite in a Chromium worker', () => {
  let server: Server;
  let browser: Browser;
  let page: Page;
  let sentences: string[];
  let reference: Float32Array[];
  let wasm: UseLiteResult;

  async function embed(request: Omit<UseLiteRequest, 'batchSizes' | 'budgetMs' | 'vectors'>) {
    return page.evaluate(
      (r) =>
        (window as unknown as { sumlensBench: BenchPageApi }).sumlensBench.useLite({
          ...r,
          batchSizes: [],
          budgetMs: 0,
          vectors: true,
        }),
      request,
    );
  }

  beforeAll(async () => {
    await build({ configFile: resolve(repoRoot, 'bench/models/vite.config.ts') });
    // Port 0: the OS picks a free one, so a benchmark or another checkout can serve beside it.
    server = await startServer(0, [
      { prefix: '/vendor/ort/', dirs: [resolve(repoRoot, 'public/vendor/ort')] },
      { prefix: '/vendor/tfjs/', dirs: [TFJS_WASM_DIR] },
      {
        prefix: '/models/use-lite/',
        dirs: [USE_MODEL_DIR, resolve(repoRoot, 'public/models/use-lite')],
      },
      { prefix: '/', dirs: [BUILD_DIR] },
    ]);
    const encoder = await referenceEncoder();
    sentences = summevalSentences(230).filter((s) => encoder.tokenCount(s) <= USE_LITE_WINDOW);
    reference = await encoder.embed(sentences);
    await encoder.close();
    browser = await launchBrowser(WEBGPU_ARGS);
    page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await page.waitForSelector('body[data-ready="true"]');
  }, 400_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((done) => server?.close(done));
  });

  it('WASM (ONNX Runtime, two threads): the reference vectors within 1e-4', async () => {
    expect(sentences.length).toBeGreaterThanOrEqual(200);
    wasm = await embed({ device: 'wasm', threads: 2, precision: 'fp32', sentences });
    expect(wasm.backend).toBe('use-lite · WASM');
    expect([wasm.runtime, wasm.threads]).toEqual(['onnxruntime-web', 2]);
    expect(wasm.notes).toEqual([]);
    expect(maxAbsDifference(toVectors(wasm.vectors), reference)).toBeLessThan(1e-4);
  }, 400_000);

  it('int8 (the default) on WASM, two threads: Node’s int8 vectors within the quantised tolerance, the exact ones within cosine 0.99', async () => {
    const int8 = await embed({ device: 'wasm', threads: 2, precision: 'int8', sentences });
    expect(int8.backend).toBe('use-lite int8 · WASM');
    expect(int8.notes).toEqual([]);
    const vectors = toVectors(int8.vectors);
    // Node embeds one sentence per run, the worker batches: ~1e-8 float differences then flip a
    // per-token rounding step now and then (~3e-3 on a vector), so not 1e-4 as for fp32.
    const node = await (await loadUseLiteEmbedder({ precision: 'int8' })).embed(sentences);
    expect(maxAbsDifference(vectors, node)).toBeLessThan(1e-2);
    expect(Math.min(...vectors.map((v, i) => cosine(v, node[i]) ?? 0))).toBeGreaterThan(0.999);
    const cosines = vectors.map((v, i) => cosine(v, reference[i]) ?? 0);
    expect(Math.min(...cosines)).toBeGreaterThan(0.99);
    // and it is the int8 model, not the exact one under another name
    expect(maxAbsDifference(vectors, reference)).toBeGreaterThan(1e-4);
  }, 400_000);

  it('WASM fallback (TF.js, one thread): the same vectors within 1e-4', async () => {
    const some = sentences.slice(0, 60);
    const tfjs = await embed({
      device: 'wasm',
      threads: 1,
      runtime: 'tfjs',
      precision: 'fp32',
      sentences: some,
    });
    expect([tfjs.backend, tfjs.runtime, tfjs.threads]).toEqual(['use-lite · WASM', 'tfjs', 1]);
    expect(maxAbsDifference(toVectors(tfjs.vectors), reference.slice(0, 60))).toBeLessThan(1e-4);
  }, 400_000);

  it('WebGPU chosen: the ONNX graph on ONNX Runtime WebGPU, its vectors equal WASM within 1e-4', async () => {
    // Needs `npm run assets` (the committed graph and ORT's JSEP build).
    expect(existsSync(resolve(repoRoot, 'public/models/use-lite/graph.onnx'))).toBe(true);
    const some = sentences.slice(0, WEBGPU_SENTENCES);
    const gpu = await embed({ device: 'webgpu', threads: 1, precision: 'fp32', sentences: some });
    console.info(`WebGPU choice ran as: ${gpu.backend}. ${gpu.notes.join(' ')}`);
    expect(gpu.backend).toMatch(/^use-lite · WebGPU( \(software adapter\))?$/u);
    expect(gpu.notes.join(' ')).not.toMatch(/could not run/u);
    const wasmVectors = toVectors(wasm.vectors).slice(0, some.length);
    expect(maxAbsDifference(toVectors(gpu.vectors), wasmVectors)).toBeLessThan(1e-4);
  }, 400_000);
});
