/**
 * The two pluggable backends of the model-based metrics. The built-in ones (GloVe SIF,
 * compromise) implement them today; transformer models in workers will implement them next, and
 * the metrics do not change. `backend` names the method and model: scores of different backends
 * are never compared.
 */
import type { MessageRef } from '../../i18n/message.ts';
import type { TextSpan } from '../types.ts';

/** A backend's note: a message where it has one, English text where a library worded it. */
export type BackendNote = string | MessageRef;

/**
 * The languages a sentence encoder can read: BCP-47 primary subtags ('en'), or 'any' for a
 * multilingual model. language-gate.ts turns the encoder metrics n/a on a text it cannot read.
 */
export type EncoderLanguages = readonly string[] | 'any';

export interface SentenceEmbedder {
  readonly backend: string;
  /** What it reads; absent means unknown and is treated as 'any' (custom and provider backends
   * are not blocked). */
  readonly languages?: EncoderLanguages;
  /** What the user should know about how this backend ran (device fallback, a model that failed
   * to load and was replaced by the built-in one); copied into every result. */
  readonly notes?: readonly BackendNote[];
  /** One vector per sentence, all of one length. */
  embed(sentences: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

export interface EntityRecognizer {
  readonly backend: string;
  readonly notes?: readonly BackendNote[];
  /** Entity spans with UTF-16 offsets into `text`, sorted, non-overlapping. */
  recognize(text: string, signal?: AbortSignal): Promise<TextSpan[]>;
}

export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw new DOMException('The operation was cancelled.', 'AbortError');
}

/**
 * One embedding per sentence list and case: coherence and the repetition pair embed the same
 * sentences, and a provider embedder would otherwise be paid twice for them.
 */
export function sharingEmbeddings(embedder: SentenceEmbedder): SentenceEmbedder {
  const done = new Map<string, Promise<Float32Array[]>>();
  return {
    backend: embedder.backend,
    ...(embedder.languages ? { languages: embedder.languages } : {}),
    ...(embedder.notes ? { notes: embedder.notes } : {}),
    embed(sentences, signal) {
      const key = JSON.stringify(sentences);
      let vectors = done.get(key);
      if (!vectors) {
        vectors = embedder.embed(sentences, signal);
        done.set(key, vectors);
        // A failed or cancelled call must not be served again.
        vectors.catch(() => done.delete(key));
      }
      return vectors;
    },
  };
}
