/**
 * Node-only: USE-lite on onnxruntime-node's CPU provider (native kernels, an intra-op thread pool),
 * with Google's tokenizer from the TF.js model's `vocab.json`.
 *
 * By default the session is built from the bytes the WASM route reads: the committed graph
 * (`scripts/models/use-lite-graph.onnx`) with the TF.js weight shards handed over as external data
 * in memory, which onnxruntime-node takes as `externalData` buffers. So the native route needs no
 * converted copy of the weights, and its vectors agree with the WASM route's within ~6e-7.
 * `modelPath` loads another model file instead, read by onnxruntime itself, which finds the
 * model's external data files beside it: the full converted model (`npm run models:use-onnx`
 * writes `public/models/use-lite-onnx/model.onnx`) or a quantised one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import { Tokenizer } from '@tensorflow-models/universal-sentence-encoder';
import { repoRoot } from './external-data.ts';
import {
  loadUseOnnxGraph,
  shardWeights,
  useOnnxRunner,
} from '../metrics/semantic/use-lite-onnx.ts';
import {
  UseLiteEmbedder,
  type UseGraphRunner,
  type UseLiteOptions,
} from '../metrics/semantic/use-lite.ts';
import { readUseFiles, USE_GRAPH_PATH, USE_MODEL_DIR } from './load-use.ts';
import { int8Weights, useLiteName, type UsePrecision } from '../metrics/semantic/use-lite-int8.ts';
import { buildInt8Weights, readInt8Layout, USE_INT8_GRAPH_PATH } from './use-int8.ts';

export const USE_ONNX_MODEL_PATH = resolve(repoRoot, 'public/models/use-lite-onnx/model.onnx');

export interface UseOnnxOptions extends UseLiteOptions {
  /** Threads for one operator (onnxruntime's intra-op pool); 1 unless told. */
  threads?: number;
  /** fp32 unless told: int8 is the committed int8 graph with weights built from the shards. */
  precision?: UsePrecision;
  /** A model file for onnxruntime to read, instead of the committed graph and the shards. */
  modelPath?: string;
}

/** A native embedder, saying how it runs (the CLI prints it; the backend string names less). */
export interface UseOnnxEmbedder extends UseLiteEmbedder {
  readonly precision: UsePrecision;
  readonly threads: number;
}

export function readUseOnnxModel(path = USE_ONNX_MODEL_PATH): Uint8Array {
  if (!existsSync(path)) {
    throw new Error(
      `USE-lite ONNX model missing: ${path}. Run \`npm run models:use-onnx\` to convert it.`,
    );
  }
  return readFileSync(path);
}

/**
 * The backend string names runtime and precision but not the thread count: one thread and several
 * gave bit-identical vectors on SummEval sentences (1 and 2 threads compared; batch size does
 * change the last bits), and a run on 2 worker threads × 1 thread must read the same as the serial
 * run on 2 threads, in a diff and against a --baseline alike.
 */
export function useOnnxBackend(precision: UsePrecision): string {
  // "CPU …" is the device part the validity lookup drops: the rows measured on WASM apply.
  return `${useLiteName(precision)} · CPU (onnxruntime-node)`;
}

export async function loadUseOnnxEmbedder(options: UseOnnxOptions = {}): Promise<UseOnnxEmbedder> {
  const threads = options.threads ?? 1;
  const precision = options.precision ?? 'fp32';
  const sessionOptions: ort.InferenceSession.SessionOptions = {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    // A spinning pool keeps its cores busy after each run, and the CLI's runs are separated by
    // the metrics' JavaScript: 300 SummEval sentences on 2 threads took 1.0 s of CPU without
    // spinning and 1.4 s with it, and were no faster with it on a shared machine.
    ...(threads > 1 ? { extra: { session: { intra_op: { allow_spinning: '0' } } } } : {}),
  };
  const modelPath = options.modelPath;
  let run: UseGraphRunner;
  let vocabulary: [string, number][];
  if (modelPath === undefined) {
    const files = readUseFiles();
    const graphPath = precision === 'int8' ? USE_INT8_GRAPH_PATH : USE_GRAPH_PATH;
    if (!existsSync(graphPath)) {
      throw new Error(`USE-lite ONNX graph missing: ${graphPath} (npm run models:use-onnx).`);
    }
    const shards = new Uint8Array(files.weights);
    run = await loadUseOnnxGraph(ort, readFileSync(graphPath), {
      ...sessionOptions,
      ...(precision === 'int8'
        ? int8Weights(buildInt8Weights(readInt8Layout(), shards))
        : shardWeights(shards)),
    });
    vocabulary = files.vocabulary;
  } else {
    if (!existsSync(modelPath)) {
      throw new Error(
        precision === 'fp32'
          ? `USE-lite ONNX model missing: ${modelPath}. Run \`npm run models:use-onnx\` to convert it.`
          : `USE-lite ${precision} model missing: ${modelPath}.`,
      );
    }
    // By path, not bytes: onnxruntime then reads external data files from the model's folder.
    run = useOnnxRunner(await ort.InferenceSession.create(modelPath, sessionOptions), ort.Tensor);
    vocabulary = JSON.parse(readFileSync(join(USE_MODEL_DIR, 'vocab.json'), 'utf8'));
  }
  const embedder = new UseLiteEmbedder(
    useOnnxBackend(precision),
    new Tokenizer(vocabulary),
    run,
    options,
  );
  return Object.assign(embedder, { precision, threads });
}
