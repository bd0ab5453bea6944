/**
 * The GloVe asset `public/embeddings/glove-100d.bin`: its binary format, the encoder the build
 * script uses (quantisation and the vocabulary's principal components included) and the decoder
 * the worker and Node use. Browser-safe: no Node imports. Apart from the SIF embedder
 * (glove-sif.ts) because the format is read and written by code that never embeds a sentence.
 *
 * ## Asset format (version 1, little-endian, every section 4-byte aligned)
 *
 * | offset | type      | field                                                               |
 * | ------ | --------- | ------------------------------------------------------------------- |
 * | 0      | 4 × u8    | magic `SLGV`                                                        |
 * | 4      | u32       | format version (1)                                                  |
 * | 8      | u32       | header length in bytes (64)                                         |
 * | 12     | u32       | build stamp: hash of builder settings + source package (up-to-date) |
 * | 16     | u32       | vocabulary size N                                                   |
 * | 20     | u32       | dimensions D                                                        |
 * | 24     | u32       | size of the source vocabulary (Zipf normalisation)                  |
 * | 28     | f32       | Zipf–Mandelbrot offset k                                            |
 * | 32     | f32       | default SIF a                                                       |
 * | 36     | u32       | quantisation: 1 = int8, one symmetric float32 scale per vector      |
 * | 40     | u32       | byte length of the word list                                        |
 * | 44     | u32       | K, number of stored global principal components                     |
 * | 48–63  |           | reserved (0)                                                        |
 *
 * Then: the words (UTF-8, `\n`-separated, in frequency order), the source frequency rank of each
 * word (N × u32, 1-based: rank in GloVe's frequency-ordered vocabulary), the per-vector scales
 * (N × f32), the vocabulary mean (D × f32), K global principal components of the mean-centred
 * vocabulary (K × D × f32, unit length), and the quantised vectors (N × D × i8).
 *
 * Quantisation: `q = round(x / s)` with `s = max|x| / 127` per vector, so every component is off by
 * at most `s / 2` (about 0.4 % of the vector's largest component). Per-vector rather than per-dim
 * scales because GloVe norms vary with frequency.
 */
/**
 * Where the app serves the asset, relative to its base URL. The build names it by its content
 * (`assets/glove-100d-<hash>.bin`, vite.config.ts), so that a new vocabulary is a new URL and never
 * a stale copy in the models cache; dev (and Node) use public/'s name.
 */
declare const __SUMLENS_GLOVE_PATH__: string | undefined;
export const GLOVE_ASSET_PATH =
  typeof __SUMLENS_GLOVE_PATH__ !== 'undefined'
    ? __SUMLENS_GLOVE_PATH__
    : 'embeddings/glove-100d.bin';

export const GLOVE_MAGIC = 'SLGV';
export const GLOVE_FORMAT_VERSION = 1;
export const GLOVE_HEADER_BYTES = 64;
export const QUANT_INT8_PER_VECTOR = 1;

/** Everything in the asset, decoded; vectors stay int8 (dequantised on use). */
export interface GloveAsset {
  formatVersion: number;
  buildStamp: number;
  dims: number;
  /** Words in frequency order; `index` maps a word to its row. */
  words: string[];
  index: Map<string, number>;
  /** 1-based frequency rank in the source vocabulary, one per row. */
  ranks: Uint32Array;
  scales: Float32Array;
  vectors: Int8Array;
  /** Mean of the (float) vocabulary vectors. */
  mean: Float32Array;
  /** Top principal components of the mean-centred vocabulary, unit length. */
  components: Float32Array[];
  sourceVocabSize: number;
  zipfK: number;
  defaultSifA: number;
}

/** What the builder hands to the encoder. */
export interface GloveAssetInput {
  words: readonly string[];
  ranks: readonly number[];
  /** One float vector per word, all of length `dims`. */
  vectors: readonly ArrayLike<number>[];
  dims: number;
  sourceVocabSize: number;
  zipfK: number;
  sifA: number;
  /** Global principal components to store (0 to skip). */
  components: number;
  buildStamp: number;
}

const align4 = (n: number): number => (n + 3) & ~3;

