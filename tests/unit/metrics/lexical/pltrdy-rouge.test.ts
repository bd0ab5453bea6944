import { describe, expect, it } from 'vitest';
import { readJson } from '../../../helpers/shared.ts';
import {
  PltrdyRougeError,
  longbenchRougeScore,
  pltrdyRouge,
  pltrdySentences,
  type PltrdyRougeScores,
} from '../../../../src/lib/metrics/lexical/pltrdy-rouge.ts';

interface PltrdyVectors {
  items: {
    hyp: string;
    ref: string;
    'scores_rouge_1.0.1': PltrdyRougeScores;
    // Deliberately not tested: the expected scores stored in pltrdy's repository test data
    // (2017), computed by an earlier version of the package; the 1.0.1 release that TinyEval and
    // LongBench install returns the scores_rouge_1.0.1 values instead (its rouge-l differs by up
    // to 0.2), so only that block is a parity target.
    scores_in_repo_data_json_2017: unknown;
  }[];
  avg_over_items: PltrdyRougeScores;
}

const vectors = readJson<PltrdyVectors>('data/reference/pltrdy_rouge_1.0.1_vectors.json');
const METRICS = ['rouge-1', 'rouge-2', 'rouge-l'] as const;
const STATS = ['r', 'p', 'f'] as const;

describe('pltrdy rouge 1.0.1 parity (pltrdy_rouge_1.0.1_vectors.json)', () => {
  it('matches r/p/f of rouge-1, rouge-2 and rouge-l for every item, and their average', () => {
    let maxDiff = 0;
    const sums = Object.fromEntries(METRICS.map((m) => [m, { r: 0, p: 0, f: 0 }]));
    for (const item of vectors.items) {
      const got = pltrdyRouge(item.hyp, item.ref);
      for (const m of METRICS) {
        for (const s of STATS) {
          const d = Math.abs(got[m][s] - item['scores_rouge_1.0.1'][m][s]);
          maxDiff = Math.max(maxDiff, d);
          expect(d, `${m}.${s}`).toBeLessThanOrEqual(1e-6);
          sums[m][s] += got[m][s] / vectors.items.length;
        }
      }
    }
    for (const m of METRICS) {
      for (const s of STATS) {
        expect(Math.abs(sums[m][s] - vectors.avg_over_items[m][s])).toBeLessThanOrEqual(1e-6);
      }
    }
    expect(maxDiff).toBeLessThanOrEqual(1e-6);
  });
});

describe('pltrdy rouge by hand', () => {
  it('gives 2PR/(P+R+1e-8) for identical text', () => {
    const s = pltrdyRouge('the cat sat', 'the cat sat');
    expect(s['rouge-l'].f).toBeCloseTo(0.999999995, 12);
    expect(s['rouge-1'].p).toBe(1);
  });

  it('is case-sensitive and counts distinct words', () => {
    const s = pltrdyRouge('The cat the cat', 'the cat');
    // hyp words {The, cat, the}; ref {the, cat}: overlap {the, cat}
    expect(s['rouge-1'].p).toBeCloseTo(2 / 3, 12);
    expect(s['rouge-1'].r).toBe(1);
  });

  it('splits sentences on periods and keeps pltrdy’s empty word', () => {
    expect(pltrdySentences('A b.  C d. ')).toEqual(['A b', 'C d', '']);
    expect(pltrdySentences('...')).toEqual([]);
  });

  it('throws on empty input, which LongBench scores 0', () => {
    expect(() => pltrdyRouge('', 'x')).toThrow(PltrdyRougeError);
    expect(() => pltrdyRouge('x', '...')).toThrow(/Reference is empty/);
    expect(longbenchRougeScore('', 'x')).toBe(0);
    expect(longbenchRougeScore('...', 'x')).toBe(0);
  });

  it('refuses an LCS over the cell budget instead of hanging', () => {
    const long = Array.from({ length: 5000 }, (_, i) => `w${i % 50}`).join(' ');
    expect(() => pltrdyRouge(long, long)).toThrow(/exceed/);
    expect(() => longbenchRougeScore(long, long)).toThrow(PltrdyRougeError);
  });
});
