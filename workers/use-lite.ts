/**
 * USE-lite in a worker: the graph converted to ONNX on onnxruntime-web, WebGPU when chosen and
 * available, else WASM with SIMD and threads (see startOnnx); the TF.js graph on TF.js's WASM
 * backend if ONNX Runtime fails. Everything is read from the app's own origin
 * (`models/use-lite/`, copied there by `npm run assets`). TF.js and ORT are imported here only,
 * and this module only through a dynamic import, so the lexical and NER workers do not bundle
 * them.
 *
 * Backend names: "use-lite int8 · WASM" (the default, int8 weights) or "use-lite · WASM" (fp32,
 * the exact model), "· WebGPU" on WebGPU. They stay apart in the string (the user
 * sees where it ran), but WebGPU and WASM agree within 1e-4 per dimension (tests/e2e/use-lite),
 * so the validity lookup (validity.ts `withoutDevice`) treats them as one backend.
 */
import * as tf from '@tensorflow/tfjs-core';
import { Tokenizer } from '@tensorflow-models/universal-sentence-encoder';
import { messageOf } from '../src/lib/errors.ts';
import { ref } from '../src/lib/i18n/message.ts';
import { loadingStage } from '../src/lib/workers/loading-stage.ts';
import type { DeviceChoice } from '../src/lib/metrics/settings.ts';
import {
  UseLiteEmbedder,
  type UseGraphRunner,
  USE_LITE_MODEL_FILE,
  USE_LITE_VOCAB_FILE,
  windowedNote,
} from '../src/lib/metrics/semantic/use-lite.ts';
import {
  checkUseModelFiles,
  loadUseGraph,
  type UseModelFiles,
} from '../src/lib/metrics/semantic/use-lite-tfjs.ts';
import {
  loadUseOnnxGraph,
  shardWeights,
  USE_LITE_GRAPH_FILE,
} from '../src/lib/metrics/semantic/use-lite-onnx.ts';
import {
  checkInt8File,
  int8Weights,
  USE_LITE_INT8_FILES,
  type Int8Manifest,
  useLiteName,
  type UsePrecision,
} from '../src/lib/metrics/semantic/use-lite-int8.ts';
import { cachedEmbedding, SentenceVectorCache } from '../src/lib/metrics/semantic/vector-cache.ts';
import type { BackendNote, SentenceEmbedder } from '../src/lib/metrics/semantic/backends.ts';
import { fetchWithProgress } from './fetch-progress.ts';
import { cachedFetch } from '../src/lib/pwa/cached-fetch.ts';
import { MODELS_CACHE, RUNTIMES_CACHE } from '../src/lib/pwa/cache-names.ts';
import { ORT_BUILD_FILES, USE_LITE_DIR } from '../src/lib/pwa/default-encoder.ts';
import { deviceLabel, resolveDevice, type DeviceResolution } from './gpu-adapter.ts';
import type { ProgressReporter } from './host.ts';

const TFJS_WASM_DIR = `${import.meta.env.BASE_URL}vendor/tfjs/`;
/**
 * ONNX Runtime's builds (JSEP for WebGPU, the plain one for WASM), under the app's base. The
 * "Works offline" check names the same files (src/lib/pwa/default-encoder.ts).
 */
const ORT_BUILDS = {
  webgpu: {
    mjs: import.meta.env.BASE_URL + ORT_BUILD_FILES.webgpu.mjs,
    wasm: import.meta.env.BASE_URL + ORT_BUILD_FILES.webgpu.wasm,
  },
  wasm: {
    mjs: import.meta.env.BASE_URL + ORT_BUILD_FILES.wasm.mjs,
    wasm: import.meta.env.BASE_URL + ORT_BUILD_FILES.wasm.wasm,
  },
};
/** More pool threads than this stop paying on a graph of this size (and starve the other workers). */
const MAX_WASM_THREADS = 4;

