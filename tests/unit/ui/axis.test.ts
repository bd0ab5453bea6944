import { describe, expect, it } from 'vitest';
import { histogramBins, niceAxis, niceStep, stepDecimals } from '../../../src/lib/ui/axis.ts';

describe('round axis steps and histogram bins', () => {
  it('steps are 1, 2, 2.5 or 5 times a power of ten', () => {
    expect(niceStep(0.95, 20)).toBe(0.05);
    expect(niceStep(1, 10)).toBe(0.1);
    expect(niceStep(4, 6)).toBe(1);
    expect(niceStep(0.08, 5)).toBe(0.02);
    expect(niceStep(12, 5)).toBe(2.5);
    expect(niceStep(0, 5)).toBe(1);
    expect(stepDecimals(0.05)).toBe(2);
    expect(stepDecimals(0.25)).toBe(2);
    expect(stepDecimals(2.5)).toBe(1);
    expect(stepDecimals(5)).toBe(0);
  });

  it('bins 0–0.95 on edges 0.00, 0.05, 0.10 … rather than cutting the span in 20', () => {
    // The case: the old bins started at 0.0475 × i (0.00, 0.05, 0.10, 0.14, 0.19 …).
    const values = Array.from({ length: 120 }, (_, i) => (i / 119) * 0.95);
    const { edges, counts, step } = histogramBins(values, 20);
    expect(step).toBe(0.05);
    expect(edges.slice(0, 5)).toEqual([0, 0.05, 0.1, 0.15, 0.2]);
    expect(edges.at(-1)).toBe(0.95);
    for (let i = 1; i < edges.length; i++) expect(edges[i]! - edges[i - 1]!).toBeCloseTo(0.05, 12);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(120);
    expect(counts).toHaveLength(edges.length - 1);
  });

  it('puts each value in the bin [edge, next edge), the greatest in the last', () => {
    const { edges, counts } = histogramBins([0.1, 0.15, 0.2, 0.2, 0.3, NaN], 4);
    expect(edges).toEqual([0.1, 0.15, 0.2, 0.25, 0.3]);
    expect(counts).toEqual([1, 1, 2, 1]);
  });

  it('gives one value a bin around it, and nothing none', () => {
    const one = histogramBins([3, 3, 3]);
    expect(one.counts.reduce((a, b) => a + b, 0)).toBe(3);
    expect(one.edges[0]!).toBeLessThanOrEqual(3);
    expect(one.edges.at(-1)!).toBeGreaterThan(3);
    expect(histogramBins([NaN, Infinity])).toEqual({ edges: [], counts: [], step: 0 });
  });

  it('an axis spans the data, ending on round ticks', () => {
    expect(niceAxis(0, 0.95)).toEqual({ min: 0, max: 1, step: 0.2 });
    expect(niceAxis(0, 0.95, 6, 0.05).min).toBe(-0.2);
    const rouge = niceAxis(0.12, 0.61);
    expect(rouge.min).toBeLessThanOrEqual(0.12);
    expect(rouge.max).toBeGreaterThanOrEqual(0.61);
    expect(rouge.max - rouge.min).toBeLessThan(0.8);
    const ratings = niceAxis(1, 5);
    expect(ratings).toEqual({ min: 1, max: 5, step: 1 });
    const single = niceAxis(2, 2);
    expect(single.min).toBeLessThan(2);
    expect(single.max).toBeGreaterThan(2);
  });
});
