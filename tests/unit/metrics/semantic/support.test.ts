import { describe, expect, it } from 'vitest';
import { scoreSupport } from '../../../../src/lib/metrics/semantic/support/support.ts';
import { scored } from '../scored.ts';
import {
  DESIGNED_THRESHOLDS,
  DesignedEmbedder,
  SOURCE,
  SOURCE_VECTORS,
} from './alignment-fakes.ts';

/** Sa = e1: cos 1 with source 1; Sb = (0,3,4,0): best 0.8 with source 3; Sd = (1,1,1,1): 0.5 with
 * every source sentence, so source 1 (earliest); Blank = zero vector. */
const vectors = {
  ...SOURCE_VECTORS,
  'Sa.': [1, 0, 0, 0],
  'Sb.': [0, 3, 4, 0],
  'Sd.': [1, 1, 1, 1],
  'Blank.': [0, 0, 0, 0],
};

describe('scoreSupport (designed vectors)', () => {
  it('averages the best cosines and flags those below the threshold as a risk', async () => {
    const r = scored(
      await scoreSupport(
        { source: SOURCE, summary: 'Sa. Sb. Sd.' },
        new DesignedEmbedder(vectors),
        undefined,
        DESIGNED_THRESHOLDS,
      ),
    );
    expect(r.score).toBeCloseTo((1 + 0.8 + 0.5) / 3, 6);
    expect(r.details.sentences.map((s) => [s.match?.index, s.match?.similarity])).toEqual([
      [0, 1],
      [2, expect.closeTo(0.8, 6)],
      [0, 0.5],
    ]);
    expect(r.details.sentences.map((s) => s.unsupportedRisk)).toEqual([false, false, true]);
    expect(r.details.flagged).toBe(1);
    expect(r.details.threshold).toEqual({ threshold: 0.6, percentile: 10 });
    expect(r.details.sentences[2].match?.text).toBe('Alpha one.');
    expect(r.explanation).toBe(
      'The 3 summary sentences compared have a closest source sentence at mean cosine 0.77; 1 has no close source sentence (below 0.60): check it.',
    );
    expect(r.explanation).not.toMatch(/hallucinat|false/iu);
    expect(r.notes).toBeUndefined();
  });

  it('flags nothing for a backend without a calibrated threshold, and says so', async () => {
    const r = scored(
      await scoreSupport(
        { source: SOURCE, summary: 'Sa. Sd.' },
        new DesignedEmbedder(vectors, 'transformers.js some-model'),
        undefined,
        DESIGNED_THRESHOLDS,
      ),
    );
    expect(r.score).toBeCloseTo(0.75, 6);
    expect(r.details.threshold).toBeNull();
    expect(r.details.flagged).toBe(0);
    expect(r.notes).toEqual([
      'No support threshold is calibrated for transformers.js some-model: no sentence is flagged.',
    ]);
  });

  it('leaves a sentence without a vector out of the mean, unflagged', async () => {
    const r = scored(
      await scoreSupport(
        { source: SOURCE, summary: 'Sd. Blank.' },
        new DesignedEmbedder(vectors),
        undefined,
        DESIGNED_THRESHOLDS,
      ),
    );
    expect(r.score).toBe(0.5);
    expect(r.details.sentences[1]).toMatchObject({ match: null, unsupportedRisk: false });
  });

  it('is n/a for an empty summary or source', async () => {
    const e = new DesignedEmbedder(vectors);
    expect((await scoreSupport({ source: SOURCE, summary: ' ' }, e)).reason).toBe(
      'the summary has no sentences',
    );
    expect((await scoreSupport({ source: '', summary: 'Sa.' }, e)).reason).toBe(
      'the source has no sentences to compare with',
    );
    expect(e.calls).toEqual([]);
  });
});
