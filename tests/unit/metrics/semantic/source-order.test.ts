import { describe, expect, it } from 'vitest';
import {
  orderOf,
  scoreSourceOrder,
} from '../../../../src/lib/metrics/semantic/source-order/source-order.ts';
import { scored } from '../scored.ts';
import { DesignedEmbedder, SOURCE, SOURCE_VECTORS } from './alignment-fakes.ts';

/**
 * Summary sentences designed against the four source axes e1…e4:
 * Sa = e1 (cos 1 with source 1); Sb = (0,3,4,0): cos 0.6 with source 2, 0.8 with source 3;
 * Sc = 2·e4 (cos 1 with source 4); Sa2 = (2,1,0,0): cos 2/√5 with source 1, 1/√5 with source 2;
 * Sd = (1,1,1,1): cos 0.5 with every source sentence; Se = e2; Blank = the zero vector.
 */
const embedder = () =>
  new DesignedEmbedder({
    ...SOURCE_VECTORS,
    'Sa.': [1, 0, 0, 0],
    'Sb.': [0, 3, 4, 0],
    'Sc.': [0, 0, 0, 2],
    'Sa2.': [2, 1, 0, 0],
    'Sd.': [1, 1, 1, 1],
    'Se.': [0, 1, 0, 0],
    'Blank.': [0, 0, 0, 0],
  });

const score = (summary: string) => scoreSourceOrder({ source: SOURCE, summary }, embedder());

describe('scoreSourceOrder (designed vectors)', () => {
  it('is n/a with one summary sentence, without embedding anything', async () => {
    const e = embedder();
    const r = await scoreSourceOrder({ source: SOURCE, summary: 'Sa.' }, e);
    expect(r.status).toBe('n/a');
    expect(r.reason).toBe('needs at least 2 summary sentences to have an order (found 1)');
    expect(r.backend).toBe('designed-test');
    expect(e.calls).toEqual([]);
  });

  it('scores 1 in source order: positions 1, 3, 4, τ = 1', async () => {
    const r = scored(await score('Sa. Sb. Sc.'));
    expect(r.score).toBe(1);
    expect(r.raw).toBe(1);
    expect(r.details.sentences.map((s) => s.match?.index)).toEqual([0, 2, 3]);
    expect(r.details.sentences[1].match).toMatchObject({
      index: 2,
      text: 'Gamma three.',
      start: 21,
      end: 33,
      similarity: expect.closeTo(0.8, 6),
    });
    expect(r.details.outOfOrder).toEqual([]);
    expect(r.explanation).toBe(
      "Aligned to their closest source sentences, 3 of 3 pairs of summary sentences keep the source's order and 0 reverse it (Kendall τ-b 1.00).",
    );
  });

  it('scores 0 reversed, with every pair out of order', async () => {
    const r = scored(await score('Sc. Sb. Sa.'));
    expect(r.raw).toBe(-1);
    expect(r.score).toBe(0);
    expect(r.details.outOfOrder).toEqual([
      { a: 0, b: 1 },
      { a: 0, b: 2 },
      { a: 1, b: 2 },
    ]);
  });

  it('one swapped pair of three: τ = (2 − 1)/3, score 2/3', async () => {
    const r = scored(await score('Sa. Sc. Sb.'));
    expect(r.raw).toBeCloseTo(1 / 3, 12);
    expect(r.score).toBeCloseTo(2 / 3, 12);
    expect(r.details.outOfOrder).toEqual([{ a: 1, b: 2 }]);
  });

  it('two sentences on one source sentence are a tie: τ-b = 2/√(3·2)', async () => {
    const r = scored(await score('Sa. Sa2. Sc.'));
    expect(r.details.sentences.map((s) => s.match?.index)).toEqual([0, 0, 3]);
    expect(r.details.sentences[1].match?.similarity).toBeCloseTo(2 / Math.sqrt(5), 6);
    expect(r.details.tiedPairs).toBe(1);
    expect(r.raw).toBeCloseTo(2 / Math.sqrt(6), 12);
    expect(r.score).toBeCloseTo((1 + 2 / Math.sqrt(6)) / 2, 12);
  });

  it('leaves a sentence without a vector out of the order', async () => {
    const r = scored(await score('Sc. Blank. Sa.'));
    expect(r.details.sentences[1].match).toBeNull();
    expect(r.raw).toBe(-1);
    // Pairs name summary sentences: the first and the third.
    expect(r.details.outOfOrder).toEqual([{ a: 0, b: 2 }]);
  });

  it('is n/a when every sentence aligns to one source sentence (τ undefined)', async () => {
    const r = await score('Sa. Sa2.');
    expect(r.status).toBe('n/a');
    expect(r.reason).toBe(
      'all 2 summary sentences align to the same source sentence (1), so they have no order to compare',
    );
  });

  it('equal cosines go to the earlier source sentence', async () => {
    const r = scored(await score('Sd. Se.'));
    expect(r.details.sentences[0].match).toMatchObject({ index: 0, similarity: 0.5 });
    expect(r.raw).toBe(1);
  });

  it('reports an embedding failure as an error with the message', async () => {
    const r = await score('Sa. Unknown.');
    expect(r.status).toBe('error');
    expect(r.reason).toBe('Embedding failed: no designed vector for "Unknown."');
  });
});

