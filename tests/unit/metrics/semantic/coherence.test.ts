import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SOURCE, ensureEmbeddingAsset } from '../../../../src/lib/node/embedding-asset.ts';
import type { SentenceEmbedder } from '../../../../src/lib/metrics/semantic/backends.ts';
import { throwIfAborted } from '../../../../src/lib/metrics/semantic/backends.ts';
import { scoreCoherence } from '../../../../src/lib/metrics/semantic/coherence/coherence.ts';
import type { OrderModel } from '../../../../src/lib/metrics/semantic/order-model.ts';
import { splitSentences } from '../../../../src/lib/metrics/text/tokenize.ts';
import { GloveSifEmbedder } from '../../../../src/lib/metrics/semantic/glove-sif.ts';
import { loadGloveAsset } from '../../../../src/lib/node/load-glove.ts';
import { scored } from '../scored.ts';

/**
 * A toy embedder: one dimension per topic word; a sentence without any topic word gets the zero
 * vector, as the GloVe embedder does for a sentence without known words.
 */
class TopicEmbedder implements SentenceEmbedder {
  readonly backend = 'topic-test';
  static readonly topics = ['cat', 'market', 'rain'];
  calls = 0;
  async embed(sentences: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    this.calls++;
    throwIfAborted(signal);
    return sentences.map((s) => {
      const v = new Float32Array(TopicEmbedder.topics.length);
      TopicEmbedder.topics.forEach((t, i) => {
        v[i] = s.toLowerCase().split(t).length - 1;
      });
      return v;
    });
  }
}

/** 1-d sentence vectors; P(v follows u) = σ(−|u − v|): close neighbours read as in order. */
const LINE_MODEL: OrderModel = {
  backendPrefix: 'line',
  trainedOn: 'line test',
  dims: 1,
  weights: [0, 0, 0, -1],
  bias: 0,
  training: {
    articles: 1,
    positives: 1,
    negatives: 3,
    lambda: 1,
    heldOutShuffleAccuracy: 1,
    heldOutRankAccuracy: 1,
    heldOutBalancedAccuracy: 1,
  },
};
const LINE_VALUES: Record<string, number> = { 'One.': 1, 'Two.': 2, 'Four.': 4 };
const line: SentenceEmbedder = {
  backend: 'line · test',
  embed: async (s) => s.map((t) => Float32Array.of(LINE_VALUES[t])),
};

