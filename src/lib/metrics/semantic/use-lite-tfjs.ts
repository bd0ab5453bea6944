/**
 * The TF.js route for USE-lite: the graph model from its `model.json` and shards, run with
 * `executeAsync` on sparse (indices, values) input as Google's loader does. Shared by the worker
 * (WASM or WebGPU backend) and Node (WASM backend); the caller picks and readies the TF.js backend.
 */
import * as tf from '@tensorflow/tfjs-core';
import * as tfconv from '@tensorflow/tfjs-converter';
import type { UseGraphRunner } from './use-lite.ts';

export interface UseModelFiles {
  /** model.json as parsed JSON. */
  modelJson: { modelTopology: unknown; weightsManifest: { paths: string[]; weights: unknown[] }[] };
  /** The weight shards' bytes, in the manifest's order, concatenated. */
  weights: ArrayBuffer;
}

export async function loadUseGraph(files: UseModelFiles): Promise<UseGraphRunner> {
  const model = await tfconv.loadGraphModel(
    tf.io.fromMemory({
      modelTopology: files.modelJson.modelTopology as tf.io.ModelJSON['modelTopology'],
      weightSpecs: files.modelJson.weightsManifest.flatMap(
        (group) => group.weights,
      ) as tf.io.WeightsManifestEntry[],
      weightData: files.weights,
    }),
  );
  return async (ids) => {
    const indices: number[] = [];
    const values: number[] = [];
    ids.forEach((list, row) =>
      list.forEach((id, column) => {
        indices.push(row, column);
        values.push(id);
      }),
    );
    const inputs = {
      indices: tf.tensor2d(indices, [values.length, 2], 'int32'),
      values: tf.tensor1d(values, 'int32'),
    };
    try {
      const output = (await model.executeAsync(inputs)) as tf.Tensor;
      const data = (await output.data()) as Float32Array;
      output.dispose();
      const width = data.length / ids.length;
      return ids.map((_, row) => data.slice(row * width, (row + 1) * width));
    } finally {
      inputs.indices.dispose();
      inputs.values.dispose();
    }
  };
}