/** Quantise one vector: int8 values and the scale that maps them back. */
export function quantizeVector(
  v: ArrayLike<number>,
  out: Int8Array,
  offset = 0,
  length = v.length,
): number {
  let max = 0;
  for (let i = 0; i < length; i++) max = Math.max(max, Math.abs(v[i]));
  const scale = max > 0 ? max / 127 : 1;
  for (let i = 0; i < length; i++) {
    out[offset + i] = Math.max(-127, Math.min(127, Math.round(v[i] / scale)));
  }
  return scale;
}

/** Mean and the top `k` principal components (power iteration with deflation) of `vectors`. */
export function principalComponents(
  vectors: readonly ArrayLike<number>[],
  dims: number,
  k: number,
): { mean: Float64Array; components: Float64Array[] } {
  const n = vectors.length;
  const mean = new Float64Array(dims);
  for (const v of vectors) for (let d = 0; d < dims; d++) mean[d] += v[d] / n;
  const cov = new Float64Array(dims * dims);
  const c = new Float64Array(dims);
  for (const v of vectors) {
    for (let d = 0; d < dims; d++) c[d] = v[d] - mean[d];
    for (let i = 0; i < dims; i++) {
      const ci = c[i];
      for (let j = i; j < dims; j++) cov[i * dims + j] += ci * c[j];
    }
  }
  for (let i = 0; i < dims; i++) for (let j = 0; j < i; j++) cov[i * dims + j] = cov[j * dims + i];
  const components: Float64Array[] = [];
  for (let comp = 0; comp < Math.min(k, dims); comp++) {
    let u = new Float64Array(dims).map((_, i) => 1 + ((i * 7919) % 13) / 13); // fixed start
    for (let iter = 0; iter < 500; iter++) {
      const next = new Float64Array(dims);
      for (let i = 0; i < dims; i++) {
        let s = 0;
        for (let j = 0; j < dims; j++) s += cov[i * dims + j] * u[j];
        next[i] = s;
      }
      for (const prev of components) {
        const dot = prev.reduce((acc, x, i) => acc + x * next[i], 0);
        for (let i = 0; i < dims; i++) next[i] -= dot * prev[i];
      }
      const norm = Math.hypot(...next);
      if (norm === 0) break;
      for (let i = 0; i < dims; i++) next[i] /= norm;
      const delta = next.reduce((acc, x, i) => acc + Math.abs(x - u[i]), 0);
      u = next;
      if (delta < 1e-10) break;
    }
    // Fix the sign so the output is deterministic.
    const big = u.reduce((best, x, i) => (Math.abs(x) > Math.abs(u[best]) ? i : best), 0);
    if (u[big] < 0) u = u.map((x) => -x);
    components.push(u);
  }
  return { mean, components };
}

/** Serialise an asset (format above). */
export function encodeGloveAsset(input: GloveAssetInput): Uint8Array {
  const { words, ranks, vectors, dims } = input;
  const n = words.length;
  if (ranks.length !== n || vectors.length !== n) throw new Error('words, ranks, vectors differ');
  for (const w of words) if (w.includes('\n') || w.length === 0) throw new Error(`bad word ${w}`);
  const wordBytes = new TextEncoder().encode(words.join('\n'));
  const { mean, components } = principalComponents(vectors, dims, input.components);
  const k = components.length;

  const wordsAt = GLOVE_HEADER_BYTES;
  const ranksAt = align4(wordsAt + wordBytes.length);
  const scalesAt = ranksAt + 4 * n;
  const meanAt = scalesAt + 4 * n;
  const componentsAt = meanAt + 4 * dims;
  const vectorsAt = componentsAt + 4 * dims * k;
  const total = align4(vectorsAt + n * dims);

  const buf = new ArrayBuffer(total);
  const bytes = new Uint8Array(buf);
  const view = new DataView(buf);
  bytes.set(new TextEncoder().encode(GLOVE_MAGIC), 0);
  view.setUint32(4, GLOVE_FORMAT_VERSION, true);
  view.setUint32(8, GLOVE_HEADER_BYTES, true);
  view.setUint32(12, input.buildStamp >>> 0, true);
  view.setUint32(16, n, true);
  view.setUint32(20, dims, true);
  view.setUint32(24, input.sourceVocabSize, true);
  view.setFloat32(28, input.zipfK, true);
  view.setFloat32(32, input.sifA, true);
  view.setUint32(36, QUANT_INT8_PER_VECTOR, true);
  view.setUint32(40, wordBytes.length, true);
  view.setUint32(44, k, true);
  bytes.set(wordBytes, wordsAt);
  const q = new Int8Array(buf, vectorsAt, n * dims);
  for (let i = 0; i < n; i++) {
    const v = vectors[i];
    if (v.length < dims) throw new Error(`vector of ${words[i]} has ${v.length} < ${dims} values`);
    view.setUint32(ranksAt + 4 * i, ranks[i], true);
    view.setFloat32(scalesAt + 4 * i, quantizeVector(v, q, i * dims, dims), true);
  }
  for (let d = 0; d < dims; d++) view.setFloat32(meanAt + 4 * d, mean[d], true);
  components.forEach((u, c) => {
    for (let d = 0; d < dims; d++) view.setFloat32(componentsAt + 4 * (c * dims + d), u[d], true);
  });
  return bytes;
}

