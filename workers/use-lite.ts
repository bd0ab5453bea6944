/**
 * USE-lite in a worker: the converted ONNX graph on onnxruntime-web's WebGPU when WebGPU is chosen
 * (see startOnnxWebGpu), else the TF.js graph on TF.js's WASM backend (with SIMD; see startTfjsWasm
 * about threads), the models read from the app's own origin (`models/use-lite/`, copied there by
 * `npm run assets`; `models/use-lite-onnx/`, by `npm run models:use-onnx`). TF.js and ORT are
 * imported here only, and this module only through a dynamic import, so the lexical and NER
 * workers do not bundle them.
 *
 * Backend names: "use-lite · WASM" / "use-lite · WebGPU". They stay apart in the string (the user
 * sees where it ran), but WebGPU and WASM agree within 1e-4 per dimension (tests/e2e/use-lite),
 * so the validity lookup (validity.ts `withoutDevice`) treats them as one backend.
 */
import * as tf from '@tensorflow/tfjs-core';
import { Tokenizer } from '@tensorflow-models/universal-sentence-encoder';
import { messageOf } from '../src/lib/errors.ts';
import type { DeviceChoice } from '../src/lib/metrics/settings.ts';
import {
  UseLiteEmbedder,
  type UseGraphRunner,
  USE_LITE_MODEL_FILE,
  USE_LITE_VOCAB_FILE,
  windowedNote,
} from '../src/lib/metrics/semantic/use-lite.ts';
import { checkUseModelFiles, loadUseGraph } from '../src/lib/metrics/semantic/use-lite-tfjs.ts';
import { loadUseOnnxGraph } from '../src/lib/metrics/semantic/use-lite-onnx.ts';
import { cachedEmbedding, SentenceVectorCache } from '../src/lib/metrics/semantic/vector-cache.ts';
import type { SentenceEmbedder } from '../src/lib/metrics/semantic/backends.ts';
import { fetchWithProgress } from './fetch-progress.ts';
import { deviceLabel, resolveDevice, type DeviceResolution } from './gpu-adapter.ts';
import type { ProgressReporter } from './host.ts';

export const USE_LITE_DIR = 'models/use-lite/';
/** Written by `npm run models:use-onnx` (gitignored); only the WebGPU path reads it. */
export const USE_LITE_ONNX_DIR = 'models/use-lite-onnx/';
const USE_LITE_ONNX_FILE = 'model.onnx';
const TFJS_WASM_DIR = `${import.meta.env.BASE_URL}vendor/tfjs/`;
const ORT_JSEP_FILES = {
  mjs: `${import.meta.env.BASE_URL}vendor/ort/ort-wasm-simd-threaded.jsep.mjs`,
  wasm: `${import.meta.env.BASE_URL}vendor/ort/ort-wasm-simd-threaded.jsep.wasm`,
};

export interface LoadedUseLite {
  embedder: UseLiteEmbedder;
  notes: string[];
}

export interface UseLiteLoadOptions {
  /** WASM threads (only when cross-origin isolated); default 1, see startBackend. */
  threads?: number;
  batchSize?: number;
}

async function startTfjsWasm(threadsWanted?: number): Promise<void> {
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  wasm.setWasmPaths(TFJS_WASM_DIR);
  // One thread unless asked: TF.js's threaded build starts its pthread workers from a blob of its
  // own factory, which fails inside a bundled module worker (the worker dies with an uncaught
  // ErrorEvent; seen in Chromium 156, tests/e2e/use-lite-parity.spec.ts), so the app does not risk
  // it. Threads also need SharedArrayBuffer, which only a cross-origin isolated page has.
  const threads = self.crossOriginIsolated ? Math.max(1, threadsWanted ?? 1) : 1;
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', threads > 1);
  if (threads > 1) wasm.setThreadsCount(threads);
  if (!(await tf.setBackend('wasm'))) throw new Error('the TF.js WASM backend failed to start');
  await tf.ready();
}

