import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  deleteAllDatasets,
  deleteDataset,
  getDataset,
  getDatasetRow,
  getDatasetRows,
  iterateDatasetRows,
  listDatasets,
  removeOrphanRows,
  saveDataset,
  summarizeProblems,
  type DatasetMeta,
} from '../../../src/lib/storage/datasets.ts';
import {
  clearFailedRows,
  createRun,
  deleteRun,
  doneRows,
  getRowResult,
  getRun,
  iterateRunResults,
  listRunResults,
  listRuns,
  pendingRows,
  putRowResult,
  restoreRun,
  updateRun,
} from '../../../src/lib/storage/runs.ts';
import { StorageFullError } from '../../../src/lib/storage/quota.ts';
import type { StoredRunResult } from '../../../src/lib/storage/schema.ts';
import type { DatasetRow } from '../../../src/lib/rows/formats.ts';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';
import type { MetricResult } from '../../../src/lib/metrics/types.ts';
import { fakeResult } from '../metrics/scored.ts';

function rows(n: number, offset = 0): DatasetRow[] {
  return Array.from({ length: n }, (_, i) => ({
    row: offset + i + 1,
    kind: 'case' as const,
    id: `r${offset + i + 1}`,
    group: `doc${Math.floor(i / 3)}`,
    input: { source: `Source ${i}.`, summary: `Summary ${i}.`, reference: `Reference ${i}.` },
    human: i % 2 === 0 ? { overall: i } : ({ overall: i, fluency: 1 } as Record<string, number>),
  }));
}

function meta(id: string, createdAt = 1000): DatasetMeta {
  return {
    id,
    name: `Data set ${id}`,
    createdAt,
    kind: 'case',
    format: 'jsonl',
    mapping: { kind: 'case', source: 'source', summary: 'summary', human: [] },
    problems: summarizeProblems([{ row: 99, reason: 'row 99: not valid JSON' }]),
  };
}

function result(id: MetricResult['id'], score: number | null, backend = 'b1'): MetricResult {
  return fakeResult({ id, status: score === null ? 'n/a' : 'ok', score, backend });
}

function rowResult(
  runId: string,
  row: number,
  extra: Partial<StoredRunResult> = {},
): StoredRunResult {
  return {
    runId,
    row,
    status: 'done',
    results: [result('rouge-l', row / 10)],
    finishedAt: 5000 + row,
    elapsedMs: 3,
    ...extra,
  };
}

async function newRun(id: string, datasetId: string, total: number) {
  return createRun({
    id,
    datasetId,
    datasetName: `Data set ${datasetId}`,
    createdAt: 2000,
    metrics: ['rouge-l'],
    settings: { metrics: DEFAULT_SETTINGS },
    appVersion: 'test',
    total,
  });
}

