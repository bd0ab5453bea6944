import { describe, expect, it } from 'vitest';
import reference from '../../fixtures/stats/paired-comparison.json' with { type: 'json' };
import {
  bootstrapMean,
  pairedBootstrap,
  percentileSorted,
} from '../../../src/lib/stats/paired-bootstrap.ts';
import { mulberry32 } from '../../../src/lib/stats/seeded-random.ts';

describe('paired bootstrap against the stored reference (scripts/stats-reference.py: mulberry32 in Python, numpy.percentile)', () => {
  it.each(reference.examples.map((e) => [e.name, e] as const))('%s', (_name, example) => {
    const ref = example.bootstrap;
    const interval = pairedBootstrap(example.a, example.b, {
      seed: ref.seed,
      resamples: ref.resamples,
    });
    expect(interval?.mean).toBeCloseTo(ref.mean, 14);
    expect(interval?.low).toBe(ref.low);
    expect(interval?.high).toBe(ref.high);
  });
});

describe('bootstrap invariants', () => {
  const noisy = (n: number, seed: number) => {
    const rand = mulberry32(seed);
    return Array.from({ length: n }, () => 0.1 + (rand() - 0.5));
  };

  it('contains the mean difference', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const i = bootstrapMean(noisy(40, seed))!;
      expect(i.low).toBeLessThanOrEqual(i.mean);
      expect(i.high).toBeGreaterThanOrEqual(i.mean);
    }
  });

  it('narrows as the rows grow (about 1/√n)', () => {
    const width = (n: number) => {
      const i = bootstrapMean(noisy(n, 7))!;
      return i.high - i.low;
    };
    const [w25, w100, w400] = [width(25), width(100), width(400)];
    expect(w100).toBeLessThan(w25);
    expect(w400).toBeLessThan(w100);
    expect(w400 / w25).toBeGreaterThan(0.15);
    expect(w400 / w25).toBeLessThan(0.35);
  });

  it('is the same for the same seed, and a single point for constant differences', () => {
    const xs = noisy(30, 9);
    expect(bootstrapMean(xs, { seed: 5 })).toEqual(bootstrapMean(xs, { seed: 5 }));
    expect(bootstrapMean(xs, { seed: 5 })).not.toEqual(bootstrapMean(xs, { seed: 6 }));
    expect(pairedBootstrap([1, 2, 3], [1.5, 2.5, 3.5])).toMatchObject({ low: 0.5, high: 0.5 });
    expect(bootstrapMean([])).toBeNull();
  });

  it('percentiles as numpy (linear)', () => {
    // numpy.percentile([1, 2, 3, 4], [25, 50, 90]) → 1.75, 2.5, 3.7
    expect(percentileSorted([1, 2, 3, 4], 0.25)).toBe(1.75);
    expect(percentileSorted([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(percentileSorted([1, 2, 3, 4], 0.9)).toBeCloseTo(3.7, 15);
  });
});
