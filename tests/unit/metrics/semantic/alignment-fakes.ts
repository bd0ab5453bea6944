/**
 * Test helper: an embedder that returns the vector a test designed for each sentence, so that
 * every cosine, alignment and τ in the alignment-metric tests can be computed by hand. An unknown
 * sentence is an error in the test, not a zero vector.
 */
import {
  throwIfAborted,
  type SentenceEmbedder,
} from '../../../../src/lib/metrics/semantic/backends.ts';
import type { EncoderThresholds } from '../../../../src/lib/metrics/semantic/sentence-alignment.ts';

export class DesignedEmbedder implements SentenceEmbedder {
  readonly calls: string[][] = [];
  constructor(
    private readonly vectors: Readonly<Record<string, readonly number[]>>,
    readonly backend = 'designed-test',
  ) {}
  async embed(sentences: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    throwIfAborted(signal);
    this.calls.push([...sentences]);
    return sentences.map((s) => {
      const v = this.vectors[s];
      if (!v) throw new Error(`no designed vector for ${JSON.stringify(s)}`);
      return Float32Array.from(v);
    });
  }
}

/** Thresholds for the designed backend only. */
export const DESIGNED_THRESHOLDS: Record<string, EncoderThresholds> = {
  'designed-test': {
    support: { threshold: 0.6, percentile: 10 },
    redundancy: { threshold: 0.62, percentile: 99 },
  },
};

/** Four source sentences on four axes: source sentence i is the unit vector e_i. */
export const SOURCE = 'Alpha one. Beta two. Gamma three. Delta four.';
export const SOURCE_VECTORS: Record<string, number[]> = {
  'Alpha one.': [1, 0, 0, 0],
  'Beta two.': [0, 1, 0, 0],
  'Gamma three.': [0, 0, 1, 0],
  'Delta four.': [0, 0, 0, 1],
};
