/**
 * Node-only: USE-lite's ONNX route, the converted graph (`npm run models:use-onnx` writes it to
 * `public/models/use-lite-onnx/model.onnx`) on onnxruntime-node's CPU provider, with Google's
 * tokenizer from the TF.js model's `vocab.json`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import { Tokenizer } from '@tensorflow-models/universal-sentence-encoder';
import { repoRoot } from './external-data.ts';
import { loadUseOnnxGraph } from '../metrics/semantic/use-lite-onnx.ts';
import { UseLiteEmbedder, type UseLiteOptions } from '../metrics/semantic/use-lite.ts';
import { USE_MODEL_DIR } from './load-use.ts';

export const USE_ONNX_MODEL_PATH = resolve(repoRoot, 'public/models/use-lite-onnx/model.onnx');

export interface UseOnnxOptions extends UseLiteOptions {
  /** Threads for one operator (onnxruntime's intra-op pool); 1 unless told. */
  threads?: number;
  modelPath?: string;
}

export function readUseOnnxModel(path = USE_ONNX_MODEL_PATH): Uint8Array {
  if (!existsSync(path)) {
    throw new Error(
      `USE-lite ONNX model missing: ${path}. Run \`npm run models:use-onnx\` to convert it.`,
    );
  }
  return readFileSync(path);
}

export async function loadUseOnnxEmbedder(options: UseOnnxOptions = {}): Promise<UseLiteEmbedder> {
  const threads = options.threads ?? 1;
  const run = await loadUseOnnxGraph(ort, readUseOnnxModel(options.modelPath), {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  } satisfies ort.InferenceSession.SessionOptions);
  const vocabulary = JSON.parse(readFileSync(join(USE_MODEL_DIR, 'vocab.json'), 'utf8'));
  return new UseLiteEmbedder(
    `use-lite · onnxruntime-node (${threads} thread${threads === 1 ? '' : 's'})`,
    new Tokenizer(vocabulary),
    run,
    options,
  );
}
