import { describe, expect, it } from 'vitest';
import { compareSides, systemsOf, type SideData } from '../../../src/lib/datasets/compare.ts';
import { leaderboard } from '../../../src/lib/datasets/leaderboard.ts';
import type { StoredRun, StoredRunResult } from '../../../src/lib/storage/schema.ts';
import type { MetricId } from '../../../src/lib/metrics/types.ts';
import { bootstrapMean } from '../../../src/lib/stats/paired-bootstrap.ts';
import { wilcoxon } from '../../../src/lib/stats/wilcoxon.ts';
import { fakeResult } from '../metrics/scored.ts';

function run(id: string, metrics: MetricId[] = ['rouge-l', 'token-f1']): StoredRun {
  return { id, datasetId: 'd', metrics, settings: {} } as unknown as StoredRun;
}

function result(
  runId: string,
  row: number,
  scores: Record<string, number | null>,
  backend = 'js',
): StoredRunResult {
  return {
    runId,
    row,
    status: 'done',
    finishedAt: 0,
    elapsedMs: 0,
    results: Object.entries(scores).map(([id, score]) =>
      fakeResult({
        id: id as MetricId,
        status: score === null ? 'n/a' : 'ok',
        score,
        backend: id === 'token-f1' ? `${backend}-tok` : backend,
      }),
    ),
  };
}

const A = [0.2, 0.4, 0.5, 0.1, 0.7, 0.3];
const B = [0.3, 0.4, 0.6, 0.3, 0.65, 0.5];

function side(runId: string, values: number[], extra: Partial<SideData> = {}): SideData {
  return {
    datasetId: 'd',
    run: run(runId),
    rows: values.map((_, i) => ({ row: i + 1, group: `doc${i + 1}` })),
    results: values.map((v, i) => result(runId, i + 1, { 'rouge-l': v, 'token-f1': v / 2 })),
    ...extra,
  };
}

describe('compareSides', () => {
  it('pairs two runs over one data set by row, and matches the statistics on the differences', () => {
    const c = compareSides(side('a', A), side('b', B));
    expect(c.pairing).toBe('row');
    expect(c.rowsA).toEqual([1, 2, 3, 4, 5, 6]);
    const m = c.metrics.find((x) => x.column === 'rouge-l')!;
    const d = B.map((b, i) => b - A[i]);
    expect(m).toMatchObject({ comparable: true, n: 6, wins: 4, ties: 1, losses: 1 });
    const interval = bootstrapMean(d, { resamples: 2000, seed: 2024 })!;
    expect(m.meanDiff).toBeCloseTo(d.reduce((s, v) => s + v) / 6, 14);
    expect([m.low, m.high]).toEqual([interval.low, interval.high]);
    expect(m.pValue).toBe(wilcoxon(d)!.pValue);
    expect(Array.from(c.valuesB.get('rouge-l')!)).toEqual(B);
  });

  it('reports a column of another backend as not comparable, never as a difference', () => {
    const b = side('b', B);
    b.results = B.map((v, i) => result('b', i + 1, { 'rouge-l': v, 'token-f1': v }, 'wasm'));
    const c = compareSides(side('a', A), b);
    expect(c.metrics.find((x) => x.column === 'rouge-l')).toMatchObject({
      comparable: false,
      backendA: 'js',
      backendB: 'wasm',
      meanDiff: null,
      pValue: null,
      wins: 0,
    });
  });

  it('keeps only pairs with a score on both sides for a column', () => {
    const b = side('b', B);
    b.results = b.results.map((r) =>
      r.row === 3 ? result('b', 3, { 'rouge-l': null, 'token-f1': 0.3 }) : r,
    );
    const m = compareSides(side('a', A), b).metrics.find((x) => x.column === 'rouge-l')!;
    expect(m.n).toBe(5);
  });

  it('pairs two systems of one run by source, and counts rows without a partner', () => {
    const rows = [
      { row: 1, group: 'x', system: 'M1' },
      { row: 2, group: 'x', system: 'M2' },
      { row: 3, group: 'y', system: 'M1' },
      { row: 4, group: 'y', system: 'M2' },
      { row: 5, group: 'z', system: 'M1' },
    ];
    const results = [0.1, 0.5, 0.2, 0.1, 0.9].map((v, i) =>
      result('r', i + 1, { 'rouge-l': v, 'token-f1': v }),
    );
    const base = { datasetId: 'd', run: run('r'), rows, results };
    const c = compareSides({ ...base, system: 'M1' }, { ...base, system: 'M2' });
    expect(c.pairing).toBe('source');
    expect(c.keys).toEqual(['x', 'y']);
    expect(c.rowsB).toEqual([2, 4]);
    expect(c.unpaired).toEqual({ a: 1, b: 0 });
    expect(c.metrics[0]).toMatchObject({ wins: 1, losses: 1 });
    expect(systemsOf(rows)).toEqual(['M1', 'M2']);
  });

  it('pairs runs of two data sets by record id when every row has a distinct one', () => {
    const a = side('a', A, { datasetId: 'd1' });
    a.rows = A.map((_, i) => ({ row: i + 1, id: `r${i}` }));
    const b = side('b', B.slice().reverse(), { datasetId: 'd2' });
    b.rows = B.map((_, i) => ({ row: i + 1, id: `r${B.length - 1 - i}` }));
    const c = compareSides(a, b);
    expect(c.pairing).toBe('id');
    expect(Array.from(c.valuesB.get('rouge-l')!)).toEqual(B);
  });
});

describe('leaderboard', () => {
  it('ranks systems by mean with an interval, only where sources share systems', () => {
    const rows = [1, 2, 3, 4, 5, 6].map((row) => ({
      row,
      group: `doc${Math.ceil(row / 2)}`,
      system: row % 2 ? 'M1' : 'M2',
    }));
    const values = [0.1, 0.6, 0.2, 0.7, 0.3, 0.5];
    const results = values.map((v, i) => result('r', i + 1, { 'rouge-l': v }));
    const board = leaderboard(rows, results, ['rouge-l'])!;
    expect(board.sharedSources).toBe(3);
    const [first, second] = board.columns[0].entries;
    expect(first).toMatchObject({ system: 'M2', rank: 1, n: 3 });
    expect(first.mean).toBeCloseTo(0.6, 12);
    expect(first.low!).toBeLessThanOrEqual(first.mean!);
    expect(first.high!).toBeGreaterThanOrEqual(first.mean!);
    expect(second).toMatchObject({ system: 'M1', rank: 2 });
    expect(
      leaderboard(
        rows.map((r) => ({ ...r, system: 'M1' })),
        results,
        ['rouge-l'],
      ),
    ).toBeNull();
  });
});
