/**
 * USE-lite in a worker: TF.js on WebGPU when the browser has a hardware adapter, else WASM (with
 * SIMD; see startBackend about threads), the model read from the app's own
 * origin (`models/use-lite/`, copied there by `npm run assets`). TF.js is imported here only, and
 * this module only through a dynamic import, so the lexical and NER workers do not bundle it.
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
  USE_LITE_MODEL_FILE,
  USE_LITE_VOCAB_FILE,
  windowedNote,
} from '../src/lib/metrics/semantic/use-lite.ts';
import { checkUseModelFiles, loadUseGraph } from '../src/lib/metrics/semantic/use-lite-tfjs.ts';
import { cachedEmbedding, SentenceVectorCache } from '../src/lib/metrics/semantic/vector-cache.ts';
import type { SentenceEmbedder } from '../src/lib/metrics/semantic/backends.ts';
import { fetchWithProgress } from './fetch-progress.ts';
import {
  deviceLabel,
  resolveDevice,
  type DeviceResolution,
  type ResolvedDevice,
} from './gpu-adapter.ts';
import type { ProgressReporter } from './host.ts';

export const USE_LITE_DIR = 'models/use-lite/';
const TFJS_WASM_DIR = `${import.meta.env.BASE_URL}vendor/tfjs/`;

export interface LoadedUseLite {
  embedder: UseLiteEmbedder;
  notes: string[];
}

export interface UseLiteLoadOptions {
  /** WASM threads (only when cross-origin isolated); default 1, see startBackend. */
  threads?: number;
  batchSize?: number;
}

async function startBackend(device: ResolvedDevice, threadsWanted?: number): Promise<string[]> {
  if (device === 'webgpu') {
    await import('@tensorflow/tfjs-backend-webgpu');
    if (await tf.setBackend('webgpu')) return [];
    // Registered but failed to start (no device from the adapter): WASM still works.
  }
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
  return device === 'webgpu' ? ['WebGPU failed to start here: using WASM.'] : [];
}

async function fetchNamed(file: string, report: ProgressReporter): Promise<ArrayBuffer> {
  const url = new URL(import.meta.env.BASE_URL + USE_LITE_DIR + file, self.location.origin);
  try {
    return await fetchWithProgress(url, (loaded, total) =>
      report({ stage: 'loading sentence encoder', file, loaded, ...(total ? { total } : {}) }),
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
  notes.push(...(await startBackend(resolution.device, options.threads)));
  const modelJson = parseJson(USE_LITE_MODEL_FILE, await fetchNamed(USE_LITE_MODEL_FILE, report));
  const paths = (
    (modelJson as { weightsManifest?: { paths?: string[] }[] }).weightsManifest ?? []
  ).flatMap((group) => group.paths ?? []);
  const shards: { path: string; data: ArrayBuffer }[] = [];
  for (const path of paths) shards.push({ path, data: await fetchNamed(path, report) });
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
  const vocabulary = parseJson(USE_LITE_VOCAB_FILE, await fetchNamed(USE_LITE_VOCAB_FILE, report));
  if (!Array.isArray(vocabulary))
    throw new Error(`${USE_LITE_VOCAB_FILE} is not a vocabulary list.`);
  const tokenizer = new Tokenizer(vocabulary as [string, number][]);
  const start = async (device: DeviceResolution) => {
    report({ stage: 'starting sentence encoder' });
    const run = await loadUseGraph({ modelJson, weights: weights.buffer });
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
  const wasm: DeviceResolution = { device: 'wasm', fallbackAdapter: false };
  if (tf.getBackend() !== 'webgpu') return { embedder: await start(wasm), notes };
  try {
    return { embedder: await start(resolution), notes };
  } catch (error) {
    // A WebGPU that starts but cannot run the graph (seen: TF.js's readback on Chromium's software
    // adapter fails with "A valid external Instance reference no longer exists") must not cost
    // the user the encoder: the same files on WASM.
    await startBackend('wasm', options.threads);
    return {
      embedder: await start(wasm),
      // The adapter's note ("WebGPU runs on a software adapter") no longer describes the run.
      notes: [
        ...notes.filter((note) => note !== resolution.note),
        `WebGPU could not run the encoder (${messageOf(error)}): using WASM.`,
      ],
    };
  }
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
