/**
 * Sentence embeddings from a transformers.js feature-extraction pipeline, on the generated tiny
 * model in Node: unit vectors, batching that does not change them, and local coherence that tells
 * a one-topic summary from one that jumps between topics.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransformerEmbedder } from '../../../src/lib/metrics/semantic/transformer-embedder.ts';
import { featureExtractor } from '../../../src/lib/metrics/semantic/transformers-adapters.ts';
import { scoreCoherence } from '../../../src/lib/metrics/semantic/coherence/coherence.ts';
import { tinyEmbeddingPipeline } from '../../helpers/tiny-models.ts';

const WEATHER = [
  'Heavy rain and strong winds caused flooding across the region.',
  'The forecast warns of a storm with thunder and more rain tomorrow.',
  'Floods closed roads after the storm and the wind brought down trees.',
  'More rain is expected as another storm moves in from the coast.',
];
const FINANCE = [
  'The bank reported record profits as shares rose on the stock market.',
  'Investors bought shares after the bank raised its profit forecast.',
];
const SPORT = [
  'The football team won the match with two late goals.',
  'The coach praised the players after the league match.',
];

describe('TransformerEmbedder on the tiny generated model (transformers.js, Node)', () => {
  let pipe: Awaited<ReturnType<typeof tinyEmbeddingPipeline>>;
  beforeAll(async () => {
    pipe = await tinyEmbeddingPipeline('fp32');
  });
  afterAll(async () => pipe?.dispose());

  it('returns one unit vector per sentence, the same whatever the batch size', async () => {
    const sentences = [...WEATHER, ...FINANCE, ...SPORT];
    const big = await new TransformerEmbedder('t', featureExtractor(pipe), 16).embed(sentences);
    const small = await new TransformerEmbedder('t', featureExtractor(pipe), 3).embed(sentences);
    expect(big).toHaveLength(sentences.length);
    for (const [i, v] of big.entries()) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(32);
      expect(Math.hypot(...v)).toBeCloseTo(1, 5);
      // Padding to the longest sentence of the batch must not leak into mean pooling.
      for (const [k, x] of v.entries()) expect(Math.abs(x - small[i]![k]!)).toBeLessThan(1e-5);
    }
  });

  it('scores a one-topic summary as more locally coherent than one that keeps switching topic', async () => {
    const embedder = new TransformerEmbedder('tiny-embedding test', featureExtractor(pipe));
    const focused = await scoreCoherence(WEATHER.join(' '), embedder);
    const jumping = await scoreCoherence(
      [WEATHER[0], FINANCE[0], SPORT[0], WEATHER[1], FINANCE[1], SPORT[1]].join(' '),
      embedder,
    );
    expect(focused.status).toBe('ok');
    expect(jumping.status).toBe('ok');
    expect(focused.backend).toBe('tiny-embedding test');
    expect(focused.score!).toBeGreaterThan(jumping.score! + 0.3);
  });

  it('stops between batches when cancelled', async () => {
    const embedder = new TransformerEmbedder('t', featureExtractor(pipe), 1);
    const controller = new AbortController();
    controller.abort();
    await expect(embedder.embed(WEATHER, controller.signal)).rejects.toThrow(/cancelled/u);
  });

  it('refuses a tensor whose shape does not match the batch', async () => {
    const broken = new TransformerEmbedder('t', async () => ({
      data: new Float32Array(6),
      dims: [3, 2],
    }));
    await expect(broken.embed(['a', 'b'])).rejects.toThrow(/shape \[3, 2\] for 2 sentences/u);
  });
});