export interface LoadedUseLite {
  embedder: UseLiteEmbedder;
  notes: BackendNote[];
  /** Which runtime runs the graph, and with how many WASM threads (0 on WebGPU). */
  runtime: 'onnxruntime-web' | 'tfjs';
  threads: number;
  precision: UsePrecision;
}

export interface UseLiteLoadOptions {
  /** WASM threads (only when cross-origin isolated); default: the cores, at most 4. */
  threads?: number;
  batchSize?: number;
  /** Skip ONNX Runtime and run the TF.js graph (the parity tests compare the two). */
  runtime?: 'tfjs';
  /** int8 (default): the quantised model; fp32: the exact one (28 MB). */
  precision?: UsePrecision;
}

/** WASM threads need SharedArrayBuffer, which only a cross-origin isolated page has. */
function wasmThreads(wanted?: number): number {
  if (!self.crossOriginIsolated) return 1;
  return Math.max(1, wanted ?? Math.min(MAX_WASM_THREADS, navigator.hardwareConcurrency || 1));
}

type Ort = typeof import('onnxruntime-web');
/** ONNX Runtime loads one build per worker: the first route to start it decides which. */
let ortStarted: { ort: Ort; build: keyof typeof ORT_BUILDS } | undefined;

async function startOrt(build: keyof typeof ORT_BUILDS, threads: number): Promise<Ort> {
  if (ortStarted) return ortStarted.ort;
  const ort = await import('onnxruntime-web');
  ort.env.wasm.wasmPaths = ORT_BUILDS[build];
  // The wasm (14–28 MB) is not precached: fetched here through the runtimes cache, so that it is
  // kept even when no service worker controls this worker yet (a first visit).
  const wasm = await cachedFetch(
    new URL(ORT_BUILDS[build].wasm, self.location.origin),
    RUNTIMES_CACHE,
  );
  if (!wasm.ok) throw new Error(`${ORT_BUILDS[build].wasm}: HTTP ${wasm.status}`);
  ort.env.wasm.wasmBinary = await wasm.arrayBuffer();
  ort.env.wasm.numThreads = threads;
  ortStarted = { ort, build };
  return ort;
}

/**
 * USE-lite on ONNX Runtime: the converted graph (`graph.onnx`, weights at offsets into the TF.js
 * shards) on its WebGPU (JSEP) or WASM provider. ONNX Runtime's WASM runs this graph about 1.5×
 * faster than TF.js's on one thread and, unlike TF.js's threaded build (whose pthread workers
 * start from a blob of its factory and die inside a bundled module worker, seen in Chromium 156),
 * its threads start in a bundled worker: with 2 threads about 2.5× (`npm run bench:use`).
 *
 * WebGPU: TF.js's own WebGPU backend fails at readback on Chromium 156's software adapter
 * ("Failed to execute 'mapAsync' on 'GPUBuffer': A valid external Instance reference no longer
 * exists"), while ONNX Runtime's WebGPU runs and matches WASM within 1e-4.
 */
async function startOnnx(
  device: 'webgpu' | 'wasm',
  graph: Uint8Array,
  weights: { externalData: { path: string; data: Uint8Array }[] },
  threads: number,
): Promise<UseGraphRunner> {
  const ort = await startOrt(device, threads);
  return loadUseOnnxGraph(ort, graph, {
    executionProviders: [device],
    graphOptimizationLevel: 'all',
    ...weights,
  });
}

/**
 * The int8 model's graph and weights, each checked against `int8.json` (size and SHA-256): a
 * missing, truncated or corrupt file throws an error that names it, and the caller falls back to
 * the fp32 model.
 */
