/// <reference lib="webworker" />
/**
 * Runs one USE-lite route in this fresh worker, as an app worker would: the converted ONNX graph
 * on onnxruntime-web's WASM build (the files the app already serves from /vendor/ort/), or the
 * TF.js graph on TF.js's WASM backend (one thread). Load time is file fetches plus session or
 * graph build; then one untimed warm-up pass and per batch size one timed pass over the sentences.
 */
import * as ort from 'onnxruntime-web';
import * as tf from '@tensorflow/tfjs-core';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { Tokenizer } from '@tensorflow-models/universal-sentence-encoder';
import { loadUseOnnxGraph } from '../../src/lib/metrics/semantic/use-lite-onnx.ts';
import { loadUseGraph, type UseModelFiles } from '../../src/lib/metrics/semantic/use-lite-tfjs.ts';
import {
  UseLiteEmbedder,
  type UseGraphRunner,
  type UseLiteOptions,
} from '../../src/lib/metrics/semantic/use-lite.ts';
import { int8Weights, USE_LITE_INT8_FILES } from '../../src/lib/metrics/semantic/use-lite-int8.ts';
import type { UseRowConfig, UseRowResult, UseWorkerResponse } from './protocol.ts';

declare const self: DedicatedWorkerGlobalScope;

async function fetchBytes(url: string): Promise<ArrayBuffer> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.arrayBuffer();
}

async function loadTfjsFiles(): Promise<UseModelFiles> {
  const modelJson = (await (
    await fetch('/models/use-lite/model.json')
  ).json()) as UseModelFiles['modelJson'];
  const shards = await Promise.all(
    modelJson.weightsManifest
      .flatMap((g) => g.paths)
      .map((p) => fetchBytes(`/models/use-lite/${p}`)),
  );
  const weights = new Uint8Array(shards.reduce((n, s) => n + s.byteLength, 0));
  let offset = 0;
  for (const shard of shards) {
    weights.set(new Uint8Array(shard), offset);
    offset += shard.byteLength;
  }
  return { modelJson, weights: weights.buffer };
}

async function loadRunner(config: UseRowConfig): Promise<UseGraphRunner> {
  if (config.route === 'onnx' || config.route === 'onnx-int8') {
    ort.env.wasm.numThreads = config.threads;
    // The build the app's worker runs (workers/use-lite.ts): the plain one, about twice the
    // asyncify and JSEP builds' speed on this graph.
    ort.env.wasm.wasmPaths = {
      mjs: '/vendor/ort/ort-wasm-simd-threaded.mjs',
      wasm: '/vendor/ort/ort-wasm-simd-threaded.wasm',
    };
    if (config.route === 'onnx-int8') {
      const [graph, weights] = await Promise.all(
        [USE_LITE_INT8_FILES.graph, USE_LITE_INT8_FILES.weights].map(
          async (file) => new Uint8Array(await fetchBytes(`/models/use-lite/${file}`)),
        ),
      );
      return loadUseOnnxGraph(ort, graph, {
        executionProviders: ['wasm'],
        graphOptimizationLevel: 'all',
        ...int8Weights(weights),
      });
    }
    const model = new Uint8Array(await fetchBytes('/models/use-lite-onnx/model.onnx'));
    return loadUseOnnxGraph(ort, model, {
      executionProviders: ['wasm'],
      graphOptimizationLevel: 'all',
    });
  }
  setWasmPaths('/vendor/tfjs/');
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  if (!(await tf.setBackend('wasm'))) throw new Error('TF.js WASM backend failed to start.');
  await tf.ready();
  return loadUseGraph(await loadTfjsFiles());
}

/** The fastest of `repeats` runs, in ms: on a shared machine the slower runs measure the neighbours. */
async function fastest(repeats: number, work: () => Promise<unknown>): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < repeats; i++) {
    const start = performance.now();
    await work();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

async function runRow(config: UseRowConfig): Promise<UseRowResult> {
  const start = performance.now();
  const run = await loadRunner(config);
  const vocabulary = await (await fetch('/models/use-lite/vocab.json')).json();
  const tokenizer = new Tokenizer(vocabulary);
  const loadMs = performance.now() - start;
  const embedder = (options: UseLiteOptions) =>
    new UseLiteEmbedder(config.route, tokenizer, run, options);

  // warm-up, untimed: first-run allocations and V8's tier-up from its baseline WASM compiler,
  // which on ONNX Runtime's 20 MB module takes seconds (the first cell would measure Liftoff code)
  await embedder({ batchSize: 8 }).embed(config.sentences);
  const perSecond: number[] = [];
  let vectors: Float32Array[] = [];
  for (const batchSize of config.batchSizes) {
    const e = embedder({ batchSize });
    const ms = await fastest(config.repeats, async () => {
      const out = await e.embed(config.sentences);
      if (batchSize === 8) vectors = out;
    });
    perSecond.push((config.sentences.length / ms) * 1000);
  }
  const source = embedder({ batchSize: 8 });
  const sourceMs = await fastest(config.repeats, () => source.embed(config.sourceSentences));
  // The embedder keeps no vectors, so each repeat computes every sentence again.
  const summaryMs = await fastest(config.repeats, () => source.embed(config.summarySentences));
  return {
    loadMs,
    perSecond,
    sourceMs,
    summaryMs,
    vectors: vectors.map((v) => Array.from(v)),
    crossOriginIsolated: self.crossOriginIsolated,
  };
}

self.onmessage = async (event: MessageEvent<UseRowConfig>) => {
  let reply: UseWorkerResponse;
  try {
    reply = { type: 'result', result: await runRow(event.data) };
  } catch (error) {
    reply = { type: 'error', message: error instanceof Error ? error.message : String(error) };
  }
  self.postMessage(reply);
};
