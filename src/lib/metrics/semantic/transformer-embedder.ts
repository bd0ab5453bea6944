/**
 * Sentence embeddings from a transformers.js `feature-extraction` pipeline (mean pooling over the
 * attention mask, L2-normalised: how sentence-transformers models such as all-MiniLM-L6-v2 are
 * meant to be used). The pipeline is injected, so the same class runs in a browser worker (WebGPU
 * or WASM) and in Node (onnxruntime-node) for tests.
 */
import type { EncoderLanguages, SentenceEmbedder } from './backends.ts';
import { throwIfAborted } from './backends.ts';

/** The slice of transformers.js's FeatureExtractionPipeline this class uses. */
export type FeatureExtractor = (
  texts: string[],
  options: { pooling: 'mean'; normalize: boolean },
) => Promise<{ data: ArrayLike<number>; dims: readonly number[] }>;

/**
 * Sentences per forward pass: big enough to keep WebGPU busy, small enough that a cancel lands
 * within one batch and that padding to the longest sentence wastes little.
 */
export const EMBEDDING_BATCH_SIZE = 16;

export class TransformerEmbedder implements SentenceEmbedder {
  readonly backend: string;
  /** From the model's catalog entry (`encoderLanguagesOf`); absent for a model it does not list. */
  readonly languages?: EncoderLanguages;
  readonly #extract: FeatureExtractor;
  readonly #batchSize: number;

  constructor(
    backend: string,
    extract: FeatureExtractor,
    batchSize = EMBEDDING_BATCH_SIZE,
    languages?: EncoderLanguages,
  ) {
    this.backend = backend;
    this.#extract = extract;
    this.#batchSize = batchSize;
    if (languages !== undefined) this.languages = languages;
  }

  async embed(sentences: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    for (let start = 0; start < sentences.length; start += this.#batchSize) {
      throwIfAborted(signal);
      const batch = sentences.slice(start, start + this.#batchSize);
      const output = await this.#extract(batch, { pooling: 'mean', normalize: true });
      const [rows, width] = output.dims;
      if (rows !== batch.length || width === undefined || output.data.length !== rows * width) {
        throw new Error(
          `The embedding model returned a tensor of shape [${output.dims.join(', ')}] for ${batch.length} sentences.`,
        );
      }
      const data =
        output.data instanceof Float32Array ? output.data : Float32Array.from(output.data);
      // Copies, not views: the tensor's buffer may be reused or transferred.
      for (let row = 0; row < rows; row++) vectors.push(data.slice(row * width, (row + 1) * width));
    }
    return vectors;
  }
}
