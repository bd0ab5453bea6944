/**
 * Shuffling lowers the order-model score with every encoder that has one: the real GloVe and
 * USE-lite embedders in Node, on real SummEval dev article openings, the mean score of the original
 * openings against the mean of the same openings reversed and seeded-shuffled. (Per opening the
 * GloVe model is right about three times in four, so the test averages.)
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { SentenceEmbedder } from '../../../../src/lib/metrics/semantic/backends.ts';
import { scoreCoherenceOfSentences } from '../../../../src/lib/metrics/semantic/coherence/coherence.ts';
import { loadGloveEmbedder } from '../../../../src/lib/node/load-glove.ts';
import { loadUseLiteEmbedder } from '../../../../src/lib/node/load-use.ts';
import { ensureEmbeddingAsset } from '../../../../src/lib/node/embedding-asset.ts';
import { devOpenings, prng, shuffled } from '../../../../scripts/order-model/data.ts';
import { scored } from '../scored.ts';

const ARTICLES = 4;
const SENTENCES = 10;
const SHUFFLES = 4;

/** Embeds each sentence once: the shuffles reuse the original's vectors. */
async function remembering(embedder: SentenceEmbedder, sentences: string[]) {
  const vectors = await embedder.embed(sentences);
  const byText = new Map(sentences.map((s, i) => [s, vectors[i]]));
  return {
    backend: embedder.backend,
    embed: async (s: readonly string[]) => s.map((t) => byText.get(t) as Float32Array),
  } satisfies SentenceEmbedder;
}

const openings = devOpenings()
  .slice(0, ARTICLES)
  .map((o) => o.sentences.slice(0, SENTENCES));

async function orderScore(sentences: string[], embedder: SentenceEmbedder): Promise<number> {
  const segments = sentences.map((text) => ({ text, start: 0, end: text.length }));
  const r = scored(await scoreCoherenceOfSentences(segments, embedder));
  expect(r.details.main).toBe('order-model');
  return r.score as number;
}

// The pairs alone hardly see direction with GloVe (reversed 0.5099 against 0.5102); the position
// model does, so both encoders are held to reversal (GloVe 0.5087 against 0.5015 reversed,
// USE-lite 0.5334 against 0.4776, on these openings).
describe.each([
  { name: 'GloVe SIF', load: async () => (ensureEmbeddingAsset(), loadGloveEmbedder()) },
  { name: 'USE-lite', load: async () => loadUseLiteEmbedder() },
])('shuffling lowers the coherence score ($name)', ({ load }) => {
  let embedder: SentenceEmbedder;
  beforeAll(async () => {
    embedder = await remembering(await load(), openings.flat());
  }, 120_000);

  it('scores the openings above their shuffles and their reversal, on average', async () => {
    const rand = prng(7);
    let original = 0;
    let reversed = 0;
    let shuffledMean = 0;
    for (const sentences of openings) {
      original += (await orderScore(sentences, embedder)) / openings.length;
      reversed += (await orderScore(sentences.slice().reverse(), embedder)) / openings.length;
      for (let s = 0; s < SHUFFLES; s++) {
        shuffledMean +=
          (await orderScore(shuffled(sentences, rand), embedder)) / SHUFFLES / openings.length;
      }
    }
    expect(original).toBeGreaterThan(shuffledMean);
    expect(original).toBeGreaterThan(reversed);
  });
});