describe('source order falls when the summary is shuffled or reversed', () => {
  // Five source sentences on five axes; summary sentence k leans on source sentence k.
  const source = 'One a. Two b. Three c. Four d. Five e.';
  const summaryOf = (order: number[]) => order.map((k) => `S${k}.`).join(' ');
  const vectors: Record<string, number[]> = {};
  source.split(/(?<=\.) /u).forEach((s, k) => {
    vectors[s] = Array.from({ length: 5 }, (_, i) => (i === k ? 1 : 0));
    // Off-axis, so each cosine is below 1 but still highest with its own source sentence.
    vectors[`S${k}.`] = Array.from({ length: 5 }, (_, i) => (i === k ? 3 : 1));
  });
  const run = (order: number[]) =>
    scoreSourceOrder({ source, summary: summaryOf(order) }, new DesignedEmbedder(vectors));

  it('in order 1 > shuffled [3,1,5,2,4] (τ = 0.2) > reversed 0', async () => {
    const inOrder = scored(await run([0, 1, 2, 3, 4]));
    const shuffled = scored(await run([2, 0, 4, 1, 3]));
    const reversed = scored(await run([4, 3, 2, 1, 0]));
    expect(inOrder.score).toBe(1);
    // Positions 2,0,4,1,3: 6 concordant, 4 discordant pairs of 10.
    expect(shuffled.raw).toBeCloseTo(0.2, 12);
    expect(shuffled.score).toBeCloseTo(0.6, 12);
    expect(shuffled.details.outOfOrder).toHaveLength(4);
    expect(reversed.score).toBe(0);
    expect(inOrder.score).toBeGreaterThan(shuffled.score ?? Number.NaN);
    expect(shuffled.score).toBeGreaterThan(reversed.score ?? Number.NaN);
  });

  it('gives the same result every time', async () => {
    const a = scored(await run([2, 0, 4, 1, 3]));
    const b = scored(await run([2, 0, 4, 1, 3]));
    expect({ ...a, elapsedMs: 0 }).toEqual({ ...b, elapsedMs: 0 });
  });
});

describe('orderOf', () => {
  it('counts reversed and tied pairs and τ-b by hand', () => {
    // Pairs of [1, 0, 1]: (1,0) reversed, (1,1) tied, (0,1) in order → τ-b = 0/√(3·2) = 0.
    expect(orderOf([1, 0, 1])).toEqual({ tau: 0, outOfOrder: [[0, 1]], tiedPairs: 1 });
  });
});