/** Read just the header fields the builder needs for its up-to-date check. */
export function readGloveHeader(
  data: ArrayBuffer | Uint8Array,
): { formatVersion: number; buildStamp: number; vocabSize: number; dims: number } | null {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  if (bytes.length < GLOVE_HEADER_BYTES) return null;
  if (new TextDecoder().decode(bytes.subarray(0, 4)) !== GLOVE_MAGIC) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    formatVersion: view.getUint32(4, true),
    buildStamp: view.getUint32(12, true),
    vocabSize: view.getUint32(16, true),
    dims: view.getUint32(20, true),
  };
}

/** Parse an asset fetched by the browser or read from disk. Throws a readable Error if invalid. */
export function parseGloveAsset(data: ArrayBuffer | Uint8Array): GloveAsset {
  // Copy into an aligned buffer of its own when handed a view at an odd offset (Node Buffers).
  const bytes =
    data instanceof Uint8Array
      ? data.byteOffset % 4 === 0
        ? data
        : data.slice()
      : new Uint8Array(data);
  const head = readGloveHeader(bytes);
  if (!head) throw new Error('Not a SumLens GloVe asset (bad magic or too short).');
  if (head.formatVersion !== GLOVE_FORMAT_VERSION) {
    throw new Error(
      `GloVe asset has format version ${head.formatVersion}, expected ${GLOVE_FORMAT_VERSION}: rebuild it with \`npm run assets\`.`,
    );
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerBytes = view.getUint32(8, true);
  const n = head.vocabSize;
  const dims = head.dims;
  const quant = view.getUint32(36, true);
  if (quant !== QUANT_INT8_PER_VECTOR) throw new Error(`Unknown quantisation ${quant}.`);
  const wordsLength = view.getUint32(40, true);
  const k = view.getUint32(44, true);
  const ranksAt = align4(headerBytes + wordsLength);
  const scalesAt = ranksAt + 4 * n;
  const meanAt = scalesAt + 4 * n;
  const componentsAt = meanAt + 4 * dims;
  const vectorsAt = componentsAt + 4 * dims * k;
  if (bytes.byteLength < vectorsAt + n * dims) throw new Error('GloVe asset is truncated.');

  const words = new TextDecoder()
    .decode(bytes.subarray(headerBytes, headerBytes + wordsLength))
    .split('\n');
  if (words.length !== n) throw new Error(`GloVe asset lists ${words.length} words, header ${n}.`);
  const index = new Map<string, number>();
  words.forEach((w, i) => {
    if (!index.has(w)) index.set(w, i);
  });
  const base = bytes.byteOffset;
  const components: Float32Array[] = [];
  for (let c = 0; c < k; c++) {
    components.push(new Float32Array(bytes.buffer, base + componentsAt + 4 * c * dims, dims));
  }
  return {
    formatVersion: head.formatVersion,
    buildStamp: head.buildStamp,
    dims,
    words,
    index,
    ranks: new Uint32Array(bytes.buffer, base + ranksAt, n),
    scales: new Float32Array(bytes.buffer, base + scalesAt, n),
    vectors: new Int8Array(bytes.buffer, base + vectorsAt, n * dims),
    mean: new Float32Array(bytes.buffer, base + meanAt, dims),
    components,
    sourceVocabSize: view.getUint32(24, true),
    zipfK: view.getFloat32(28, true),
    defaultSifA: view.getFloat32(32, true),
  };
}