async function fetchInt8(
  report: ProgressReporter,
): Promise<{ graph: Uint8Array; weights: Uint8Array }> {
  const manifest = parseJson(
    USE_LITE_INT8_FILES.manifest,
    await fetchNamed(USE_LITE_DIR, USE_LITE_INT8_FILES.manifest, report),
  );
  const [graph, weights] = await Promise.all(
    [USE_LITE_INT8_FILES.graph, USE_LITE_INT8_FILES.weights].map(async (file) => {
      // The manifest's size is the progress bar's total: a compressed answer cannot say it.
      const expected = (manifest as Partial<Int8Manifest> | null)?.[file]?.bytes;
      const bytes = new Uint8Array(await fetchNamed(USE_LITE_DIR, file, report, expected));
      await checkInt8File(manifest, file, bytes);
      return bytes;
    }),
  );
  return { graph, weights };
}

async function startTfjsWasm(
  weights: Uint8Array,
  modelJson: UseModelFiles['modelJson'],
): Promise<UseGraphRunner> {
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  wasm.setWasmPaths(TFJS_WASM_DIR);
  // One thread: TF.js's threaded build dies in a bundled module worker (see startOnnx).
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  if (!(await tf.setBackend('wasm'))) throw new Error('the TF.js WASM backend failed to start');
  await tf.ready();
  return loadUseGraph({ modelJson, weights: weights.buffer as ArrayBuffer });
}

async function fetchNamed(
  dir: string,
  file: string,
  report: ProgressReporter,
  expectedBytes?: number,
): Promise<ArrayBuffer> {
  const url = new URL(import.meta.env.BASE_URL + dir + file, self.location.origin);
  try {
    return await fetchWithProgress(
      url,
      (loaded, total) =>
        report({
          ...loadingStage(ref('models.stage.sentenceEncoder')),
          file,
          loaded,
          ...(total ? { total } : {}),
        }),
      undefined,
      MODELS_CACHE,
      expectedBytes,
    );
  } catch (error) {
    throw new Error(`${file}: ${messageOf(error)}`, { cause: error });
  }
}

function parseJson(file: string, bytes: ArrayBuffer): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new Error(`${file} is not valid JSON (a broken or truncated download?).`, {
      cause: error,
    });
  }
}

/** The TF.js model's manifest and its shards' bytes, concatenated in manifest order. */
async function fetchWeights(
  report: ProgressReporter,
): Promise<{ modelJson: UseModelFiles['modelJson']; weights: Uint8Array }> {
  const modelJson = parseJson(
    USE_LITE_MODEL_FILE,
    await fetchNamed(USE_LITE_DIR, USE_LITE_MODEL_FILE, report),
  );
  const paths = (
    (modelJson as { weightsManifest?: { paths?: string[] }[] }).weightsManifest ?? []
  ).flatMap((group) => group.paths ?? []);
  const shards: { path: string; data: ArrayBuffer }[] = [];
  for (const path of paths)
    shards.push({ path, data: await fetchNamed(USE_LITE_DIR, path, report) });
  checkUseModelFiles(
    modelJson,
    shards.map((s) => ({ path: s.path, bytes: s.data.byteLength })),
  );
  const weights = new Uint8Array(shards.reduce((sum, s) => sum + s.data.byteLength, 0));
  let offset = 0;
  for (const shard of shards) {
    weights.set(new Uint8Array(shard.data), offset);
    offset += shard.data.byteLength;
  }
  return { modelJson, weights };
}