describe('scoreCoherence (toy embedder)', () => {
  it('is n/a below 2 sentences, without calling the embedder', async () => {
    const embedder = new TopicEmbedder();
    const r = await scoreCoherence('The cat sat.', embedder);
    expect(r.status).toBe('n/a');
    expect(r.score).toBeNull();
    expect(r.reason).toBe('needs at least 2 sentences (found 1)');
    expect(r.id).toBe('coherence');
    expect(r.backend).toBe('topic-test');
    expect(r.details).toHaveProperty('sentences.length', 1);
    expect(embedder.calls).toBe(0);
    expect((await scoreCoherence('', embedder)).reason).toBe(
      'needs at least 2 sentences (found 0)',
    );
  });

  it('without an order model for the backend, scores the adjacent cosine and says so', async () => {
    const text = 'The cat sat. A market fell. The cat slept. The market rose.';
    const r = scored(await scoreCoherence(text, new TopicEmbedder()));
    expect(r.status).toBe('ok');
    expect(r.details.main).toBe('adjacent-cosine');
    expect(r.details.range).toEqual([-1, 1]);
    expect(r.details.orderModel).toBeNull();
    expect(r.details.orderPairs).toEqual([]);
    expect(r.score).toBe(0); // cat–market, market–cat, cat–market
    expect(r.details.adjacentPairs.map((p) => p.similarity)).toEqual([0, 0, 0]);
    expect(r.details.pairs).toEqual([
      { a: 0, b: 2, similarity: expect.closeTo(1, 9) },
      { a: 1, b: 3, similarity: expect.closeTo(1, 9) },
    ]);
    expect(r.details.n2Mean).toBeCloseTo(1, 9);
    expect(r.details.sentences.map((s) => text.slice(s.start, s.end))).toEqual([
      'The cat sat.',
      'A market fell.',
      'The cat slept.',
      'The market rose.',
    ]);
    expect(r.details.backend).toBe('topic-test');
    expect(r.explanation).toMatch(
      /^No sentence-order model is trained for this embedding, so the score is the mean cosine similarity of adjacent sentences, 0\.00 over 3 pairs .*; n\/n\+2: 1\.00\.$/,
    );
    expect(r.elapsedMs).toBeGreaterThanOrEqual(0);
  });

  it('with an order model, scores the mean P(next follows) over adjacent pairs (hand-computed)', async () => {
    const model = LINE_MODEL;
    const r = scored(await scoreCoherence('One. Two. Four.', line, undefined, { models: [model] }));
    // σ(−1) = 0.2689414214, σ(−2) = 0.1192029220; mean 0.1940721717.
    expect(r.score).toBeCloseTo(0.1940721717, 9);
    expect(r.details.main).toBe('order-model');
    expect(r.details.range).toEqual([0, 1]);
    expect(r.details.orderModel).toBe('line test');
    expect(r.details.orderPairs).toEqual([
      { a: 0, b: 1, probability: expect.closeTo(0.2689414214, 9) },
      { a: 1, b: 2, probability: expect.closeTo(0.119202922, 9) },
    ]);
    expect(r.details.weakestPair).toBe(1);
    expect(r.details.orderMean).toBe(r.score);
    // Same-sign 1-d vectors: every cosine is 1.
    expect(r.details.adjacentMean).toBeCloseTo(1, 9);
    expect(r.details.n2Mean).toBeCloseTo(1, 9);
    expect(r.explanation).toMatch(
      /mean probability of 0\.19 of following the one before \(over 2 pairs; 0\.5 = no lean\); least in order: 2→3 \(0\.12\)\. Mean cosine: n\/n\+1 1\.00, n\/n\+2 1\.00\.$/,
    );
    // Two sentences are enough for an adjacent pair.
    expect(
      scored(await scoreCoherence('Two. One.', line, undefined, { models: [model] })).score,
    ).toBeCloseTo(0.2689414214, 9);

    const wide: SentenceEmbedder = {
      backend: 'line 2-d',
      embed: async (s) => s.map(() => new Float32Array(2)),
    };
    const wrong = await scoreCoherence('One. Two.', wide, undefined, { models: [model] });
    expect(wrong.status).toBe('error');
    expect(wrong.reason).toMatch(/takes 1-d vectors; this embedder returned 2-d/);
  });

  it('mixes in the position agreement when the model has a position model (hand-computed)', async () => {
    // P(v follows u) = σ(−|u − v|) as above; place = 0.5·v − 0.5, α = 0.25.
    const model: OrderModel = {
      ...LINE_MODEL,
      position: {
        weights: [0.5],
        bias: -0.5,
        alpha: 0.25,
        training: { openingSentences: 12, lambda: 1, heldOutShuffleAccuracy: 1 },
      },
    };
    const r = scored(await scoreCoherence('One. Two. Four.', line, undefined, { models: [model] }));
    // Places 0, 0.5, 1.5 against order 0, 1, 2:
    // mean place 2/3: dx = −2/3, −1/6, 5/6; dy = −1, 0, 1; Σdxdy = 1.5, Σdx² = 7/6, Σdy² = 2;
    // r = 1.5 / √(7/3) = 0.9819805061. Score = (0.1940721717 + 0.25·1.9819805061) / 1.5.
    expect(r.details.positions).toEqual([0, 0.5, 1.5]);
    expect(r.details.positionAgreement).toBeCloseTo(0.9819805061, 9);
    expect(r.details.positionAlpha).toBe(0.25);
    expect(r.score).toBeCloseTo((0.1940721717 + 0.25 * 1.9819805061) / 1.5, 9);
    expect(r.details.orderScore).toBe(r.score);
    expect(r.details.orderMean).toBeCloseTo(0.1940721717, 9);
    expect(r.explanation).toMatch(
      /with r = 0\.98 \(opening-like sentences come first\); mixed in with weight 0\.25, the score is 0\.46\./,
    );
    // The reverse order disagrees with the places, so it scores lower on that part too.
    const reversed = scored(
      await scoreCoherence('Four. Two. One.', line, undefined, { models: [model] }),
    );
    expect(reversed.details.positionAgreement).toBeCloseTo(-0.9819805061, 9);
    expect(reversed.score).toBeLessThan(r.score as number);
    // Two sentences: r would only be a sign, so the score is the mean P alone.
    const two = scored(await scoreCoherence('Two. One.', line, undefined, { models: [model] }));
    expect(two.details.positionAgreement).toBeNull();
    expect(two.score).toBeCloseTo(0.2689414214, 9);
    expect(two.explanation).toMatch(/Too few sentences to compare their order/);
  });

  it('skips pairs with a zero-vector sentence, and is n/a when none is left', async () => {
    const r = await scoreCoherence(
      'The cat sat. Nothing here. Then 42. The cat ran.',
      new TopicEmbedder(),
    );
    // every adjacent pair involves an empty sentence.
    expect(r.status).toBe('n/a');
    expect(r.reason).toMatch(/no pair of neighbouring sentences/);
    expect(r.details).toMatchObject({
      skippedPairs: 3,
      sentences: [{ empty: false }, { empty: true }, { empty: true }, { empty: false }],
    });

    const ok = scored(
      await scoreCoherence(
        'The cat sat. Nothing here. The cat ran. The rain fell.',
        new TopicEmbedder(),
      ),
    );
    expect(ok.status).toBe('ok');
    expect(ok.score).toBe(0); // only (2,3) cat–rain counts
    expect(ok.details.adjacentPairs.map((p) => p.similarity)).toEqual([null, null, 0]);
    expect(ok.details.skippedPairs).toBe(2);
    expect(ok.details.n2Mean).toBeCloseTo(1, 9); // (0,2); (1,3) skipped
    expect(ok.explanation).toMatch(/leaving out 2 pairs/);
  });

  it('turns an embedder failure into status error, and passes cancellation through', async () => {
    const broken: SentenceEmbedder = {
      backend: 'broken',
      embed: async () => {
        throw new Error('model not loaded');
      },
    };
    const r = await scoreCoherence('One cat. Two cats. Three cats.', broken);
    expect(r.status).toBe('error');
    expect(r.reason).toBe('Embedding failed: model not loaded');

    const controller = new AbortController();
    controller.abort();
    await expect(
      scoreCoherence('One cat. Two cats. Three cats.', new TopicEmbedder(), controller.signal),
    ).rejects.toMatchObject({ name: 'AbortError' });
    const late = new AbortController();
    const slow: SentenceEmbedder = {
      backend: 'slow',
      embed: async (s, signal) => {
        late.abort();
        throwIfAborted(signal);
        return s.map(() => new Float32Array(2));
      },
    };
    await expect(
      scoreCoherence('One cat. Two cats. Three cats.', slow, late.signal),
    ).rejects.toMatchObject({
      name: 'AbortError',
    });
  });
});

