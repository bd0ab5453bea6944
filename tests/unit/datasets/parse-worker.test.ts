/**
 * The parse worker's `import` over the RPC layer, with fake-indexeddb: a Blob streamed in and its
 * rows stored by the worker itself (the data set's record last), progress and bad rows posted, the
 * summary with the data set's id answered; nothing stored for a file that cannot be mapped or read;
 * UTF-16 read to the same rows as UTF-8; a binary file refused; a malformed request; and a cancel
 * that removes the rows already written.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { sharedPath } from '../../helpers/shared.ts';
import { endlessBlob, chunkedBlob, importRows, parseWorker } from './_parse-worker.ts';
import { getDataset, getDatasetRows, listDatasets } from '../../../src/lib/storage/datasets.ts';
import { db } from '../../../src/lib/storage/db.ts';
import { isCancelled } from '../../../src/lib/workers/rpc.ts';

const dev = readFileSync(sharedPath('data/summeval/dev.jsonl'));

async function storedRowCount(): Promise<number> {
  return (await db()).count('dataset-rows');
}

describe('dataset-parse worker: import', () => {
  it('stores a file itself and posts progress, the detection and the summary only', async () => {
    const { summary, progress } = await importRows({
      file: new Blob([dev]),
      fileName: 'dev.jsonl',
      batchSize: 250,
    });
    expect(summary).toMatchObject({ rows: 600, problems: 0, bytes: dev.byteLength });
    const dataset = await getDataset(summary.datasetId);
    expect(dataset).toMatchObject({
      name: 'dev',
      kind: 'summeval',
      format: 'jsonl',
      rowCount: 600,
      fileName: 'dev.jsonl',
      problems: { count: 0, examples: [] },
    });
    const rows = await getDatasetRows(summary.datasetId, -Infinity, 1000);
    expect(rows.map((r) => r.row)).toEqual(Array.from({ length: 600 }, (_, i) => i + 1));
    const types = progress.map((p) => p.type);
    expect(types.filter((t) => t === 'detected')).toHaveLength(1);
    expect(progress.filter((p) => p.type === 'stored').at(-1)).toEqual({
      type: 'stored',
      rows: 600,
    });
    expect(progress.filter((p) => p.type === 'bytes').at(-1)).toEqual({
      type: 'bytes',
      bytes: dev.byteLength,
      total: dev.byteLength,
    });
    // No row crossed: every item is small.
    for (const item of progress) expect(JSON.stringify(item).length).toBeLessThan(5000);
  });

  it('bad rows arrive as problems and are kept with the data set; an unmappable file stores nothing', async () => {
    const text = '{"source":"S.","summary":"A."}\nnot json\n{"source":"S.","summary":"B."}\n';
    const { summary, progress } = await importRows({ file: new Blob([text]), fileName: 'c.jsonl' });
    expect(progress.flatMap((p) => (p.type === 'problems' ? p.problems : []))).toEqual([
      {
        row: 2,
        reason: expect.stringMatching(/^row 2: not valid JSON/u),
        // The page words it in the reader's language from the ref, which crosses with it.
        reasonRef: expect.objectContaining({ key: 'datasets.problem.rowLine' }),
      },
    ]);
    expect((await getDataset(summary.datasetId))?.problems.count).toBe(1);

    const before = (await listDatasets()).length;
    const rowsBefore = await storedRowCount();
    await expect(
      importRows({ file: new Blob(['{"question":"Q?"}\n']), fileName: 'q.jsonl' }),
    ).rejects.toThrow();
    expect((await listDatasets()).length).toBe(before);
    expect(await storedRowCount()).toBe(rowsBefore);

    // The same file with a mapping from the user loads.
    const mapped = await importRows({
      file: new Blob(['{"question":"Q?","reply":"R."}\n']),
      fileName: 'q.jsonl',
      mapping: { kind: 'case', source: 'question', summary: 'reply' },
      task: 'custom:rouge-l',
    });
    expect(await getDataset(mapped.summary.datasetId)).toMatchObject({
      rowCount: 1,
      kind: 'case',
      task: 'custom:rouge-l',
      mapping: { source: 'question', summary: 'reply' },
    });
  });

  it('a file of bad rows only is an error naming the first, with nothing stored', async () => {
    const rowsBefore = await storedRowCount();
    await expect(
      importRows({
        file: new Blob(['{"source":"S."\nnot json\n']),
        fileName: 'x.jsonl',
        mapping: { kind: 'case', source: 'source', summary: 'summary' },
      }),
    ).rejects.toThrow(/^No row of x\.jsonl could be read: /u);
    expect(await storedRowCount()).toBe(rowsBefore);
  });

  it('a UTF-16BE copy of dev.jsonl stores the same 600 rows, its summary naming UTF-16BE', async () => {
    const be = new Uint8Array(Buffer.from('\ufeff' + dev.toString('utf8'), 'utf16le').swap16());
    // 64 KB + 1: every chunk after the first starts in the middle of a code unit.
    const utf16 = await importRows({
      file: chunkedBlob(be, 64 * 1024 + 1).blob,
      fileName: 'a.jsonl',
    });
    const utf8 = await importRows({ file: new Blob([dev]), fileName: 'b.jsonl' });
    expect(utf16.summary).toMatchObject({ rows: 600, encoding: 'UTF-16BE', bytes: be.byteLength });
    expect(utf8.summary).toMatchObject({ encoding: 'UTF-8' });
    const rowsOf = (id: string) => getDatasetRows(id, -Infinity, 1000);
    expect(await rowsOf(utf16.summary.datasetId)).toEqual(await rowsOf(utf8.summary.datasetId));
  });

  it('a PNG renamed .jsonl is one error naming it binary', async () => {
    const png = new Uint8Array(300 * 1024);
    png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    png.fill(0x7b, 8); // "{{{…": text after the header must not make it a JSON file
    const { client, replies } = parseWorker();
    await expect(
      client.call('import', { file: new Blob([png]), fileName: 'photo.jsonl' }),
    ).rejects.toThrow(
      'photo.jsonl is a binary file (it looks like a PNG image), not text: SumLens reads JSONL, JSON or CSV.',
    );
    expect(replies.map((r) => (r as { kind: string }).kind)).toEqual(['error']);
  });

  it('rejects a malformed request, and a cancel removes the rows already written', async () => {
    const { client } = parseWorker();
    await expect(client.call('import', { file: new Blob(['']), batchSize: 0 })).rejects.toThrow(
      /^Malformed request to the file reader worker \(import\): batchSize/u,
    );

    const before = await storedRowCount();
    const { blob, pulls } = endlessBlob('{"source":"S.","summary":"A."}\n');
    const controller = new AbortController();
    let stored = 0;
    const job = client.call(
      'import',
      { file: blob, fileName: 'endless.jsonl', batchSize: 100 },
      {
        signal: controller.signal,
        onProgress: (p) => {
          if (p.type === 'stored') stored = p.rows;
        },
      },
    );
    while (stored < 300) await new Promise((r) => setTimeout(r, 1));
    expect(await storedRowCount()).toBeGreaterThan(before);
    controller.abort();
    await expect(job).rejects.toSatisfy(isCancelled);
    expect(await storedRowCount()).toBe(before);
    expect((await listDatasets()).some((d) => d.name === 'endless')).toBe(false);
    expect(pulls.count).toBeGreaterThan(0);
  });
});
