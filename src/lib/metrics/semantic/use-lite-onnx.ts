/**
 * The ONNX route for USE-lite: the graph that `scripts/models/convert_use_onnx.py` converts from
 * the TF.js model, run by ONNX Runtime on the same sparse (indices, values) input. ONNX Runtime is
 * injected (onnxruntime-node in Node, onnxruntime-web in a browser worker): both expose the same
 * `InferenceSession` and `Tensor`, so this file imports neither.
 */
import type { UseGraphRunner } from './use-lite.ts';

/** The parts of an ONNX Runtime tensor this route reads. */
export interface OrtTensorLike {
  readonly data: unknown;
  readonly dims: readonly number[];
  dispose?(): void;
}

export interface OrtSessionLike {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Record<string, OrtTensorLike>): Promise<Record<string, OrtTensorLike>>;
}

/** `onnxruntime-node` or `onnxruntime-web` as imported (`import * as ort from ...`). */
export interface OrtModuleLike<Options> {
  InferenceSession: { create(model: Uint8Array, options?: Options): Promise<OrtSessionLike> };
  Tensor: new (type: 'int32', data: Int32Array, dims: readonly number[]) => OrtTensorLike;
}

/**
 * The graph alone (`scripts/models/use-lite-graph.onnx`, served as `models/use-lite/graph.onnx`):
 * its weight tensors are ONNX external data at offsets into the TF.js model's shards concatenated
 * in manifest order, handed to ONNX Runtime under this name. One copy of the weights serves both
 * runtimes.
 */
export const USE_LITE_GRAPH_FILE = 'graph.onnx';
export const USE_LITE_WEIGHTS_LOCATION = 'use-lite-weights.bin';

/** ONNX Runtime's session option that supplies the shards' bytes to the graph. */
export function shardWeights(weights: Uint8Array): {
  externalData: { path: string; data: Uint8Array }[];
} {
  return { externalData: [{ path: USE_LITE_WEIGHTS_LOCATION, data: weights }] };
}

const INPUTS = ['indices', 'values'];
const OUTPUT = 'embeddings';

export async function loadUseOnnxGraph<Options>(
  ort: OrtModuleLike<Options>,
  model: Uint8Array,
  options?: Options,
): Promise<UseGraphRunner> {
  const session = await ort.InferenceSession.create(model, options);
  return useOnnxRunner(session, ort.Tensor);
}

export function useOnnxRunner(
  session: OrtSessionLike,
  Tensor: OrtModuleLike<unknown>['Tensor'],
): UseGraphRunner {
  const missing = [...INPUTS.filter((name) => !session.inputNames.includes(name))];
  if (!session.outputNames.includes(OUTPUT)) missing.push(OUTPUT);
  if (missing.length) {
    throw new Error(
      `This ONNX model is not the converted USE-lite graph: it lacks ${missing.join(', ')} ` +
        `(inputs: ${session.inputNames.join(', ')}; outputs: ${session.outputNames.join(', ')}).`,
    );
  }
  // One run at a time: onnxruntime-web's WASM session fails a run started while another is in
  // flight ("Cannot read properties of null"), and the rows a batch keeps in flight, or the metrics
  // of one case, embed at the same moment.
  let queue: Promise<unknown> = Promise.resolve();
  const runOne = (feeds: Record<string, OrtTensorLike>) => {
    const next = queue.then(() => session.run(feeds));
    queue = next.catch(() => undefined);
    return next;
  };
  return async (ids) => {
    const count = ids.reduce((sum, list) => sum + list.length, 0);
    if (ids.length === 0) return [];
    // A list with no ids would give the graph a row it cannot see (rows come from the indices),
    // so the vectors would no longer line up with the lists.
    if (ids.some((list) => list.length === 0)) {
      throw new Error('USE-lite (ONNX) cannot encode an empty token list.');
    }
    const indices = new Int32Array(count * 2);
    const values = new Int32Array(count);
    let k = 0;
    ids.forEach((list, row) =>
      list.forEach((id, column) => {
        indices[2 * k] = row;
        indices[2 * k + 1] = column;
        values[k++] = id;
      }),
    );
    const feeds = {
      indices: new Tensor('int32', indices, [count, 2]),
      values: new Tensor('int32', values, [count]),
    };
    const outputs = await runOne(feeds);
    const output = outputs[OUTPUT];
    try {
      const data = output.data as Float32Array;
      const [rows, width] = output.dims;
      if (rows !== ids.length) {
        throw new Error(`The ONNX encoder returned ${rows} vectors for ${ids.length} inputs.`);
      }
      return ids.map((_, row) => data.slice(row * width, (row + 1) * width));
    } finally {
      for (const tensor of [...Object.values(feeds), ...Object.values(outputs)]) tensor.dispose?.();
    }
  };
}
