/**
 * The tiny generated models (scripts/models/make_test_models.py, `npm run models:test`) load
 * through transformers.js' own pipelines and mean what their design says: sentence vectors
 * cluster by topic, and the NER head tags names, organisations and places.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  env,
  pipeline,
  type FeatureExtractionPipeline,
  type TokenClassificationPipeline,
} from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/shared.ts';

const modelRoot = resolve(repoRoot, 'tests/fixtures/models');
const EMBEDDING = 'sumlens-test/tiny-embedding';
const NER = 'sumlens-test/tiny-ner';
const generated = existsSync(resolve(modelRoot, EMBEDDING, 'onnx/model_quantized.onnx'));

// Same sentences as the generator's own design check.
const WEATHER_A = 'Heavy rain and strong winds caused flooding across the region.';
const WEATHER_B = 'The forecast warns of a storm with thunder and more rain tomorrow.';
const FINANCE = 'The bank reported record profits as shares rose on the stock market.';
const NER_SENTENCE = 'Ada Lovelace met Grace Hopper in London at Acme Corporation.';

// Measured (2026-11-30, onnxruntime-node): max |q8 - fp32| 0.014 per dimension of the unit
// sentence vectors, 4e-6 on NER label probabilities (tags identical). The bounds leave room for
// other CPUs' integer kernels.
const Q8_EMBEDDING_TOLERANCE = 0.05;
const Q8_NER_PROBABILITY_TOLERANCE = 1e-3;

function dot(a: number[], b: number[]): number {
  return a.reduce((sum, x, i) => sum + x * b[i], 0);
}

describe('tiny generated models through transformers.js', () => {
  const saved = {
    allowRemoteModels: env.allowRemoteModels,
    allowLocalModels: env.allowLocalModels,
    localModelPath: env.localModelPath,
  };
  let fp32: FeatureExtractionPipeline;
  let q8: FeatureExtractionPipeline;
  let nerFp32: TokenClassificationPipeline;
  let nerQ8: TokenClassificationPipeline;

  beforeAll(async () => {
    // `npm test` generates the models first: missing ones are a broken set-up, not a reason to skip.
    if (!generated) {
      throw new Error(
        `${modelRoot} has no generated models: run \`npm run models:test\` (needs apt-get install python3-onnx python3-numpy).`,
      );
    }
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = `${modelRoot}/`;
    fp32 = await pipeline('feature-extraction', EMBEDDING, { dtype: 'fp32' });
    q8 = await pipeline('feature-extraction', EMBEDDING, { dtype: 'q8' });
    nerFp32 = await pipeline('token-classification', NER, { dtype: 'fp32' });
    nerQ8 = await pipeline('token-classification', NER, { dtype: 'q8' });
  });

  afterAll(async () => {
    await Promise.all([fp32, q8, nerFp32, nerQ8].map((p) => p?.dispose()));
    Object.assign(env, saved);
  });

  it('tokenizes as BERT does: lowercase WordPiece with [CLS] … [SEP] and token types', () => {
    const text = 'Johnson flooded Paris.';
    expect(fp32.tokenizer.tokenize(text, { add_special_tokens: true })).toEqual([
      '[CLS]',
      'john',
      '##son',
      'flood',
      '##ed',
      'paris',
      '.',
      '[SEP]',
    ]);
    const encoded = fp32.tokenizer(text);
    const ids = Array.from(encoded.input_ids.data as BigInt64Array, Number);
    expect(Array.from(encoded.token_type_ids?.data as BigInt64Array, Number)).toEqual(
      ids.map(() => 0),
    );
    expect(fp32.tokenizer.decode(ids, { skip_special_tokens: true })).toBe(
      'johnson flooded paris.',
    );
  });

  it('returns [batch, seq, 32] hidden states and unit mean-pooled vectors', async () => {
    const raw = await fp32([WEATHER_A, FINANCE]);
    expect(raw.dims[0]).toBe(2);
    expect(raw.dims[2]).toBe(32);
    const pooled = (
      await fp32([WEATHER_A, FINANCE], { pooling: 'mean', normalize: true })
    ).tolist();
    expect(pooled).toHaveLength(2);
    for (const v of pooled as number[][]) {
      expect(v).toHaveLength(32);
      expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    }
  });

  it('puts same-topic sentences closer than cross-topic ones (fp32 and q8)', async () => {
    for (const model of [fp32, q8]) {
      const out = await model([WEATHER_A, WEATHER_B, FINANCE], {
        pooling: 'mean',
        normalize: true,
      });
      const [a, b, f] = out.tolist() as number[][];
      const same = dot(a, b);
      const cross = dot(a, f);
      expect(same - cross).toBeGreaterThanOrEqual(0.2);
      expect(same).toBeGreaterThan(0.8);
    }
  });

  it('q8 embeddings stay close to fp32', async () => {
    const texts = [WEATHER_A, WEATHER_B, FINANCE, NER_SENTENCE];
    const a = (await fp32(texts, { pooling: 'mean', normalize: true })).tolist() as number[][];
    const b = (await q8(texts, { pooling: 'mean', normalize: true })).tolist() as number[][];
    const maxDiff = Math.max(...a.flatMap((row, i) => row.map((x, j) => Math.abs(x - b[i][j]))));
    expect(maxDiff).toBeLessThan(Q8_EMBEDDING_TOLERANCE);
  });

  it('tags people, places and organisations with CoNLL-03 labels', async () => {
    for (const model of [nerFp32, nerQ8]) {
      const tokens = await model(NER_SENTENCE);
      expect(tokens.map((t) => [t.word, t.entity])).toEqual([
        ['ada', 'B-PER'],
        ['lovelace', 'I-PER'],
        ['grace', 'B-PER'],
        ['hopper', 'I-PER'],
        ['london', 'B-LOC'],
        ['acme', 'B-ORG'],
        ['corporation', 'I-ORG'],
      ]);
      for (const t of tokens) expect(t.score).toBeGreaterThan(0.9);

      const groups = await model(NER_SENTENCE, { aggregation_strategy: 'simple' });
      expect(groups.map((g) => [g.entity_group, g.word])).toEqual([
        ['PER', 'ada lovelace'],
        ['PER', 'grace hopper'],
        ['LOC', 'london'],
        ['ORG', 'acme corporation'],
      ]);
    }
  });

  it('keeps a name split into pieces one person, and other words O', async () => {
    // Tags are context-free by design: "john" is always B-PER, "##son" always I-PER.
    const text = 'Johnson visited French scientists.';
    const all = await nerFp32(text, { ignore_labels: [] });
    expect(all.map((t) => [t.word, t.entity])).toEqual([
      ['john', 'B-PER'],
      ['##son', 'I-PER'],
      ['visit', 'O'],
      ['##ed', 'O'],
      ['french', 'B-MISC'],
      ['scientists', 'O'],
      ['.', 'O'],
    ]);
    const groups = await nerFp32(text, { aggregation_strategy: 'simple' });
    expect(groups.map((g) => [g.entity_group, g.word])).toEqual([
      ['PER', 'johnson'],
      ['MISC', 'french'],
    ]);
  });

  it('q8 NER scores stay close to fp32', async () => {
    const text = `${NER_SENTENCE} ${WEATHER_A}`;
    const a = await nerFp32(text, { ignore_labels: [] });
    const b = await nerQ8(text, { ignore_labels: [] });
    expect(b.map((t) => t.entity)).toEqual(a.map((t) => t.entity));
    const maxDiff = Math.max(...a.map((t, i) => Math.abs(t.score - b[i].score)));
    expect(maxDiff).toBeLessThan(Q8_NER_PROBABILITY_TOLERANCE);
  });
});