export async function loadUseLite(
  choice: DeviceChoice,
  report: ProgressReporter,
  options: UseLiteLoadOptions = {},
): Promise<LoadedUseLite> {
  const resolution = await resolveDevice(choice);
  const notes: BackendNote[] = resolution.note ? [resolution.note] : [];
  const vocabulary = parseJson(
    USE_LITE_VOCAB_FILE,
    await fetchNamed(USE_LITE_DIR, USE_LITE_VOCAB_FILE, report),
  );
  if (!Array.isArray(vocabulary))
    throw new Error(`${USE_LITE_VOCAB_FILE} is not a vocabulary list.`);
  const tokenizer = new Tokenizer(vocabulary as [string, number][]);
  const threads = wasmThreads(options.threads);
  const start = async (device: DeviceResolution, run: UseGraphRunner, precision: UsePrecision) => {
    report(loadingStage(ref('models.stage.startingEncoder')));
    const embedder = new UseLiteEmbedder(
      `${useLiteName(precision)} · ${deviceLabel(device)}`,
      tokenizer,
      run,
      options.batchSize === undefined ? {} : { batchSize: options.batchSize },
    );
    // The first call compiles the graph's kernels (shaders on WebGPU): paid here, not by the case.
    await embedder.embed(['Warm-up sentence.']);
    return embedder;
  };
  const wasm: DeviceResolution = { device: 'wasm', fallbackAdapter: false };
  const onnxDevices: DeviceResolution[] =
    resolution.device === 'webgpu' ? [resolution, wasm] : [wasm];
  /** ONNX Runtime on the chosen device, then WASM; the notes say why a device was left. */
  const startOnDevices = async (
    graph: Uint8Array,
    weights: Parameters<typeof startOnnx>[2],
    precision: UsePrecision,
  ): Promise<LoadedUseLite> => {
    let lastError: unknown;
    for (const device of onnxDevices) {
      try {
        const run = await startOnnx(device.device, graph, weights, threads);
        return {
          embedder: await start(device, run, precision),
          notes,
          runtime: 'onnxruntime-web',
          threads: device.device === 'webgpu' ? 0 : threads,
          precision,
        };
      } catch (error) {
        lastError = error;
        if (device.device === 'webgpu') {
          // A WebGPU that cannot run the graph must not cost the user the encoder: WASM. The
          // adapter's note ("WebGPU runs on a software adapter") no longer describes the run.
          notes.splice(
            0,
            notes.length,
            ref('semantic.useLite.webgpuFailed', { error: messageOf(error) }),
          );
        }
      }
    }
    throw lastError;
  };

  if ((options.precision ?? 'int8') === 'int8' && options.runtime !== 'tfjs') {
    try {
      const { graph, weights } = await fetchInt8(report);
      return await startOnDevices(graph, int8Weights(weights), 'int8');
    } catch (error) {
      // The exact model is still here: a bad int8 file costs the user 21 MB more, not the encoder.
      notes.push(ref('semantic.useLite.int8Failed', { error: messageOf(error) }));
    }
  }
  const { modelJson, weights } = await fetchWeights(report);
  if (options.runtime !== 'tfjs') {
    try {
      const graph = new Uint8Array(await fetchNamed(USE_LITE_DIR, USE_LITE_GRAPH_FILE, report));
      return await startOnDevices(graph, shardWeights(weights), 'fp32');
    } catch (error) {
      // Same vectors (within 1e-6), slower: the user keeps the encoder and its scores.
      notes.push(ref('semantic.useLite.onnxFailed', { error: messageOf(error) }));
    }
  }
  const run = await startTfjsWasm(weights, modelJson);
  return {
    embedder: await start(wasm, run, 'fp32'),
    notes,
    runtime: 'tfjs',
    threads: 1,
    precision: 'fp32',
  };
}

const cache = new SentenceVectorCache();

/**
 * The view of a loaded encoder that one case sees: vectors through the worker's cache, and notes
 * that grow when a sentence of the case is longer than the window. `notes` is one array, mutated,
 * because the metrics and `sharingEmbeddings` keep the array they were given and read it after
 * scoring.
 */
export function caseEmbedder(loaded: LoadedUseLite): SentenceEmbedder {
  const { embedder } = loaded;
  const notes = [...loaded.notes];
  const embed = cachedEmbedding(cache, embedder.backend, (s, signal) =>
    embedder.embedCounting(s, signal),
  );
  return {
    backend: embedder.backend,
    languages: embedder.languages,
    notes,
    async embed(sentences, signal) {
      const { vectors, windowed } = await embed(sentences, signal);
      const note = windowedNote(windowed);
      if (note && !notes.some((n) => sameNote(n, note))) notes.push(note);
      return vectors;
    },
  };
}

/** Two notes say the same: the windowed-sentence note is re-made for every batch. */
function sameNote(a: BackendNote, b: BackendNote): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
