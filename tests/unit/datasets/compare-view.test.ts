import { describe, expect, it } from 'vitest';
import {
  deltaRows,
  formatCompareHash,
  parseCompareHash,
  type CompareState,
} from '../../../src/lib/datasets/compare-view.ts';
import type { Comparison } from '../../../src/lib/datasets/compare.ts';

describe('compare hash', () => {
  it('round-trips the state, run ids and system names with any characters', () => {
    const state: CompareState = {
      a: { runId: 'run-1', system: 'M 11&x' },
      b: { runId: 'run-1', system: 'M13' },
      metric: 'geval-custom:Tone',
      sort: 'improvement',
      changed: true,
      filterSide: 'a',
      min: 0.25,
      max: 0.75,
      pair: 'dm-test-1',
      margin: 0.02,
    };
    expect(parseCompareHash(formatCompareHash(state))).toEqual(state);
  });

  it('defaults what is missing, and is null for other hashes', () => {
    expect(parseCompareHash('#compare?a=r1')).toEqual({
      a: { runId: 'r1' },
      sort: 'regression',
      changed: false,
      filterSide: 'b',
    });
    expect(parseCompareHash('#validity')).toBeNull();
    expect(parseCompareHash('#compare?b=r1')).toBeNull();
    expect(parseCompareHash('#compare?a=r1&min=x')?.min).toBeUndefined();
  });
});

describe('deltaRows', () => {
  const comparison = {
    keys: ['1', '2', '3', '4'],
    rowsA: [1, 2, 3, 4],
    rowsB: [1, 2, 3, 4],
    valuesA: new Map([['m', Float64Array.from([0.5, 0.5, 0.2, Number.NaN])]]),
    valuesB: new Map([['m', Float64Array.from([0.4, 0.5, 0.6, 0.3])]]),
  } as unknown as Comparison;
  const base = { metric: 'm', changed: false, filterSide: 'b' as const };

  it('sorts the worst regression first, rows without a delta last', () => {
    expect(deltaRows(comparison, { ...base, sort: 'regression' }).map((r) => r.key)).toEqual([
      '1',
      '2',
      '3',
      '4',
    ]);
    expect(deltaRows(comparison, { ...base, sort: 'improvement' }).map((r) => r.key)).toEqual([
      '3',
      '2',
      '1',
      '4',
    ]);
  });

  it('keeps only changed rows, and rows in a score range', () => {
    const changed = deltaRows(comparison, { ...base, sort: 'row', changed: true });
    expect(changed.map((r) => r.key)).toEqual(['1', '3']);
    expect(changed[0].delta).toBeCloseTo(-0.1, 12);
    expect(deltaRows(comparison, { ...base, sort: 'row', min: 0.45 }).map((r) => r.key)).toEqual([
      '2',
      '3',
    ]);
    expect(
      deltaRows(comparison, { ...base, sort: 'row', filterSide: 'a', max: 0.3 }).map((r) => r.key),
    ).toEqual(['3']);
  });
});