beforeEach(async () => {
  await deleteAllDatasets();
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('data sets', () => {
  it('saves rows in batches, lists data sets without rows, reads rows in order', async () => {
    const progress: number[] = [];
    const saved = await saveDataset(meta('a'), rows(10), {
      batchSize: 3,
      // No time slicing: a slow step on a busy machine would split a batch (tested below).
      sliceMs: Infinity,
      onProgress: (n) => progress.push(n),
    });
    expect(progress).toEqual([3, 6, 9, 10]);
    expect(saved.rowCount).toBe(10);
    expect(saved.humanColumns).toEqual(['overall', 'fluency']);
    expect(saved.problems).toEqual({
      count: 1,
      examples: [{ row: 99, reason: 'row 99: not valid JSON' }],
    });
    await saveDataset(meta('b', 3000), rows(2));
    expect((await listDatasets()).map((d) => d.id)).toEqual(['b', 'a']);
    expect(await getDataset('a')).toEqual(saved);

    const all = await getDatasetRows('a');
    expect(all).toEqual(rows(10));
    expect(all[0]).not.toHaveProperty('datasetId');
    expect((await getDatasetRows('a', 4, 3)).map((r) => r.row)).toEqual([4, 5, 6]);
    const iterated: number[] = [];
    for await (const r of iterateDatasetRows('a', 4)) iterated.push(r.row);
    expect(iterated).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // One row by its number, as the run view opens it.
    expect(await getDatasetRow('a', 4)).toEqual(rows(10)[3]);
    expect(await getDatasetRow('a', 4)).not.toHaveProperty('datasetId');
    expect(await getDatasetRow('a', 42)).toBeUndefined();
    expect(await getDatasetRow('b', 4)).toBeUndefined();
  });

  it('accepts an async source of rows', async () => {
    async function* source() {
      for (const r of rows(5)) yield r;
    }
    const saved = await saveDataset(meta('async'), source(), { batchSize: 2 });
    expect(saved.rowCount).toBe(5);
    expect((await getDatasetRows('async')).length).toBe(5);
  });

  it('commits a transaction once it has queued rows for its time slice, and goes on in the next', async () => {
    // A clock that moves 5 ms per reading: a 12 ms slice queues 3 rows (0, 5, 10 < 12; 15 is not).
    let now = 0;
    const clock = () => (now += 5);
    const progress: number[] = [];
    const saved = await saveDataset(meta('sliced'), rows(10), {
      sliceMs: 12,
      clock,
      onProgress: (n) => progress.push(n),
    });
    expect(progress).toEqual([3, 6, 9, 10]);
    expect(saved.rowCount).toBe(10);
    expect(await getDatasetRows('sliced')).toEqual(rows(10));

    // Every transaction takes at least one row, however slow the clock.
    const one: number[] = [];
    await saveDataset(meta('one'), rows(3), { sliceMs: 0, onProgress: (n) => one.push(n) });
    expect(one).toEqual([1, 2, 3]);
    // The batch size still caps a transaction when the slice is generous.
    const capped: number[] = [];
    await saveDataset(meta('capped'), rows(5), {
      batchSize: 2,
      sliceMs: 1000,
      clock,
      onProgress: (n) => capped.push(n),
    });
    expect(capped).toEqual([2, 4, 5]);
  });

  it('rolls back a sliced import that fails half way, naming the first row not saved', async () => {
    let now = 0;
    let puts = 0;
    const realPut = IDBObjectStore.prototype.put;
    vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(function (
      this: IDBObjectStore,
      ...args: Parameters<IDBObjectStore['put']>
    ) {
      if (++puts > 7) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      return realPut.apply(this, args);
    });
    const error = await saveDataset(meta('half'), rows(10), {
      sliceMs: 12,
      clock: () => (now += 5),
    }).catch((e: unknown) => e);
    vi.restoreAllMocks();
    // Slices of 3: rows 1–3 and 4–6 stored, the put of row 8 fails in the slice that starts at 7.
    expect((error as Error).message).toMatch(/at row 7 after 6 rows/u);
    expect(await getDataset('half')).toBeUndefined();
    expect(await getDatasetRows('half')).toEqual([]);
  });

  it('removes a half-written data set when storage is full, and says what was not saved', async () => {
    let puts = 0;
    const realPut = IDBObjectStore.prototype.put;
    vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(function (
      this: IDBObjectStore,
      ...args: Parameters<IDBObjectStore['put']>
    ) {
      if (++puts > 4) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      return realPut.apply(this, args);
    });
    const error = await saveDataset(meta('full'), rows(10), {
      batchSize: 3,
      sliceMs: Infinity,
    }).catch((e: unknown) => e);
    vi.restoreAllMocks();
    expect(error).toBeInstanceOf(StorageFullError);
    expect((error as Error).message).toMatch(/"Data set full" was not saved/u);
    expect((error as Error).message).toMatch(/at row 4 after 3 rows/u);
    expect((error as Error).message).toMatch(/storage for this app is full/u);
    expect(await getDataset('full')).toBeUndefined();
    expect(await getDatasetRows('full')).toEqual([]);
  });

  it('deletes a data set with its rows, runs and their results, and nothing else', async () => {
    await saveDataset(meta('a'), rows(4));
    await saveDataset(meta('b'), rows(4));
    await newRun('ra', 'a', 4);
    await newRun('rb', 'b', 4);
    await putRowResult(rowResult('ra', 1));
    await putRowResult(rowResult('rb', 1));
    await deleteDataset('a');
    expect(await getDataset('a')).toBeUndefined();
    expect(await getDatasetRows('a')).toEqual([]);
    expect(await getRun('ra')).toBeUndefined();
    expect(await listRunResults('ra')).toEqual([]);
    expect(await getRun('rb')).toBeDefined();
    expect(await listRunResults('rb')).toHaveLength(1);
    expect(await getDatasetRows('b')).toHaveLength(4);
  });
});

describe('runs', () => {
  it('stores each row once, with counters, judge usage and backends in the same write', async () => {
    await saveDataset(meta('a'), rows(6));
    const run = await newRun('r1', 'a', 6);
    expect(run).toMatchObject({ status: 'running', counts: { total: 6, done: 0, failed: 0 } });

    const usage = { input: 100, output: 10, calls: 2, httpCalls: 2, cachedCalls: 0, cost: 0.5 };
    expect(await putRowResult(rowResult('r1', 2, { judge: usage }))).toBe(true);
    expect(await putRowResult(rowResult('r1', 5, { judge: { ...usage, cachedInput: 40 } }))).toBe(
      true,
    );
    // The same row again (a double after a crash): refused, not counted.
    expect(await putRowResult(rowResult('r1', 5, { judge: usage }))).toBe(false);
    expect(
      await putRowResult({
        ...rowResult('r1', 3),
        status: 'failed',
        results: [],
        error: 'boom',
      }),
    ).toBe(true);
    await putRowResult({ ...rowResult('r1', 4), results: [result('rouge-l', 0.1, 'b2')] });

    const stored = (await getRun('r1'))!;
    expect(stored.counts).toEqual({ total: 6, done: 4, failed: 1 });
    expect(stored.judgeUsage).toEqual({
      input: 200,
      output: 20,
      cachedInput: 40,
      calls: 4,
      httpCalls: 4,
      cachedCalls: 0,
      cost: 1,
    });
    expect(stored.backends.perMetric).toEqual({ 'rouge-l': ['b1', 'b2'] });
    expect((await listRunResults('r1')).map((r) => r.row)).toEqual([2, 3, 4, 5]);
    expect((await listRunResults('r1', 4)).map((r) => r.row)).toEqual([4, 5]);
    const iterated: number[] = [];
    for await (const r of iterateRunResults('r1', 3)) iterated.push(r.row);
    expect(iterated).toEqual([2, 3, 4, 5]);
    const exact: number[] = [];
    for await (const r of iterateRunResults('r1', 2)) exact.push(r.row);
    expect(exact).toEqual([2, 3, 4, 5]);
    expect((await getRowResult('r1', 3))?.error).toBe('boom');
    expect(await getRowResult('r1', 1)).toBeUndefined();
    expect([...(await doneRows('r1'))].sort()).toEqual([2, 3, 4, 5]);

    const pending: number[] = [];
    for await (const r of pendingRows('r1', { batchSize: 2 })) pending.push(r.row);
    expect(pending).toEqual([1, 6]);
  });

  it('keeps a cost unknown once one row had no price', async () => {
    await newRun('r', 'a', 3);
    const usage = { input: 1, output: 1, calls: 1, httpCalls: 1, cachedCalls: 0 };
    await putRowResult(rowResult('r', 1, { judge: { ...usage, cost: 0.25 } }));
    await putRowResult(rowResult('r', 2, { judge: usage }));
    await putRowResult(rowResult('r', 3, { judge: { ...usage, cost: 0.25 } }));
    expect((await getRun('r'))!.judgeUsage).not.toHaveProperty('cost');
  });

  it('refuses a result for a run that does not exist', async () => {
    await expect(putRowResult(rowResult('nope', 1))).rejects.toThrow(/does not exist/u);
  });

  it('reports a full disk on a row as a StorageFullError naming the row, counters untouched', async () => {
    await newRun('r', 'a', 3);
    vi.spyOn(IDBObjectStore.prototype, 'add').mockImplementation(() => {
      throw new DOMException('Quota exceeded', 'QuotaExceededError');
    });
    const error = await putRowResult(rowResult('r', 2)).catch((e: unknown) => e);
    vi.restoreAllMocks();
    expect(error).toBeInstanceOf(StorageFullError);
    expect((error as StorageFullError).what).toMatch(/results of row 2 were not saved/u);
    expect((error as Error).message).toMatch(/paused/u);
    expect((await getRun('r'))!.counts).toEqual({ total: 3, done: 0, failed: 0 });
    expect(await listRunResults('r')).toEqual([]);
  });

  it('updates status and message, lists runs newest first, deletes a run with its results', async () => {
    await newRun('r1', 'a', 2);
    await createRun({
      id: 'r2',
      datasetId: 'b',
      datasetName: 'B',
      createdAt: 3000,
      metrics: ['bleu'],
      settings: { metrics: DEFAULT_SETTINGS },
      appVersion: 'test',
      total: 1,
    });
    await putRowResult(rowResult('r1', 1));
    let run = await updateRun('r1', { status: 'paused', message: 'Storage full.' });
    expect(run).toMatchObject({ status: 'paused', message: 'Storage full.' });
    run = await updateRun('r1', { status: 'done', message: null });
    expect(run.status).toBe('done');
    expect(run.finishedAt).toBeTypeOf('number');
    expect(run).not.toHaveProperty('message');
    await expect(updateRun('nope', { status: 'done' })).rejects.toThrow(/does not exist/u);

    expect((await listRuns()).map((r) => r.id)).toEqual(['r2', 'r1']);
    expect((await listRuns('a')).map((r) => r.id)).toEqual(['r1']);
    await deleteRun('r1');
    expect(await getRun('r1')).toBeUndefined();
    expect(await listRunResults('r1')).toEqual([]);
    expect(await getRun('r2')).toBeDefined();
  });

  it('clears failed rows so that a resume scores them again', async () => {
    await saveDataset(meta('a'), rows(3));
    await newRun('r', 'a', 3);
    await putRowResult(rowResult('r', 1));
    await putRowResult({ ...rowResult('r', 2), status: 'failed', results: [], error: 'x' });
    await putRowResult(rowResult('r', 3));
    await updateRun('r', { status: 'done' });
    expect(await clearFailedRows('r')).toBe(1);
    const run = (await getRun('r'))!;
    expect(run.counts).toEqual({ total: 3, done: 2, failed: 0 });
    expect(run.status).toBe('paused');
    const pending: number[] = [];
    for await (const r of pendingRows('r')) pending.push(r.row);
    expect(pending).toEqual([2]);
  });

  it('restores a whole run with recomputed counters', async () => {
    const run = await newRun('orig', 'a', 3);
    await deleteRun('orig');
    const restored = await restoreRun(
      { ...run, id: 'copy', counts: { total: 3, done: 0, failed: 0 } },
      [
        rowResult('other', 1),
        { ...rowResult('other', 2), status: 'failed', results: [], error: 'x' },
      ],
      1,
    );
    expect(restored.counts).toEqual({ total: 3, done: 2, failed: 1 });
    expect((await listRunResults('copy')).map((r) => [r.runId, r.row])).toEqual([
      ['copy', 1],
      ['copy', 2],
    ]);
  });
});

describe('leftovers', () => {
  it('refuses to overwrite a stored data set, and cleans rows of an interrupted import', async () => {
    await saveDataset(meta('a'), rows(2));
    await expect(saveDataset(meta('a'), rows(2))).rejects.toThrow(/already stored/u);
    expect(await getDatasetRows('a')).toHaveLength(2);
    // An import that died before writing its record: rows without a data set.
    const { db } = await import('../../../src/lib/storage/db.ts');
    const database = await db();
    await database.put('dataset-rows', { ...rows(1)[0], datasetId: 'ghost' });
    expect(await removeOrphanRows()).toEqual(['ghost']);
    expect(await getDatasetRows('ghost')).toEqual([]);
    expect(await getDatasetRows('a')).toHaveLength(2);
    expect(await removeOrphanRows()).toEqual([]);
  });
});