/**
 * The WebGPU path runs the converted ONNX graph on onnxruntime-web, not the TF.js graph on TF.js's
 * WebGPU backend: on Chromium 156's software adapter TF.js's readback fails ("Failed to execute
 * 'mapAsync' on 'GPUBuffer': A valid external Instance reference no longer exists", also when the
 * worker probes no adapter of its own), while ONNX Runtime's WebGPU runs and matches WASM within
 * 1e-4. ONNX Runtime's WebGPU needs its JSEP build; the asyncify build the transformer workers use
 * has no JSEP. The converted model is only served when `npm run models:use-onnx` ran before the
 * build, so a missing file is a fallback with a note, not an error.
 */
async function startOnnxWebGpu(report: ProgressReporter): Promise<UseGraphRunner> {
  const model = new Uint8Array(
    await fetchNamed(USE_LITE_ONNX_DIR, USE_LITE_ONNX_FILE, report, 'npm run models:use-onnx'),
  );
  const ort = await import('onnxruntime-web');
  ort.env.wasm.wasmPaths = ORT_JSEP_FILES;
  return loadUseOnnxGraph(ort, model, {
    executionProviders: ['webgpu'],
    graphOptimizationLevel: 'all',
  });
}

async function fetchNamed(
  dir: string,
  file: string,
  report: ProgressReporter,
  generatedBy?: string,
): Promise<ArrayBuffer> {
  const url = new URL(import.meta.env.BASE_URL + dir + file, self.location.origin);
  try {
    return await fetchWithProgress(
      url,
      (loaded, total) =>
        report({ stage: 'loading sentence encoder', file, loaded, ...(total ? { total } : {}) }),
      generatedBy,
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

export async function loadUseLite(
  choice: DeviceChoice,
  report: ProgressReporter,
  options: UseLiteLoadOptions = {},
): Promise<LoadedUseLite> {
  const resolution = await resolveDevice(choice);
  const notes = [...(resolution.note ? [resolution.note] : [])];
  const vocabulary = parseJson(
    USE_LITE_VOCAB_FILE,
    await fetchNamed(USE_LITE_DIR, USE_LITE_VOCAB_FILE, report),
  );
  if (!Array.isArray(vocabulary))
    throw new Error(`${USE_LITE_VOCAB_FILE} is not a vocabulary list.`);
  const tokenizer = new Tokenizer(vocabulary as [string, number][]);
  const start = async (device: DeviceResolution, run: UseGraphRunner) => {
    report({ stage: 'starting sentence encoder' });
    const embedder = new UseLiteEmbedder(
      `use-lite · ${deviceLabel(device)}`,
      tokenizer,
      run,
      options.batchSize === undefined ? {} : { batchSize: options.batchSize },
    );
    // The first call compiles the graph's kernels (shaders on WebGPU): paid here, not by the case.
    await embedder.embed(['Warm-up sentence.']);
    return embedder;
  };
  if (resolution.device === 'webgpu') {
    try {
      return { embedder: await start(resolution, await startOnnxWebGpu(report)), notes };
    } catch (error) {
      // A WebGPU that cannot run the graph (or a build without the converted model) must not cost
      // the user the encoder: the TF.js files on WASM. The adapter's note ("WebGPU runs on a
      // software adapter") no longer describes the run.
      notes.splice(
        0,
        notes.length,
        `WebGPU could not run the encoder (${messageOf(error)}): using WASM.`,
      );
    }
  }
  await startTfjsWasm(options.threads);
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
  const run = await loadUseGraph({ modelJson, weights: weights.buffer });
  return { embedder: await start({ device: 'wasm', fallbackAdapter: false }, run), notes };
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
    notes,
    async embed(sentences, signal) {
      const { vectors, windowed } = await embed(sentences, signal);
      const note = windowedNote(windowed);
      if (note && !notes.includes(note)) notes.push(note);
      return vectors;
    },
  };
}
