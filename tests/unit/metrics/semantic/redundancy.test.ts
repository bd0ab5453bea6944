import { describe, expect, it } from 'vitest';
import { scoreRedundancy } from '../../../../src/lib/metrics/semantic/redundancy/redundancy.ts';
import { scored } from '../scored.ts';
import { DESIGNED_THRESHOLDS, DesignedEmbedder } from './alignment-fakes.ts';

/** Ex = (1,0,0), Why = (0.6,0.8,0), Zed = (0,0.8,0.6): cosines Ex–Why 0.6, Ex–Zed 0, Why–Zed 0.64. */
const vectors = {
  'Ex.': [1, 0, 0],
  'Why.': [0.6, 0.8, 0],
  'Zed.': [0, 0.8, 0.6],
  'Minus ex.': [-1, 0, 0],
  'Blank.': [0, 0, 0],
};
const score = (summary: string, backend?: string) =>
  scoreRedundancy(summary, new DesignedEmbedder(vectors, backend), undefined, DESIGNED_THRESHOLDS);

describe('scoreRedundancy (designed vectors)', () => {
  it('scores 1 − the largest cosine and lists pairs most alike first', async () => {
    const r = scored(await score('Ex. Why. Zed.'));
    expect(r.raw).toBeCloseTo(0.64, 6);
    expect(r.score).toBeCloseTo(0.36, 6);
    expect(r.details.pairs).toEqual([
      { a: 1, b: 2, similarity: expect.closeTo(0.64, 6), likelyRepeat: true },
      { a: 0, b: 1, similarity: expect.closeTo(0.6, 6), likelyRepeat: false },
      { a: 0, b: 2, similarity: 0, likelyRepeat: false },
    ]);
    expect(r.details.likelyRepeats).toBe(1);
    expect(r.details.pairsCompared).toBe(3);
    expect(r.details.sentences[2]).toMatchObject({ text: 'Zed.', start: 9, end: 13 });
    expect(r.explanation).toBe(
      'The most alike sentences are 2 and 3 (cosine 0.64) of 3 pairs compared; 1 pair is above 0.62: likely the same thing said again.',
    );
  });

  it('counts a negative largest cosine as 0: score 1', async () => {
    const r = scored(await score('Ex. Minus ex.'));
    expect(r.raw).toBe(-1);
    expect(r.score).toBe(1);
  });

  it('skips sentences without a vector', async () => {
    const r = scored(await score('Ex. Blank. Why.'));
    expect(r.details.pairs).toEqual([
      { a: 0, b: 2, similarity: expect.closeTo(0.6, 6), likelyRepeat: false },
    ]);
    expect(r.details.sentences[1].empty).toBe(true);
  });

  it('flags nothing without a calibrated threshold', async () => {
    const r = scored(await score('Ex. Why. Zed.', 'provider some-embedding'));
    expect(r.details.pairs.some((p) => p.likelyRepeat)).toBe(false);
    expect(r.details.threshold).toBeNull();
    expect(r.notes?.[0]).toMatch(/^No redundancy threshold is calibrated for provider/u);
  });

  it('is n/a below two sentences and when no pair has vectors', async () => {
    expect((await score('Ex.')).reason).toBe('needs at least 2 sentences to compare (found 1)');
    expect((await score('Blank. Blank.')).reason).toBe(
      'no two sentences have words the embedding knows',
    );
  });
});
