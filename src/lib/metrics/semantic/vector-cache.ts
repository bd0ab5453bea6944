/**
 * Sentence vectors remembered by content: a second summary of the same source re-embeds only the
 * summary, and a source pre-embedded while the user was still typing costs nothing at Score. Keyed
 * by (backend, sentence text), since vectors of two backends are not interchangeable; bounded by
 * the bytes the vectors hold, least recently used first out.
 */
import { throwIfAborted } from './backends.ts';
import type { UseLiteEmbedding } from './use-lite.ts';

/** 64 MB: ~32,000 USE-lite vectors, a few dozen long sources. */
export const VECTOR_CACHE_BYTES = 64 * 1024 * 1024;

export interface CachedVector {
  vector: Float32Array;
  /** The sentence was longer than the encoder's window (its vector is a mean of windows). */
  windowed: boolean;
}

/** Where cached vectors live: memory in the worker, a file in Node (src/lib/node/load-use.ts). */
export interface VectorStore {
  get(backend: string, sentence: string): CachedVector | undefined;
  set(backend: string, sentence: string, entry: CachedVector): void;
}

export class SentenceVectorCache implements VectorStore {
  readonly #entries = new Map<string, CachedVector>();
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxBytes = VECTOR_CACHE_BYTES) {
    this.#maxBytes = maxBytes;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(backend: string, sentence: string): CachedVector | undefined {
    const key = keyOf(backend, sentence);
    const entry = this.#entries.get(key);
    if (entry) {
      // Map order is insertion order: re-inserting makes it the most recently used.
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
    return entry;
  }

  set(backend: string, sentence: string, entry: CachedVector): void {
    const key = keyOf(backend, sentence);
    const old = this.#entries.get(key);
    if (old) {
      this.#bytes -= old.vector.byteLength;
      this.#entries.delete(key);
    }
    if (entry.vector.byteLength > this.#maxBytes) return;
    this.#entries.set(key, entry);
    this.#bytes += entry.vector.byteLength;
    for (const [oldest, evicted] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= evicted.vector.byteLength;
    }
  }
}

function keyOf(backend: string, sentence: string): string {
  return `${backend}\u0000${sentence}`;
}

export type CountingEmbed = (
  sentences: readonly string[],
  signal?: AbortSignal,
) => Promise<UseLiteEmbedding>;

/**
 * `embedCounting` through the cache: only sentences it has not seen (each once) reach the encoder.
 * Vectors are handed out as copies, so a caller that scales its vectors in place cannot corrupt
 * the cache.
 */
export function cachedEmbedding(
  cache: VectorStore,
  backend: string,
  embed: CountingEmbed,
): CountingEmbed {
  return async (sentences, signal) => {
    throwIfAborted(signal);
    const found = sentences.map((s) => cache.get(backend, s));
    const missing = [...new Set(sentences.filter((_, i) => !found[i]))];
    if (missing.length > 0) {
      const fresh = await embed(missing, signal);
      const fromFresh = new Map<string, CachedVector>();
      missing.forEach((s, i) => {
        const entry = { vector: fresh.vectors[i], windowed: fresh.windowed[i] };
        cache.set(backend, s, entry);
        fromFresh.set(s, entry);
      });
      sentences.forEach((s, i) => (found[i] ??= fromFresh.get(s)));
    }
    const entries = found as CachedVector[];
    return {
      vectors: entries.map((e) => e.vector.slice()),
      windowed: entries.map((e) => e.windowed),
    };
  };
}
