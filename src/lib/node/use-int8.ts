/**
 * Node-only: USE-lite's int8 model from files already here. The graph
 * (`scripts/models/use-lite-int8-graph.onnx`) and the layout of its weights file
 * (`use-lite-int8-layout.json`) are committed, made by `scripts/models/quantize_int8.py`; the
 * weights file itself (7 MB) is rebuilt from the TF.js shards in npm (the same bytes the Python
 * converter writes: a test compares them), so no generated binary is committed and no Python is
 * needed to start the app.
 *
 * Quantisation, as in quantize_int8.py: per reduced axis, scale = float32(max |w| / 127) (1 where
 * the maximum is 0), q = round-half-even(w / scale) clamped to ±127, in float64 arithmetic on the
 * float32 weights: numpy's `rint` on the same quotients, so the bytes match exactly.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { repoRoot } from './external-data.ts';
import {
  USE_LITE_INT8_FILES,
  type Int8Manifest,
  type Int8Layout,
} from '../metrics/semantic/use-lite-int8.ts';

export const USE_INT8_GRAPH_PATH = resolve(repoRoot, 'scripts/models/use-lite-int8-graph.onnx');
export const USE_INT8_LAYOUT_PATH = resolve(repoRoot, 'scripts/models/use-lite-int8-layout.json');

export function readInt8Layout(path = USE_INT8_LAYOUT_PATH): Int8Layout {
  return JSON.parse(readFileSync(path, 'utf8')) as Int8Layout;
}

/** numpy's rint: to nearest, ties to even. */
function roundHalfEven(x: number): number {
  const rounded = Math.round(x);
  return rounded - x === 0.5 && rounded % 2 !== 0 ? rounded - 1 : rounded;
}

/**
 * The int8 weights file from the TF.js shards concatenated in manifest order (the bytes
 * `readUseFiles().weights` holds).
 */
export function buildInt8Weights(layout: Int8Layout, shards: Uint8Array): Uint8Array {
  const out = new Uint8Array(layout.bytes);
  const view = new DataView(shards.buffer, shards.byteOffset, shards.byteLength);
  for (const tensor of layout.tensors) {
    const [rows, columns] = tensor.shape;
    if (
      tensor.int8.length !== rows * columns ||
      tensor.shardOffset + rows * columns * 4 > shards.byteLength
    ) {
      throw new Error(`use-lite int8 layout: ${tensor.source} does not fit the shards.`);
    }
    const weight = (r: number, c: number) =>
      view.getFloat32(tensor.shardOffset + (r * columns + c) * 4, true);
    const perColumn = tensor.reducedAxis === 0;
    const scales = new Float32Array(perColumn ? columns : rows);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < columns; c++) {
        const at = perColumn ? c : r;
        scales[at] = Math.max(scales[at], Math.abs(weight(r, c)));
      }
    }
    for (let i = 0; i < scales.length; i++) {
      scales[i] = scales[i] > 0 ? Math.fround(scales[i] / layout.steps) : 1;
    }
    const quantised = new Uint8Array(out.buffer, tensor.int8.offset, tensor.int8.length);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < columns; c++) {
        const q = roundHalfEven(weight(r, c) / scales[perColumn ? c : r]);
        // the stored byte: q, or q + 128 as uint8 (quantize_int8.py's WEIGHT_SHIFT)
        quantised[r * columns + c] =
          Math.max(-layout.steps, Math.min(layout.steps, q)) + tensor.shift;
      }
    }
    if (tensor.scale.length !== scales.byteLength) {
      throw new Error(`use-lite int8 layout: ${tensor.source} has ${scales.length} scales.`);
    }
    out.set(new Uint8Array(scales.buffer), tensor.scale.offset);
  }
  return out;
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The manifest the worker checks the two files against before it runs them. */
export function int8Manifest(graph: Uint8Array, weights: Uint8Array): Int8Manifest {
  return {
    [USE_LITE_INT8_FILES.graph]: { bytes: graph.byteLength, sha256: sha256(graph) },
    [USE_LITE_INT8_FILES.weights]: { bytes: weights.byteLength, sha256: sha256(weights) },
  };
}

function writeIfChanged(path: string, data: Uint8Array | string): boolean {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  if (existsSync(path) && Buffer.compare(readFileSync(path), bytes) === 0) return false;
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, bytes);
  renameSync(temporary, path);
  return true;
}

/**
 * Writes the int8 model's three files (graph, weights, manifest) into `dir` unless they are
 * already there with these bytes; returns the graph's path (onnxruntime-node reads the weights
 * file beside it, by the name the graph gives).
 */
export function writeInt8Model(
  dir: string,
  shards: Uint8Array,
): { graphPath: string; changed: boolean } {
  const graph = readFileSync(USE_INT8_GRAPH_PATH);
  const weights = buildInt8Weights(readInt8Layout(), shards);
  mkdirSync(dir, { recursive: true });
  let changed = writeIfChanged(join(dir, USE_LITE_INT8_FILES.weights), weights);
  changed = writeIfChanged(join(dir, USE_LITE_INT8_FILES.graph), graph) || changed;
  changed =
    writeIfChanged(
      join(dir, USE_LITE_INT8_FILES.manifest),
      JSON.stringify(int8Manifest(graph, weights), null, 1) + '\n',
    ) || changed;
  return { graphPath: join(dir, USE_LITE_INT8_FILES.graph), changed };
}
