/**
 * USE-lite with int8 weights (the default encoder): the converted graph with every weight matrix
 * stored as int8 and multiplied by integer kernels, activations quantised per token at run time
 * (`scripts/models/quantize_int8.py` says how and why). 7 MB instead of 28, about twice as fast on
 * WASM, and its vectors within cosine 0.998 of the fp32 graph's on real sentences
 * (`npm run int8:agreement` measures that, and every figure the encoder metrics quote).
 *
 * The files, served from `models/use-lite/` (written by `npm run assets`):
 */
export const USE_LITE_INT8_FILES = {
  graph: 'int8.onnx',
  /** The name the graph's external data gives: ONNX Runtime is handed the bytes under it. */
  weights: 'use-lite-int8-weights.bin',
  /** Sizes and SHA-256 of the other two: a truncated or corrupt download is named, not run. */
  manifest: 'int8.json',
} as const;

export type UsePrecision = 'int8' | 'fp32';

/** What the int8 model downloads: graph, weights, manifest and the tokenizer's vocab.json. */
export const USE_LITE_INT8_BYTES = 7_604_363;

/** The precision part of a backend name: "use-lite int8 · WASM"; fp32 keeps the old name. */
export function useLiteName(precision: UsePrecision): string {
  return precision === 'int8' ? 'use-lite int8' : 'use-lite';
}

export interface Int8LayoutBlock {
  offset: number;
  length: number;
}

/** `scripts/models/use-lite-int8-layout.json`: where each quantised tensor lies in the file. */
export interface Int8Layout {
  location: string;
  bytes: number;
  steps: number;
  tensors: {
    source: string;
    shardOffset: number;
    shape: [number, number];
    reducedAxis: 0 | 1;
    /** The stored byte is q + shift: 128 for the weight matrices (uint8, zero point 128), else 0. */
    shift: 0 | 128;
    int8: Int8LayoutBlock;
    scale: Int8LayoutBlock;
  }[];
}

export type Int8Manifest = Record<string, { bytes: number; sha256: string }>;

function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Throws, naming the file, when a downloaded file is not the one the manifest describes (a
 * truncated download, a proxy's error page, a file from another build).
 */
export async function checkInt8File(
  manifest: unknown,
  file: string,
  bytes: Uint8Array,
): Promise<void> {
  const expected = (manifest as Partial<Int8Manifest> | null)?.[file];
  if (!expected || typeof expected.bytes !== 'number' || typeof expected.sha256 !== 'string') {
    throw new Error(`${USE_LITE_INT8_FILES.manifest} does not describe ${file}.`);
  }
  if (bytes.byteLength !== expected.bytes) {
    throw new Error(
      `${file} has ${bytes.byteLength} bytes, ${expected.bytes} expected (a truncated or other file).`,
    );
  }
  const digest = hex(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  if (digest !== expected.sha256) {
    throw new Error(
      `${file} is corrupt: its SHA-256 is not the one ${USE_LITE_INT8_FILES.manifest} gives.`,
    );
  }
}

/** ONNX Runtime's session option that supplies the int8 weights to the graph. */
export function int8Weights(weights: Uint8Array): {
  externalData: { path: string; data: Uint8Array }[];
} {
  return { externalData: [{ path: USE_LITE_INT8_FILES.weights, data: weights }] };
}