describe('splitSentences', () => {
  it('splits lower-cased PTB-tokenised text on stand-alone full stops', () => {
    const text =
      "around 300 cameras were turned off . it has not been working , police said ! did n't they ? `` yes . '' the end .";
    const parts = splitSentences(text);
    expect(parts.map((p) => p.text)).toEqual([
      'around 300 cameras were turned off .',
      'it has not been working , police said !',
      "did n't they ?",
      "`` yes . ''",
      'the end .',
    ]);
    for (const p of parts) expect(text.slice(p.start, p.end)).toBe(p.text);
  });

  it('leaves ordinary prose and spaced ellipses alone', () => {
    expect(splitSentences('Mr. Smith went to Washington. He met Dr. Jones.')).toHaveLength(2);
    expect(splitSentences('he waited . . . and then left .')).toHaveLength(1);
    expect(splitSentences('The U.S. economy grew 3.5 percent. Markets rose.')).toHaveLength(2);
  });
});

const hasSource = existsSync(DEFAULT_SOURCE);
if (!hasSource) console.warn(`Skipping real-asset coherence tests: ${DEFAULT_SOURCE} missing.`);

describe.skipIf(!hasSource)('scoreCoherence with the built-in GloVe SIF embedder', () => {
  let embedder: GloveSifEmbedder;
  beforeAll(() => {
    embedder = new GloveSifEmbedder(loadGloveAsset(ensureEmbeddingAsset()));
  });

  const cats = [
    'Our cat spends the morning asleep on the windowsill.',
    'In the afternoon the cat chases a toy mouse around the kitchen.',
    'At dusk the cat waits by its bowl for dinner.',
    'At night the cat curls up on the bed and purrs.',
  ];
  const stocks =
    'Shares in oil companies fell sharply after the central bank raised interest rates.';

  it('has neighbour cosines higher in a coherent paragraph than with an unrelated sentence inserted', async () => {
    const coherent = scored(await scoreCoherence(cats.join(' '), embedder));
    const disrupted = scored(
      await scoreCoherence([...cats.slice(0, 2), stocks, ...cats.slice(2)].join(' '), embedder),
    );
    expect(coherent.status).toBe('ok');
    expect(disrupted.status).toBe('ok');
    expect(coherent.details.main).toBe('order-model');
    expect(coherent.details.adjacentMean!).toBeGreaterThan(disrupted.details.adjacentMean!);
    expect(coherent.details.n2Mean!).toBeGreaterThan(disrupted.details.n2Mean!);
    expect(coherent.backend).toBe(embedder.backend);
  });

  it('scores two topics in blocks above the same sentences interleaved, on adjacent pairs', async () => {
    const finance = [
      'The central bank raised interest rates by half a point on Tuesday.',
      'Bond yields climbed and shares in banks rose after the announcement.',
      'Investors expect inflation to slow over the coming year.',
    ];
    const blocks = [...cats.slice(0, 3), ...finance].join(' ');
    const mixed = [cats[0], finance[0], cats[1], finance[1], cats[2], finance[2]].join(' ');
    const a = scored(await scoreCoherence(blocks, embedder));
    const b = scored(await scoreCoherence(mixed, embedder));
    expect(a.details.adjacentMean!).toBeGreaterThan(b.details.adjacentMean!);
  });

  it('handles a sentence with no known words', async () => {
    const r = scored(
      await scoreCoherence([cats[0], '2014–15: 3–1.', cats[1], cats[2]].join(' '), embedder),
    );
    expect(r.status).toBe('ok');
    expect(r.details.sentences[1].empty).toBe(true);
    expect(r.details.skippedPairs).toBe(2);
    expect(r.details.orderPairs.map((p) => p.probability === null)).toEqual([true, true, false]);
    expect(Number.isFinite(r.score)).toBe(true);
  });
});

describe('coherence on text the built-in vectors cannot read', () => {
  it('says n/a and why, instead of scoring zero vectors', async () => {
    ensureEmbeddingAsset();
    const embedder = new GloveSifEmbedder(loadGloveAsset());
    const result = await scoreCoherence('他来了。她走了。我们都笑了。', embedder);
    expect(result.status).toBe('n/a');
    expect(result.reason).toMatch(/none of the 3 sentences.*English only/u);
  });
});
