/** The sentence-vector cache: hits by (backend, text), least recently used out first, copies out. */
import { englishRef } from '../../../../src/lib/i18n/message.ts';
import { describe, expect, it } from 'vitest';
import {
  SentenceVectorCache,
  cachedEmbedding,
} from '../../../../src/lib/metrics/semantic/vector-cache.ts';
import type { UseLiteEmbedding } from '../../../../src/lib/metrics/semantic/use-lite.ts';
import {
  SOURCE_SENTENCE_CAP,
  sourceSentencesForEmbedding,
  truncationNote,
} from '../../../../src/lib/metrics/semantic/source-sentences.ts';

const vector = (x: number) => Float32Array.of(x, x); // 8 bytes

function countingEncoder() {
  const asked: string[][] = [];
  const embed = async (sentences: readonly string[]): Promise<UseLiteEmbedding> => {
    asked.push([...sentences]);
    return {
      vectors: sentences.map((s) => vector(s.length)),
      windowed: sentences.map((s) => s.length > 5),
    };
  };
  return { embed, asked };
}

describe('SentenceVectorCache', () => {
  it('drops the least recently used vectors past its byte budget', () => {
    const cache = new SentenceVectorCache(24); // three vectors
    for (const s of ['a', 'b', 'c']) cache.set('m', s, { vector: vector(1), windowed: false });
    cache.get('m', 'a'); // now b is the oldest
    cache.set('m', 'd', { vector: vector(1), windowed: false });
    expect(cache.get('m', 'b')).toBeUndefined();
    expect(['a', 'c', 'd'].map((s) => cache.get('m', s) !== undefined)).toEqual([true, true, true]);
    expect(cache.bytes).toBe(24);
    expect(cache.get('other backend', 'a')).toBeUndefined();
  });

  it('embeds only the sentences it has not seen, each once, and keeps their windowed flag', async () => {
    const cache = new SentenceVectorCache();
    const { embed, asked } = countingEncoder();
    const cached = cachedEmbedding(cache, 'm', embed);
    await cached(['source one', 'source two']);
    const second = await cached(['summary', 'source one', 'summary']);
    expect(asked).toEqual([['source one', 'source two'], ['summary']]);
    expect(second.vectors.map((v) => v[0])).toEqual([7, 10, 7]);
    expect(second.windowed).toEqual([true, true, true]);
    // A caller scaling its vector in place does not change the cached one.
    second.vectors[1][0] = 99;
    expect((await cached(['source one'])).vectors[0][0]).toBe(10);
  });
});

describe('sourceSentencesForEmbedding', () => {
  it('keeps a short source whole', () => {
    const kept = sourceSentencesForEmbedding('One. Two. Three.');
    expect(kept.sentences.map((s) => s.text)).toEqual(['One.', 'Two.', 'Three.']);
    expect(kept.truncated).toBe(false);
    expect(truncationNote(kept)).toBeUndefined();
  });

  it('keeps the first sentences of a huge source and says so', () => {
    const source = Array.from({ length: SOURCE_SENTENCE_CAP + 5 }, (_, i) => `Sentence ${i}.`).join(
      ' ',
    );
    const kept = sourceSentencesForEmbedding(source);
    expect(kept.sentences).toHaveLength(SOURCE_SENTENCE_CAP);
    expect(kept.sentences[0].text).toBe('Sentence 0.');
    expect(kept.truncated).toBe(true);
    expect(englishRef(truncationNote(kept)!)).toBe(
      `Only the first ${SOURCE_SENTENCE_CAP} sentences of the source were embedded and compared.`,
    );
  });
});
