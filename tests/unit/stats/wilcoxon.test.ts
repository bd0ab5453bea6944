import { describe, expect, it } from 'vitest';
import reference from '../../fixtures/stats/paired-comparison.json' with { type: 'json' };
import { wilcoxon } from '../../../src/lib/stats/wilcoxon.ts';
import { erfc, normalSf } from '../../../src/lib/stats/normal.ts';
import { pairedDifferences } from '../../../src/lib/stats/paired-bootstrap.ts';

/** Relative closeness: p-values span many orders of magnitude. */
function expectRelClose(actual: number, expected: number, tolerance = 1e-12) {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tolerance * Math.abs(expected));
}

describe('wilcoxon against scipy.stats.wilcoxon (tests/fixtures/stats, scripts/stats-reference.py)', () => {
  it.each(reference.examples.map((e) => [e.name, e] as const))('%s', (_name, example) => {
    const result = wilcoxon(pairedDifferences(example.a, example.b));
    expect(result?.method).toBe(example.wilcoxon.method);
    expect(result?.statistic).toBe(example.wilcoxon.statistic);
    expectRelClose(result!.pValue, example.wilcoxon.pvalue);
    const z = (example.wilcoxon as { zstatistic?: number }).zstatistic;
    if (z !== undefined) expectRelClose(result!.z!, z);
  });

  it('covers the exact path and the approximation with ties and zeros', () => {
    const methods = reference.examples.map((e) => {
      const d = pairedDifferences(e.a, e.b);
      return { method: e.wilcoxon.method, zeros: d.filter((v) => v === 0).length };
    });
    expect(methods).toContainEqual({ method: 'exact', zeros: 0 });
    expect(methods.some((m) => m.method === 'approx' && m.zeros > 0)).toBe(true);
  });
});

describe('wilcoxon by hand', () => {
  it('all differences of one sign on 5 rows: p = 2/2⁵ exactly', () => {
    expect(wilcoxon([1, 2, 3, 4, 5])).toMatchObject({
      statistic: 0,
      pValue: 1 / 16,
      method: 'exact',
    });
  });

  it('is undefined when every difference is zero', () => {
    expect(wilcoxon([0, 0, 0])).toBeNull();
    expect(wilcoxon([])).toBeNull();
  });

  it('uses the approximation for tied |d| and above 50 rows', () => {
    expect(wilcoxon([1, -1, 2, 3])?.method).toBe('approx');
    expect(wilcoxon(Array.from({ length: 51 }, (_, i) => i + 1))?.method).toBe('approx');
  });

  it('refuses non-finite differences', () => {
    expect(() => wilcoxon([1, Number.NaN])).toThrow(/finite/u);
  });
});

describe('normal tail', () => {
  // scipy.special.erfc and scipy.stats.norm.sf
  it.each([
    [0.5, 0.4795001221869535],
    [1.5, 0.03389485352468927],
    [2.5, 0.00040695201744495886],
    [5, 1.5374597944280347e-12],
  ])('erfc(%s)', (x, expected) => expectRelClose(erfc(x), expected, 1e-13));

  it('norm.sf', () => {
    expectRelClose(normalSf(1.959963984540054), 0.025, 1e-13);
    expectRelClose(normalSf(-1), 0.8413447460685429, 1e-14);
  });
});
