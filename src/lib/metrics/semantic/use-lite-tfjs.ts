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

function mostCommon(values: readonly number[]): number | undefined {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
}

const DTYPE_BYTES: Record<string, number> = { float32: 4, int32: 4, bool: 1 };

/**
 * Checks the files of a graph model before TF.js sees them, so a broken download is reported by the
 * name of the file at fault rather than as a shape error deep in the graph: `model.json` must be a
 * graph model, and the shards' bytes must add up to what its weight specs describe. TF.js cuts the
 * weights into shards of one size, the last one shorter, so a shard of another size is the one named.
 */
export function checkUseModelFiles(
  modelJson: unknown,
  shards: readonly { path: string; bytes: number }[],
): asserts modelJson is UseModelFiles['modelJson'] {
  const json = modelJson as Partial<UseModelFiles['modelJson']> | null;
  if (
    !json ||
    typeof json !== 'object' ||
    !json.modelTopology ||
    !Array.isArray(json.weightsManifest)
  ) {
    throw new Error('model.json is not a TF.js graph model (no modelTopology or weightsManifest).');
  }
  const expected = json.weightsManifest
    .flatMap((group) => group.weights as { shape: number[]; dtype: string }[])
    .reduce((sum, w) => sum + w.shape.reduce((a, b) => a * b, 1) * (DTYPE_BYTES[w.dtype] ?? 4), 0);
  const total = shards.reduce((sum, s) => sum + s.bytes, 0);
  if (total === expected) return;
  const shardSize = mostCommon(shards.slice(0, -1).map((s) => s.bytes));
  const odd =
    shards.find((s, i) => i < shards.length - 1 && s.bytes !== shardSize) ??
    shards[shards.length - 1];
  throw new Error(
    `${odd?.path ?? 'the weight shards'} has ${odd?.bytes ?? 0} bytes: the weights add up to ${total} bytes, model.json describes ${expected} (a truncated or wrong file).`,
  );
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
